/**
 * A worker thread of the canonicalization pool (piscina loads this module and calls its
 * default export once per task): says the task has started (its deadline counts from there),
 * canonicalizes the task's JSON texts one after the other, and answers one outcome per text.
 * Contexts registered in the main thread after this worker started come with a task that
 * needs them (see `canonicalization-pool.ts`).
 */
import { parentPort } from 'node:worker_threads'
import { canonicalOutcome, type CanonicalOutcome } from './canonize.js'
import { registerContext, type ContextDocument } from './contexts.js'

/** What a worker posts (piscina re-emits it as the pool's `message` event) when it starts task `started`. */
export interface TaskStarted {
  started: number
}

/** One unit of work. */
export interface CanonicalizeTask {
  /** The task's number, echoed in {@link TaskStarted}. */
  id: number
  /** The inputs, as JSON texts. */
  jsons: string[]
  /** Registered contexts to know before processing (`[url, document]`), usually none. */
  contexts: Array<[string, ContextDocument]>
}

export default async function canonicalize(task: CanonicalizeTask): Promise<CanonicalOutcome[]> {
  parentPort?.postMessage({ started: task.id } satisfies TaskStarted)
  for (const [url, document] of task.contexts) registerContext(url, document)
  const outcomes: CanonicalOutcome[] = []
  for (const json of task.jsons) outcomes.push(await canonicalOutcome(json))
  return outcomes
}

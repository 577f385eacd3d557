/**
 * A worker thread of the canonicalization pool (piscina loads this module and calls its
 * default export once per task): says the task has started (its deadline counts from there),
 * canonicalizes the task's JSON texts one after the other, and answers one outcome per text.
 * Contexts registered in the main thread after this worker started come with a task that
 * needs them (see `canonicalization-pool.ts`). Its other export, {@link dataIntegrityStep}, runs one Data Integrity
 * library step.
 */
import { parentPort, type MessagePort } from 'node:worker_threads'
import {
  runDataIntegrityStep,
  stepFailureOf,
  type DataIntegrityStep,
  type RequestSignature,
  type StepFailure,
} from '../data-integrity/steps.js'
import { dataIntegrityLibraries } from '../data-integrity/libraries.js'
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

/** A Data Integrity library step handed to a worker, with the port its signature is requested on (sign steps). */
export interface DataIntegrityTask {
  id: number
  step: DataIntegrityStep
  contexts: Array<[string, ContextDocument]>
  /**
   * Sign steps: posts the signature request (`{ data }`, the bytes to sign, or bbs-2023's `{ header, messages }`),
   * receives `{ signature }` or `{ refused: true }`.
   */
  port?: MessagePort
}

/** What a worker answers for a {@link DataIntegrityTask}: the step's output, or its failure as data. */
export type DataIntegrityAnswer = { ok: true; output: unknown; failure?: StepFailure } | { ok: false; failure: StepFailure }

/**
 * Runs one Data Integrity library step (piscina calls this export by name), canonicalizing in this thread; a signature
 * is asked of the main thread over the task's port. The worker holds no key and resolves nothing.
 */
export async function dataIntegrityStep(task: DataIntegrityTask): Promise<DataIntegrityAnswer> {
  // Loading the libraries (once per worker) is the worker's start, not the step's cost: the deadline counts after it.
  await dataIntegrityLibraries().catch(() => undefined)
  parentPort?.postMessage({ started: task.id } satisfies TaskStarted)
  for (const [url, document] of task.contexts) registerContext(url, document)
  try {
    const output = await runDataIntegrityStep(task.step, task.port && signatureOver(task.port))
    if (task.step.kind === 'verify') {
      const { verified, error } = output as { verified: boolean; error?: unknown }
      return verified ? { ok: true, output: { verified } } : { ok: true, output: { verified }, failure: stepFailureOf(error) }
    }
    return { ok: true, output }
  } catch (error) {
    return { ok: false, failure: stepFailureOf(error) }
  } finally {
    task.port?.close()
  }
}

/** Asks the main thread over `port` for a signature, once per request. */
function signatureOver(port: MessagePort): RequestSignature {
  return (request) =>
    new Promise((resolve, reject) => {
      port.once('message', (answer: { signature?: Uint8Array }) =>
        answer.signature instanceof Uint8Array ? resolve(answer.signature) : reject(new Error('the key port did not sign')),
      )
      port.postMessage(request)
    })
}

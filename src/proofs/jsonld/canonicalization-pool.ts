/**
 * The service's JSON-LD canonicalization, off the event loop: a pool of worker threads
 * (piscina) running `canonize-worker.ts`, each task with a deadline, each tenant with a cap
 * on its tasks at once ({@link FairScheduler}). Canonical hashes stay cached in this thread
 * (`canonical-hasher.ts`), so a cache hit never reaches the pool.
 *
 * Small inputs (every input of a unit at most `inlineMaxNodes` values) are canonicalized in
 * this thread, then the event loop is let go once: a handoff to a worker costs more than their
 * whole canonicalization (about 0.2 ms for a typical credential and its proof options), and the
 * costliest shape that small takes a few milliseconds.
 *
 * Contexts: bundled ones are known to every worker; those registered in this thread
 * (`registerContext`, the service's `contexts`) are sent to a worker when a task meets one it
 * does not know: the task's inputs that failed so are run once more, with every registered
 * context. Nothing is ever fetched.
 *
 * Data Integrity library steps (`data-integrity/steps.ts`: a proof's creation, an ecdsa-sd-2023 derivation, a proof's
 * verification) run here too, each step one task of the same workers, tenants' caps and deadline
 * ({@link CanonicalizationPool.hasherFor}'s `runDataIntegrity`): ecdsa-sd-2023 steps always (their cost grows with every
 * claim: a signature per statement), the others (JCS, P-384) under the `inlineMaxNodes` rule above. A signing step asks
 * this thread for its one signature over a `MessagePort` handed with the task; the key port signs here, so no private
 * key ever enters a worker, and the wait for the key port counts against the step's deadline.
 *
 * The workers start with the first task (a service that never processes JSON-LD starts none),
 * stay while the pool is open (unreferenced while idle: they never keep a process alive) and
 * stop at {@link CanonicalizationPool.close}.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { setImmediate as turnOfTheEventLoop } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Piscina } from 'piscina'
import { MessageChannel, type Transferable } from 'node:worker_threads'
import {
  errorOfStepFailure,
  runDataIntegrityStep,
  signatureRequestOf,
  type DataIntegrityStep,
  type RequestSignature,
  type StepOutput,
} from '../data-integrity/steps.js'
import { measureJsonLd, type JsonLdLimits } from './bounds.js'
import { canonicalHasher, computeInThread, type CanonicalHasher, type CanonicalInput } from './canonical-hasher.js'
import type { CanonicalOutcome } from './canonize.js'
import type { CanonicalizeTask, DataIntegrityAnswer, DataIntegrityTask, TaskStarted } from './canonize-worker.js'
import { getContext, registeredContexts } from './contexts.js'
import { JsonLdDeadlineError } from './errors.js'
import { FairScheduler } from './fair-scheduler.js'

/** How the service runs JSON-LD canonicalization. */
export interface JsonLdWorkerOptions {
  /** Worker threads. Default: the machine's parallelism less one for the event loop, at least 2. */
  threads?: number
  /** Most tasks of one tenant running at once; its others wait in its own queue. Default: half the threads, at least 1. */
  perTenant?: number
  /**
   * Longest one task (a document and its proofs' options, or one Data Integrity library step) may
   * run in its worker, ms. Then the worker is stopped and the request's JSON-LD work fails alone:
   * 422 when signing or deriving, `verified: false` (check `deadline`) when verifying. Default 5,000.
   */
  deadlineMs?: number
  /**
   * Inputs of at most this many values (a typical credential has 15 to 60) are canonicalized
   * in the calling thread, which is faster than a handoff to a worker; 0 sends everything to
   * the workers. Default 64.
   */
  inlineMaxNodes?: number
}

/** What the pool is doing (for operators' metrics, and tests). */
export interface JsonLdPoolStats extends Required<JsonLdWorkerOptions> {
  /** Tasks running in the workers now. */
  running: number
  /** Tasks waiting for a worker, or for their tenant to be under its cap. */
  waiting: number
  /** The most tasks of one tenant that ever ran at once (never above `perTenant`). */
  peakRunningPerTenant: number
  /** The pool was closed with the service: it runs no more work (a readiness check fails on it). */
  closed: boolean
  /** Units of work the pool finished (answered, failed or stopped at the deadline). */
  completed: number
  /** Tasks stopped at the deadline. */
  timedOut: number
  /** Units of work small enough to be canonicalized (or Data Integrity steps small enough to run) in the calling thread. */
  inline: number
  /** Data Integrity library steps the workers ran (each also counts in `completed`). */
  dataIntegritySteps: number
}

const DEFAULT_DEADLINE_MS = 5_000
const DEFAULT_INLINE_MAX_NODES = 64
const MAX_THREADS = 64
const MAX_DEADLINE_MS = 600_000
/** The highest `inlineMaxNodes`: the costliest shapes of this size took about 5 ms here; larger belong in a worker. */
const MAX_INLINE_NODES = 256

/** `options` with the defaults filled in. @throws {TypeError} naming the first option out of range */
function jsonLdWorkerOptionsOf(options: JsonLdWorkerOptions = {}): Required<JsonLdWorkerOptions> {
  const threads = options.threads ?? Math.max(2, availableParallelism() - 1)
  const checked = (name: keyof JsonLdWorkerOptions, value: number, min: number, max: number) => {
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new TypeError(`jsonldWorkers.${name} must be an integer from ${min} to ${max}, got ${String(value)}`)
    }
    return value
  }
  return {
    threads: checked('threads', threads, 1, MAX_THREADS),
    perTenant: checked('perTenant', options.perTenant ?? Math.max(1, Math.floor(threads / 2)), 1, threads),
    deadlineMs: checked('deadlineMs', options.deadlineMs ?? DEFAULT_DEADLINE_MS, 1, MAX_DEADLINE_MS),
    inlineMaxNodes: checked('inlineMaxNodes', options.inlineMaxNodes ?? DEFAULT_INLINE_MAX_NODES, 0, MAX_INLINE_NODES),
  }
}

/**
 * The worker module beside this one: the built `.js` (the package), else the `.ts` source run
 * through tsx (tests and benchmarks run the sources).
 */
function workerModule(): { filename: string; execArgv: string[] } {
  const built = new URL('./canonize-worker.js', import.meta.url)
  if (existsSync(fileURLToPath(built))) return { filename: built.href, execArgv: [] }
  const source = new URL('./canonize-worker.ts', import.meta.url)
  if (!existsSync(fileURLToPath(source))) throw new Error(`didvault: the JSON-LD worker module is missing beside ${import.meta.url}`)
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  return { filename: source.href, execArgv: ['--import', tsx] }
}

export class CanonicalizationPool {
  readonly #options: Required<JsonLdWorkerOptions>
  readonly #onError: (error: unknown) => void
  readonly #scheduler: FairScheduler
  #piscina?: Piscina<CanonicalizeTask | DataIntegrityTask, unknown>
  #closed = false
  #completed = 0
  #timedOut = 0
  #inline = 0
  #dataIntegritySteps = 0
  #lastTaskId = 0
  /** Arms the deadline of each task handed to a worker, once the worker says it has started it. */
  readonly #arming = new Map<number, () => void>()

  /**
   * @param onError - receives a worker's failure outside any task (tasks' own failures reject
   *   their promises); the worker is replaced
   */
  constructor(options: JsonLdWorkerOptions = {}, onError: (error: unknown) => void = () => undefined) {
    this.#options = jsonLdWorkerOptionsOf(options)
    this.#onError = onError
    this.#scheduler = new FairScheduler(this.#options.threads, this.#options.perTenant)
  }

  /**
   * A hasher for `tenantId`'s work: inputs checked against `limits`; misses computed in the
   * calling thread when small, else in the pool under the tenant's cap.
   */
  hasherFor(tenantId: string, limits: JsonLdLimits): CanonicalHasher {
    const small = (inputs: readonly CanonicalInput[]) => inputs.every((input) => input.nodes <= this.#options.inlineMaxNodes)
    return canonicalHasher(
      limits,
      (inputs) => (small(inputs) ? this.#inThread(inputs) : this.#compute(tenantId, inputs)),
      (step, requestSignature) => this.#runStep(tenantId, limits, step, requestSignature),
    )
  }

  stats(): JsonLdPoolStats {
    const { running, waiting, peakRunningPerKey } = this.#scheduler.stats()
    const work = {
      completed: this.#completed,
      timedOut: this.#timedOut,
      inline: this.#inline,
      dataIntegritySteps: this.#dataIntegritySteps,
    }
    return { ...this.#options, running, waiting, peakRunningPerTenant: peakRunningPerKey, closed: this.#closed, ...work }
  }

  /** Stops the workers; tasks still running fail. */
  async close(): Promise<void> {
    this.#closed = true
    await this.#piscina?.destroy()
  }

  /** Small inputs, in this thread; then other work gets its turn (a batch of them never holds the event loop). */
  async #inThread(inputs: readonly CanonicalInput[]): Promise<CanonicalOutcome[]> {
    this.#inline++
    const outcomes = await computeInThread(inputs)
    await turnOfTheEventLoop()
    return outcomes
  }

  /** One unit of work in the pool, under the tenant's cap. */
  async #compute(tenantId: string, inputs: readonly CanonicalInput[]): Promise<CanonicalOutcome[]> {
    const jsons = inputs.map((input) => input.json)
    try {
      const outcomes = await this.#scheduler.run(tenantId, () => this.#canonicalize(jsons, []))
      // Inputs that met a context this thread knows but the worker did not: once more, with the registered contexts.
      const knownHere = (o: CanonicalOutcome) => !(o instanceof Uint8Array) && 'unknownContext' in o && getContext(o.unknownContext)
      const again = outcomes.flatMap((outcome, i) => (knownHere(outcome) ? [i] : []))
      if (again.length === 0) return outcomes
      const retried = await this.#scheduler.run(tenantId, () =>
        this.#canonicalize(
          again.map((i) => jsons[i]),
          registeredContexts(),
        ),
      )
      again.forEach((at, i) => (outcomes[at] = retried[i]))
      return outcomes
    } finally {
      this.#completed++
    }
  }

  /**
   * One Data Integrity step: in this thread when the step allows it and its document is small, else in a worker under
   * the tenant's cap (once more with the registered contexts when it met one the worker did not know).
   */
  async #runStep<S extends DataIntegrityStep>(
    tenantId: string,
    limits: JsonLdLimits,
    step: S,
    requestSignature?: RequestSignature,
  ): Promise<StepOutput<S>> {
    const nodes = measureJsonLd(step.document, limits)
    if (step.inlineable && typeof nodes === 'number' && nodes <= this.#options.inlineMaxNodes) {
      this.#inline++
      const output = await runDataIntegrityStep(step, requestSignature)
      await turnOfTheEventLoop()
      return output
    }
    try {
      let answer = await this.#scheduler.run(tenantId, () => this.#stepTask(step, [], requestSignature))
      const failure = answer.failure
      const unknown = failure !== undefined && 'identity' in failure ? failure.identity.unknownContext : undefined
      if (unknown !== undefined && getContext(unknown) !== undefined) {
        answer = await this.#scheduler.run(tenantId, () => this.#stepTask(step, registeredContexts(), requestSignature))
      }
      if (!answer.ok) throw errorOfStepFailure(answer.failure)
      if (step.kind !== 'verify' || answer.failure === undefined) return answer.output as StepOutput<S>
      return { verified: false, error: errorOfStepFailure(answer.failure) } as StepOutput<S>
    } finally {
      this.#completed++
      this.#dataIntegritySteps++
    }
  }

  /** A step in a worker; a signing step's signature request is answered here, by `requestSignature`, once. */
  async #stepTask(
    step: DataIntegrityStep,
    contexts: DataIntegrityTask['contexts'],
    requestSignature?: RequestSignature,
  ): Promise<DataIntegrityAnswer> {
    if (step.kind !== 'sign' || requestSignature === undefined) {
      return (await this.#task('dataIntegrityStep', (id) => ({ id, step, contexts }))) as DataIntegrityAnswer
    }
    const { port1: here, port2: there } = new MessageChannel()
    let asked = false
    here.on('message', (message: unknown) => {
      const request = signatureRequestOf(message, step)
      if (asked || request === undefined) return here.postMessage({ refused: true })
      asked = true
      requestSignature(request).then(
        (signature) => here.postMessage({ signature }),
        () => here.postMessage({ refused: true }),
      )
    })
    try {
      return (await this.#task('dataIntegrityStep', (id) => ({ id, step, contexts, port: there }), [there])) as DataIntegrityAnswer
    } finally {
      here.close()
    }
  }

  async #canonicalize(jsons: string[], contexts: CanonicalizeTask['contexts']): Promise<CanonicalOutcome[]> {
    return (await this.#task('default', (id) => ({ id, jsons, contexts }))) as CanonicalOutcome[]
  }

  /**
   * One task in a worker (its module's export `name`), given up at the deadline. The deadline counts from the moment the
   * worker starts the task: waiting for a worker (one starting up, or replacing one stopped at
   * a deadline) is not the task's cost. The scheduler hands over no more tasks than threads.
   */
  async #task(
    name: 'default' | 'dataIntegrityStep',
    taskOf: (id: number) => CanonicalizeTask | DataIntegrityTask,
    transferList?: Transferable[],
  ): Promise<unknown> {
    const id = ++this.#lastTaskId
    const deadline = new AbortController()
    let timer: NodeJS.Timeout | undefined
    this.#arming.set(id, () => {
      timer = setTimeout(() => deadline.abort(), this.#options.deadlineMs).unref()
    })
    try {
      return await this.#pool().run(taskOf(id), { name, signal: deadline.signal, ...(transferList && { transferList }) })
    } catch (err) {
      if (!deadline.signal.aborted) throw err
      this.#timedOut++
      throw new JsonLdDeadlineError(this.#options.deadlineMs)
    } finally {
      this.#arming.delete(id)
      clearTimeout(timer)
    }
  }

  #pool(): Piscina<CanonicalizeTask | DataIntegrityTask, unknown> {
    if (this.#closed) throw new Error('didvault: the service is closed (its JSON-LD workers are stopped)')
    if (this.#piscina === undefined) {
      const { filename, execArgv } = workerModule()
      const { threads } = this.#options
      const pool = new Piscina<CanonicalizeTask | DataIntegrityTask, unknown>({
        filename,
        execArgv,
        minThreads: threads,
        maxThreads: threads,
        idleTimeout: Infinity,
        concurrentTasksPerWorker: 1,
      })
      pool.on('message', (message: TaskStarted) => {
        const arm = this.#arming.get(message.started)
        this.#arming.delete(message.started)
        arm?.()
      })
      pool.on('error', this.#onError)
      this.#piscina = pool
    }
    return this.#piscina
  }
}

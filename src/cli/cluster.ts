/**
 * `didvault serve --workers <n>`: n processes serving one port (`node:cluster`). The primary
 * serves no request: it opens the storage once (migrations, the master key file, the keys of
 * `DIDVAULT_API_KEYS`), forks the workers, prints the first API key once all of them listen,
 * replaces a worker that dies (with a growing delay, and gives up on a crash loop), and on
 * SIGTERM/SIGINT — in whatever state its workers are: starting, serving, being replaced —
 * signals every worker to drain (`drain.ts`), kills those still running at the drain deadline,
 * then exits (docs/operations.md *Stopping*).
 */
import cluster, { type Worker } from 'node:cluster'
import { availableParallelism } from 'node:os'
import { DEFAULT_DRAIN_MS } from '../config/schema.js'
import { registerContextFiles } from './context-files.js'
import { printFirstKey, serve, serveMetricsPort, startWait, STOP_NOW_MESSAGE, type ServeOptions } from './serve.js'
import { envApiKeys, registerEnvApiKeys } from './env-api-keys.js'
import { createLogger, lifecycleLogger, type Logger } from '../observability/logger.js'
import { primaryMetrics } from '../observability/metrics-route.js'
import { openService, storageTargetOf, type StartWait } from './storage-target.js'
import { hsmServiceOf } from './hsm.js'
import { UsageError } from './usage.js'
import { applyDeclaredIssuers, oid4vciModuleOf } from './oid4vci.js'
import { oid4vpModuleOf } from './oid4vp.js'

/** Crashes within {@link CRASH_WINDOW_MS} beyond which the primary stops rather than fork again: this many per worker. */
const CRASHES_PER_WORKER = 5
const CRASH_WINDOW_MS = 60_000
/** The delay before the first replacement; it doubles with each crash in the window, up to {@link MAX_RESTART_DELAY_MS}. */
const FIRST_RESTART_DELAY_MS = 100
const MAX_RESTART_DELAY_MS = 10_000
/** How long past the drain deadline a worker may take to exit (its own deadline cut its connections) before the primary kills it. */
const KILL_AFTER_DEADLINE_MS = 1_000

/**
 * When to replace a worker that died, and when to stop instead: the delay doubles with each exit
 * within the last minute (100 ms, 200 ms, … up to 10 s), and more than 5 exits per worker within
 * a minute is a crash loop — the primary stops rather than fork forever.
 */
export class RestartPolicy {
  readonly #limit: number
  /** When recent exits happened (within {@link CRASH_WINDOW_MS}). */
  #exits: number[] = []

  constructor(workers: number) {
    this.#limit = CRASHES_PER_WORKER * workers
  }

  /** Records an exit at `now` (ms): the delay before its replacement, or `stop` with the exits that made it a loop. */
  exited(now: number): { delayMs: number } | { stop: number } {
    this.#exits = [...this.#exits.filter((at) => now - at < CRASH_WINDOW_MS), now]
    const exits = this.#exits.length
    if (exits > this.#limit) return { stop: exits }
    return { delayMs: Math.min(FIRST_RESTART_DELAY_MS * 2 ** (exits - 1), MAX_RESTART_DELAY_MS) }
  }
}

/**
 * JSON-LD threads per worker: the cores shared out so that workers × threads ≤ cores, at least
 * one each (a single process keeps the pool's own default, cores − 1 and at least 2).
 */
export const jsonldThreadsPerWorker = (workers: number, cores = availableParallelism()) => Math.max(1, Math.floor(cores / workers))

/** Runs this process as the primary of `options.workers` workers, or as one of them when forked by it. */
export async function serveCluster(options: ServeOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const workers = options.workers ?? 1
  if (cluster.isWorker) return serve(options, env, { kind: 'worker', jsonldThreads: jsonldThreadsPerWorker(workers) })
  const logger = await createLogger(options.log)
  const lifecycle = lifecycleLogger(logger)
  const supervisor = new Supervisor(workers, options.shutdown?.drainMs ?? DEFAULT_DRAIN_MS, logger, lifecycle)
  // Signals are heard from the start: before any worker is forked a stop exits at once; after, it reaches every worker.
  process.on('SIGTERM', () => supervisor.stop('SIGTERM'))
  process.on('SIGINT', () => supervisor.stop('SIGINT'))
  const wait = startWait(options, { kind: 'alone' }, logger)
  await prepareStorage(options, workers, env, logger, wait)
  // Before the workers start: their scrapes ask the primary for the cluster-wide aggregate.
  const metrics = options.metrics?.enabled === false ? undefined : primaryMetrics()
  const address = await supervisor.start()
  if (metrics && options.metrics?.port !== undefined) await serveMetricsPort(metrics, options.host, options.metrics.port, logger)
  // Only once every worker listens: a start that fails must not have made (and lost) the first key.
  if (envApiKeys(env).length === 0) {
    const target = storageTargetOf(options.storage, options.storageSettings)
    const { hsm, keys } = await hsmServiceOf(options.hsm, target, env, options.previousMasterKeyFiles)
    const { service } = await openService(target, env, {
      previousKeyFiles: options.previousMasterKeyFiles,
      start: wait,
      ...(hsm && { hsm }),
      ...(keys && { keys }),
    })
    try {
      await printFirstKey(service)
    } finally {
      await service.close()
    }
  }
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  const url = `http://${host}:${address.port}`
  lifecycle.info({ url, workers }, `didvault listening on ${url} (${workers} workers)`)
}

/**
 * What the workers must find done, done once: the contexts checked, the storage opened (its
 * migrations run, a SQLite master key file made) and shared by processes, the environment's keys registered, the
 * issuers the config file declares (`oid4vci.issuers`) applied.
 */
async function prepareStorage(
  options: ServeOptions,
  workers: number,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  wait: StartWait,
): Promise<void> {
  const target = storageTargetOf(options.storage, options.storageSettings)
  await registerContextFiles(options.contexts ?? [])
  if (target.kind === 'memory') {
    throw new UsageError(
      `--workers ${workers} needs a storage the processes share; memory storage lives inside one process ` +
        '(use --workers 1, or sqlite:<path> or a database)',
    )
  }
  const issuer =
    options.oid4vci && options.oid4vci.enabled !== false ? await oid4vciModuleOf(options.oid4vci, options.publicUrl) : undefined
  // Checked by the primary too: a worker would fail the same way.
  const verifier = options.oid4vp && options.oid4vp.enabled !== false ? await oid4vpModuleOf(options.oid4vp, options.publicUrl) : undefined
  // Checked by the primary too, before the storage is opened; with `hsm.masterKey` the master key is the token's.
  const { hsm, keys } = await hsmServiceOf(options.hsm, target, env, options.previousMasterKeyFiles)
  const { service, storage } = await openService(target, env, {
    previousKeyFiles: options.previousMasterKeyFiles,
    start: wait,
    ...(hsm && { hsm }),
    ...(keys && { keys }),
    ...(issuer && { oid4vci: issuer, publicUrl: options.publicUrl }),
    ...(verifier && { oid4vp: verifier, publicUrl: options.publicUrl }),
  })
  try {
    if (!storage.capabilities.multiProcess) {
      throw new UsageError(
        `--workers ${workers} needs a storage several processes may share, and this one does not declare it ` +
          '(capabilities.multiProcess; a standalone MongoDB server has it only as a replica set): use --workers 1',
      )
    }
    await registerEnvApiKeys(service.apiKeys!, env, logger)
    if (issuer) await applyDeclaredIssuers(service, options.oid4vci?.issuers)
  } finally {
    await service.close()
  }
}

/**
 * Forks, replaces and stops the workers. A stop signals (SIGTERM) every worker alive, whatever its
 * state — a signal is never lost, unlike a message sent before the worker listens for it: one
 * still starting exits at once, one serving drains —, cancels the replacements not forked yet,
 * and kills (SIGKILL) the workers still running {@link KILL_AFTER_DEADLINE_MS} after the drain deadline.
 */
class Supervisor {
  readonly #size: number
  readonly #drainMs: number
  readonly #restarts: RestartPolicy
  readonly #logger: Logger
  readonly #lifecycle: Logger
  /** Replacements waiting for their delay. */
  readonly #replacements = new Set<NodeJS.Timeout>()
  /** Until every first worker listens: an exit then fails the start. */
  #starting = false
  #stopping = false

  constructor(size: number, drainMs: number, logger: Logger, lifecycle: Logger) {
    this.#size = size
    this.#drainMs = drainMs
    this.#restarts = new RestartPolicy(size)
    this.#logger = logger
    this.#lifecycle = lifecycle
  }

  /**
   * Forks every worker; resolves with the port's address once all listen, rejects when one exits
   * before. A stop meanwhile leaves it pending: the process exits once the workers are gone.
   */
  start(): Promise<{ port: number }> {
    return new Promise((resolve, reject) => {
      let listening = 0
      const onListening = (_worker: Worker, address: { port: number }) => {
        if (++listening < this.#size || this.#stopping) return
        cluster.off('listening', onListening)
        this.#starting = false
        resolve({ port: address.port })
      }
      cluster.on('listening', onListening)
      cluster.on('exit', (worker, code, signal) => {
        if (this.#starting && !this.#stopping) {
          cluster.off('listening', onListening)
          for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGKILL')
          reject(new Error(`worker ${worker.process.pid} exited before listening (${outcome(code, signal)})`))
          return
        }
        this.#exited(worker, code, signal)
      })
      this.#starting = true
      for (let i = 0; i < this.#size; i++) cluster.fork()
    })
  }

  #exited(worker: Worker, code: number | null, signal: string | null): void {
    if (this.#stopping) {
      // Killed by the stop's signal before it could handle it (still starting): stopped as asked.
      const stopped = code === 0 || signal === 'SIGTERM' || signal === 'SIGINT'
      if (!stopped) process.exitCode = 1
      if (this.#alive() === 0) process.exit()
      return
    }
    const next = this.#restarts.exited(Date.now())
    if ('stop' in next) {
      this.#logger.error(
        `didvault: worker ${worker.process.pid} exited (${outcome(code, signal)}); ${next.stop} worker exits within a minute, stopping`,
      )
      process.exitCode = 1
      this.stop('too many worker exits')
      return
    }
    const delay = next.delayMs
    this.#logger.error(`didvault: worker ${worker.process.pid} exited (${outcome(code, signal)}); starting a replacement in ${delay} ms`)
    const replacement = setTimeout(() => {
      this.#replacements.delete(replacement)
      cluster.fork()
    }, delay)
    this.#replacements.add(replacement)
  }

  /** First call: every worker drains, within the deadline; a second signal cuts their connections. */
  stop(reason: string): void {
    if (this.#stopping) {
      this.#lifecycle.info(`didvault: ${reason} again, closing all connections`)
      for (const worker of this.#living()) if (worker.isConnected()) worker.send(STOP_NOW_MESSAGE)
      return
    }
    this.#stopping = true
    for (const replacement of this.#replacements) clearTimeout(replacement)
    this.#replacements.clear()
    const living = this.#living()
    if (living.length === 0) {
      this.#lifecycle.info(`didvault: ${reason}, no worker running, exiting`)
      process.exit()
    }
    const workers = `${living.length} worker${living.length === 1 ? '' : 's'}`
    this.#lifecycle.info(`didvault: ${reason}, stopping ${workers} (each finishes its in-flight requests)`)
    for (const worker of living) worker.process.kill('SIGTERM')
    setTimeout(() => this.#killLeft(), this.#drainMs + KILL_AFTER_DEADLINE_MS)
  }

  /** The workers still running past the deadline (stuck, stopped, not answering): killed, and the primary exits 1. */
  #killLeft(): void {
    process.exitCode = 1
    for (const worker of this.#living()) {
      this.#logger.error(`didvault: worker ${worker.process.pid} still running at the drain deadline (${this.#drainMs} ms): killed`)
      worker.process.kill('SIGKILL')
    }
    // Their exits end the process; should one not be reported, this does.
    setTimeout(() => process.exit(), KILL_AFTER_DEADLINE_MS)
  }

  #living(): Worker[] {
    return Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead())
  }

  #alive(): number {
    return this.#living().length
  }
}

const outcome = (code: number | null, signal: string | null) => (signal ? `signal ${signal}` : `code ${code}`)

/** `didvault serve`: the router on its own Express app, with storage and keys from flags and environment. */
import { once } from 'node:events'
import type { ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import type { IdentityService } from '../service/identity-service.js'
import { createRouter } from '../http/router.js'
import { answerClientErrors } from '../http/client-errors.js'
import type { ServiceSettings } from '../config/service-options.js'
import { registerContextFiles, type ContextFlag } from './context-files.js'
import { DEFAULT_START_TIMEOUT_MS, openService, storageTargetOf, type StartWait } from './storage-target.js'
import type { StorageFileSettings } from '../config/schema.js'
import { healthRouter, serviceReadiness } from '../observability/health.js'
import { createLogger, lifecycleLogger, type LogFormat, type Logger, type LogLevel } from '../observability/logger.js'
import { ServiceMetrics } from '../observability/metrics.js'
import { localMetrics, metricsRouter, workerMetrics, type MetricsSource } from '../observability/metrics-route.js'
import { requestLog } from '../observability/request-log.js'

export interface ServeOptions {
  host: string
  port: number
  /** `memory`, `sqlite:<path>` or `mongodb://host[:port]/db` (also `mongodb+srv://`). */
  storage: string
  /** The config file's `storage` settings besides the URL: `startTimeoutMs`, `preparedStatements`, `synchronous`. */
  storageSettings?: StorageFileSettings
  /** `--context` values (`<url>=<file.jsonld>`) or config file contexts: JSON-LD contexts registered before the service starts. */
  contexts?: readonly (string | ContextFlag)[]
  /** Origins whose browser pages may call the routes (CORS). Default: none. */
  corsOrigins?: string[]
  /** `--public-url`: the base of published status-list URLs. */
  publicUrl?: string
  /** Origins whose status lists Verify may fetch (`--status-list-origin`). Default: none. */
  statusListOrigins?: string[]
  /** Processes serving the port (`--workers`): 1 is this process alone, more run as a cluster (`cluster.ts`). */
  workers?: number
  /** `--log-level` (default `info`) and `--log-format` (`json`, default, or `pretty`): docs/operations.md *Logs*. */
  log?: { level?: LogLevel; format?: LogFormat }
  /**
   * `--metrics on|off` (default on: `GET /metrics` on the service's port) and `--metrics-port`
   * (served on that port of the same host instead; with workers, by the primary): docs/operations.md *Metrics*.
   */
  metrics?: { enabled?: boolean; port?: number }
  /** The config file's sections without a flag: `networks`, `resolvers`, `limits`, `tokens` (docs/operations.md#configuration). */
  settings?: ServiceSettings
}

/**
 * How this process serves: `alone` (the whole start: API keys from the environment, the first
 * key, the listening line), or `worker` of a cluster whose primary did those once; a worker
 * drains on the primary's word and runs `jsonldThreads` JSON-LD threads.
 */
export type ServeRole = { kind: 'alone' } | { kind: 'worker'; jsonldThreads: number }

/** What a cluster's primary tells its workers (over the IPC channel). */
export const STOP_MESSAGE = 'didvault:stop'
export const STOP_NOW_MESSAGE = 'didvault:stop-now'

/** Parses `DIDVAULT_API_KEYS` (`tenant:key,tenant:key`). */
export function parseApiKeys(value: string): Array<{ tenant: string; key: string }> {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf(':')
      if (at <= 0 || at === pair.length - 1) throw new Error('DIDVAULT_API_KEYS must look like tenant:key,tenant:key')
      return { tenant: pair.slice(0, at), key: pair.slice(at + 1) }
    })
}

/** The keys of `DIDVAULT_API_KEYS`, none when unset. */
export const envApiKeys = (env: NodeJS.ProcessEnv) => (env.DIDVAULT_API_KEYS ? parseApiKeys(env.DIDVAULT_API_KEYS) : [])

/** Serves until SIGTERM/SIGINT (or, as a worker, until the primary says so or goes away), then exits. */
export async function serve(
  options: ServeOptions,
  env: NodeJS.ProcessEnv = process.env,
  role: ServeRole = { kind: 'alone' },
): Promise<void> {
  const target = storageTargetOf(options.storage, options.storageSettings)
  const envKeys = role.kind === 'alone' ? envApiKeys(env) : []
  const logger = await createLogger(options.log)
  const lifecycle = lifecycleLogger(logger)
  // Before the storage is opened: a bad context file leaves nothing behind.
  await registerContextFiles(options.contexts ?? [])
  const jsonldThreads = role.kind === 'worker' ? role.jsonldThreads : undefined
  const { publicUrl, statusListOrigins, settings } = options
  let jsonldWaiting = () => 0
  const metrics = options.metrics?.enabled === false ? undefined : new ServiceMetrics(() => jsonldWaiting())
  const observe = { logger, metrics }
  const waiting = startWait(options, role, logger)
  const opened = await openService(target, env, {
    jsonldThreads,
    publicUrl,
    statusListOrigins,
    settings,
    observe,
    start: waiting.wait,
  }).catch((err: unknown) => {
    // A worker told to stop while it waited for its storage stops quietly.
    if (waiting.wait.signal?.aborted) process.exit(0)
    throw err
  })
  waiting.dispose()
  // Told to stop while its last attempt was opening the storage: the word was taken, so it is obeyed here.
  if (waiting.wait.signal?.aborted) await opened.service.close().finally(() => process.exit(0))
  const { service, storage } = opened
  jsonldWaiting = () => service.jsonldStats().waiting
  if (target.kind === 'mongodb' && !storage.capabilities.multiProcess) {
    logger.warn(
      'didvault: this MongoDB is a standalone server (no replica set): transactions run in the fallback mode, atomic ' +
        'within this process only; run one didvault process per database, or use a replica set',
    )
  }
  for (const { tenant, key } of envKeys) await service.apiKeys!.add(tenant, key)

  let stopping = false
  const app = express()
  app.disable('x-powered-by')
  // Responses not yet sent when stopping close their connection, so keep-alive clients cannot hold the process open.
  const pending = new Set<ServerResponse>()
  app.use((_req, res, next) => {
    if (stopping) res.shouldKeepAlive = false
    pending.add(res)
    res.on('close', () => pending.delete(res))
    next()
  })
  app.use(
    healthRouter(
      serviceReadiness(service, storage, () => stopping),
      logger,
    ),
  )
  const scrape = metrics && metricsSourceOf(metrics, role)
  if (scrape && options.metrics?.port === undefined) app.use(metricsRouter(scrape))
  app.use(requestLog(logger, metrics))
  const corsOrigins = options.corsOrigins ?? []
  const bodyLimit = settings?.limits?.body
  app.use(
    createRouter(service, {
      ...(corsOrigins.length > 0 && { cors: { origins: corsOrigins } }),
      ...(bodyLimit !== undefined && { bodyLimit }),
    }),
  )
  app.use((_req, res) => {
    res.status(404).json({ statusCode: 404, errorType: 'NOT_FOUND', errorMessage: 'no such route' })
  })
  const server = app.listen(options.port, options.host)
  answerClientErrors(server)
  // With workers, the primary serves --metrics-port.
  const metricsPort = role.kind === 'alone' && scrape ? options.metrics?.port : undefined
  try {
    await once(server, 'listening')
    if (metricsPort !== undefined) await serveMetricsPort(scrape!, options.host, metricsPort, logger)
  } catch (err) {
    await service.close()
    throw err
  }
  const stop = (signal: string) => {
    if (stopping) {
      // A worker gets a signal both from its primary and, often, from the terminal or service manager: only the primary escalates.
      if (role.kind === 'worker') return
      lifecycle.info(`didvault: ${signal} again, closing all connections`)
      server.closeAllConnections()
      return
    }
    stopping = true
    lifecycle.info(`didvault${role.kind === 'worker' ? ` worker ${process.pid}` : ''}: ${signal}, finishing in-flight requests`)
    for (const res of pending) if (!res.headersSent) res.shouldKeepAlive = false
    // In-flight requests get a grace period, then their connections are cut.
    const deadline = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS)
    deadline.unref()
    server.close(() => {
      clearTimeout(deadline)
      service.close().then(
        () => process.exit(0),
        () => process.exit(1),
      )
    })
    server.closeIdleConnections()
  }
  // Handlers are in place before the listening line: a supervisor may signal as soon as it reads it.
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
  if (role.kind === 'worker') {
    process.on('message', (message) => {
      if (message === STOP_MESSAGE) stop('stop from the primary')
      if (message === STOP_NOW_MESSAGE) server.closeAllConnections()
    })
    // The primary is gone (killed): nothing would stop or replace this worker any more.
    process.on('disconnect', () => stop('primary gone'))
    lifecycle.info(`didvault worker ${process.pid} listening`)
    return
  }
  const { port } = server.address() as AddressInfo
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  // Only once bound: a start that fails to bind its port must not have made (and lost) the first key.
  if (envKeys.length === 0) await printFirstKey(service)
  const url = `http://${host}:${port}`
  lifecycle.info({ url }, `didvault listening on ${url}`)
}

/**
 * How this process waits for its storage at start: alone (or as a primary) for `storage.startTimeoutMs`; as a worker
 * of a running cluster as long as it takes, until its primary says stop or goes away — a worker that exited would
 * count toward the primary's crash loop, and the primary has already opened the storage once.
 */
export function startWait(options: ServeOptions, role: ServeRole, logger: Logger): { wait: StartWait; dispose(): void } {
  const log = (message: string) => logger.warn(message)
  if (role.kind !== 'worker') {
    return { wait: { timeoutMs: options.storageSettings?.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS, log }, dispose: () => undefined }
  }
  const stopped = new AbortController()
  const onMessage = (message: unknown) => {
    if (message === STOP_MESSAGE || message === STOP_NOW_MESSAGE) stopped.abort()
  }
  const onDisconnect = () => stopped.abort()
  process.on('message', onMessage)
  process.on('disconnect', onDisconnect)
  return {
    wait: { timeoutMs: Infinity, log, signal: stopped.signal },
    dispose() {
      process.off('message', onMessage)
      process.off('disconnect', onDisconnect)
    },
  }
}

/** Where this process's `GET /metrics` reads: its own registry, or as a worker the cluster's (asked of the primary). */
const metricsSourceOf = (metrics: ServiceMetrics, role: ServeRole): MetricsSource =>
  role.kind === 'worker' ? workerMetrics(metrics.registry) : localMetrics(metrics.registry)

/** Serves `GET /metrics` alone on `host:port` (`--metrics-port`); resolves once listening. */
export async function serveMetricsPort(source: MetricsSource, host: string, port: number, logger: Logger): Promise<void> {
  const app = express()
  app.disable('x-powered-by')
  app.use(metricsRouter(source))
  const server = app.listen(port, host)
  await once(server, 'listening')
  server.unref()
  const shown = host.includes(':') ? `[${host}]` : host
  lifecycleLogger(logger).info(`didvault metrics on http://${shown}:${(server.address() as AddressInfo).port}/metrics`)
}

/** On a database without API keys, creates one for tenant "default" and prints it once: plain stdout, never a log record. */
export async function printFirstKey(service: IdentityService): Promise<void> {
  const apiKeys = service.apiKeys!
  if (await apiKeys.hasKeys()) return
  const created = await apiKeys.create('default', { label: 'first start' })
  console.log(
    `didvault: created an API key for tenant "default" (shown once, stored only as a keyed hash; manage keys with ` +
      `didvault keys): ${created.key}`,
  )
}

/** How long in-flight requests may run after SIGTERM/SIGINT. */
const SHUTDOWN_GRACE_MS = 10_000

/** `didvault serve`: the router on its own Express app, with storage and keys from flags and environment. */
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import express from 'express'
import type { IdentityService } from '../service/identity-service.js'
import { createRouter, createWellKnownRouter } from '../http/router.js'
import { answerClientErrors } from '../http/client-errors.js'
import type { ServiceSettings } from '../config/service-options.js'
import { registerContextFiles, type ContextFlag } from './context-files.js'
import { DEFAULT_START_TIMEOUT_MS, openService, storageTargetOf, type StartWait } from './storage-target.js'
import type { HsmSettings, Oid4vciSettings, Oid4vpSettings, StorageFileSettings } from '../config/schema.js'
import { applyDeclaredIssuers, oid4vciModuleOf } from './oid4vci.js'
import { oid4vpModuleOf } from './oid4vp.js'
import { hsmServiceOf } from './hsm.js'
import { healthRouter, serviceReadiness } from '../observability/health.js'
import { createLogger, lifecycleLogger, type LogFormat, type Logger, type LogLevel } from '../observability/logger.js'
import { ServiceMetrics } from '../observability/metrics.js'
import { localMetrics, metricsRouter, workerMetrics, type MetricsSource } from '../observability/metrics-route.js'
import { requestLog } from '../observability/request-log.js'
import { DEFAULT_DRAIN_MS } from '../config/schema.js'
import { Drain } from './drain.js'
import { envApiKeys, registerEnvApiKeys } from './env-api-keys.js'
import { consoleDir, consoleRouter } from './console-route.js'

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
  /** `--console` (config `console`): serve the web console at `/console` (docs/console.md). Default: off. */
  console?: boolean
  /** `--public-url`: the base of published status-list URLs. */
  publicUrl?: string
  /** Origins whose status lists Verify may fetch (`--status-list-origin`). Default: none. */
  statusListOrigins?: string[]
  /** Origins whose did:web documents the service may fetch (`--did-web-origin`). Default: none. */
  didWebOrigins?: string[]
  /** Processes serving the port (`--workers`): 1 is this process alone, more run as a cluster (`cluster.ts`). */
  workers?: number
  /** `--log-level` (default `info`) and `--log-format` (`json`, default, or `pretty`): docs/operations.md *Logs*. */
  log?: { level?: LogLevel; format?: LogFormat }
  /**
   * `--metrics on|off` (default on: `GET /metrics` on the service's port) and `--metrics-port`
   * (served on that port of the same host instead; with workers, by the primary): docs/operations.md *Metrics*.
   */
  metrics?: { enabled?: boolean; port?: number }
  /** `--drain-ms`: how long in-flight requests may take after SIGTERM/SIGINT (default 10 s): docs/operations.md *Stopping*. */
  shutdown?: { drainMs?: number }
  /** The config file's sections without a flag: `networks`, `resolvers`, `limits`, `tokens` (docs/operations.md#configuration). */
  settings?: ServiceSettings
  /**
   * `--previous-master-key-file` (or config `previousMasterKeyFiles`): files of earlier master keys
   * (docs/operations.md *Master-key rotation*).
   */
  previousMasterKeyFiles?: readonly string[]
  /**
   * The OID4VCI issuer (config section `oid4vci`, `--oid4vci on`; absent or `enabled: false`: off): needs `publicUrl`
   * and the optional peers of `didvault/oid4vc`; the issuers declared are applied at start (docs/oid4vci.md).
   */
  oid4vci?: Oid4vciSettings
  /** The OID4VP verifier (config section `oid4vp`, `--oid4vp on`): needs `publicUrl` and the optional peers (docs/oid4vp.md). */
  oid4vp?: Oid4vpSettings
  /**
   * The HSM (config section `hsm`, `--hsm-module`, `--hsm-token-label`, `--hsm-pin-file`; the PIN from the pin file or
   * `DIDVAULT_HSM_PIN`): needs the optional peer pkcs11js (docs/operations.md *HSM*). `masterKey: true` (with
   * `masterKeyLabel`) keeps the master key in the token (docs/keys.md *The master key in an HSM*).
   */
  hsm?: Partial<HsmSettings>
}

/**
 * How this process serves: `alone` (the whole start: API keys from the environment, the first
 * key, the listening line), or `worker` of a cluster whose primary did those once; a worker
 * drains on the primary's SIGTERM, cuts its connections on the primary's {@link STOP_NOW_MESSAGE},
 * and runs `jsonldThreads` JSON-LD threads.
 */
export type ServeRole = { kind: 'alone' } | { kind: 'worker'; jsonldThreads: number }

/** What a cluster's primary tells its workers (over the IPC channel) on a second signal: cut every connection now. */
export const STOP_NOW_MESSAGE = 'didvault:stop-now'

/** Serves until SIGTERM/SIGINT (a worker: its primary's SIGTERM), drains (`drain.ts`), then exits. */
export async function serve(
  options: ServeOptions,
  env: NodeJS.ProcessEnv = process.env,
  role: ServeRole = { kind: 'alone' },
): Promise<void> {
  const target = storageTargetOf(options.storage, options.storageSettings)
  // Before anything is opened: a package built without the console stops the start.
  const consoleFiles = options.console === true ? consoleFilesDir() : undefined
  const envKeys = role.kind === 'alone' ? envApiKeys(env) : []
  const logger = await createLogger(options.log)
  const lifecycle = lifecycleLogger(logger)
  // Signals are heard from the start: one that comes before the server listens ends the start.
  const drain = new Drain({
    drainMs: options.shutdown?.drainMs ?? DEFAULT_DRAIN_MS,
    who: role.kind === 'worker' ? `didvault worker ${process.pid}` : 'didvault',
    lifecycle,
    escalates: role.kind === 'alone',
  })
  process.on('SIGTERM', () => drain.stop('SIGTERM'))
  process.on('SIGINT', () => drain.stop('SIGINT'))
  if (role.kind === 'worker')
    process.on('message', (message) => {
      if (message === STOP_NOW_MESSAGE) drain.cut('the primary says stop now')
    })
  // Before the storage is opened: a bad context file leaves nothing behind.
  await registerContextFiles(options.contexts ?? [])
  const jsonldThreads = role.kind === 'worker' ? role.jsonldThreads : undefined
  const { publicUrl, statusListOrigins, didWebOrigins, settings } = options
  // Before the storage is opened: no publicUrl, or a missing optional peer, leaves nothing behind.
  const issuer = options.oid4vci && options.oid4vci.enabled !== false ? await oid4vciModuleOf(options.oid4vci, publicUrl) : undefined
  const verifier = options.oid4vp && options.oid4vp.enabled !== false ? await oid4vpModuleOf(options.oid4vp, publicUrl) : undefined
  // Before the storage is opened: a wrong PIN or a missing token stops the start (exit 2), naming the setting. With
  // `hsm.masterKey`, the master key is the token's (no <db>.key made).
  const { hsm, keys } = await hsmServiceOf(options.hsm, target, env, options.previousMasterKeyFiles)
  let jsonldWaiting = () => 0
  const metrics = options.metrics?.enabled === false ? undefined : new ServiceMetrics(() => jsonldWaiting())
  const observe = { logger, metrics }
  const { service, storage } = await openService(target, env, {
    jsonldThreads,
    publicUrl,
    statusListOrigins,
    didWebOrigins,
    settings,
    observe,
    previousKeyFiles: options.previousMasterKeyFiles,
    heartbeat: true,
    start: startWait(options, role, logger),
    ...(issuer && { oid4vci: issuer }),
    ...(verifier && { oid4vp: verifier }),
    ...(hsm && { hsm }),
    ...(keys && { keys }),
  })
  jsonldWaiting = () => service.jsonldStats().waiting
  if (target.kind === 'mongodb' && !storage.capabilities.multiProcess) {
    logger.warn(
      'didvault: this MongoDB is a standalone server (no replica set): transactions run in the fallback mode, atomic ' +
        'within this process only; run one didvault process per database, or use a replica set',
    )
  }
  // A cluster's primary registered them once, and applied the declared issuers.
  if (role.kind === 'alone') {
    try {
      await registerEnvApiKeys(service.apiKeys!, env, logger)
      if (issuer) await applyDeclaredIssuers(service, options.oid4vci?.issuers)
    } catch (err) {
      await service.close()
      throw err
    }
  }

  const app = express()
  app.disable('x-powered-by')
  // The requests in flight at a stop are drained; during the drain every response closes its connection.
  app.use(drain.track)
  app.use(
    healthRouter(
      serviceReadiness(service, storage, () => drain.stopping),
      logger,
    ),
  )
  const scrape = metrics && metricsSourceOf(metrics, role)
  if (scrape && options.metrics?.port === undefined) app.use(metricsRouter(scrape))
  app.use(requestLog(logger, metrics))
  // Requests that arrive during the drain: 503 stopping (logged, with their id).
  app.use(drain.refuse)
  if (consoleFiles !== undefined) app.use(consoleRouter(consoleFiles))
  const corsOrigins = options.corsOrigins ?? []
  const bodyLimit = settings?.limits?.body
  // The inserted well-known locations of the issuer's metadata (`/.well-known/…<publicUrl path>/oid4vci/<slug>`).
  if (issuer) app.use(createWellKnownRouter(service, corsOrigins.length > 0 ? { cors: { origins: corsOrigins } } : {}))
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
    // From the first request on, a stop drains (before the listening line: a supervisor may signal as soon as it
    // reads it). A worker whose primary dies exits at once: Node's cluster ends a worker whose IPC channel closes.
    drain.serving(server, () => service.close())
    if (metricsPort !== undefined) await serveMetricsPort(scrape!, options.host, metricsPort, logger)
  } catch (err) {
    await service.close()
    throw err
  }
  if (role.kind === 'worker') {
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

/** The built console's folder, or an error saying the package was built without it. */
function consoleFilesDir(): string {
  const dir = consoleDir()
  if (dir === undefined) throw new Error('--console: this build of didvault has no console (dist/console/); build it with npm run build')
  return dir
}

/**
 * How this process waits for its storage at start: alone (or as a primary) for `storage.startTimeoutMs`; as a worker
 * of a running cluster as long as it takes — a worker that exited would count toward the primary's crash loop, and the
 * primary has already opened the storage once. A stop meanwhile (the primary's SIGTERM) ends the wait: `drain.ts`
 * exits a process stopped before it listens.
 */
export function startWait(options: ServeOptions, role: ServeRole, logger: Logger): StartWait {
  const log = (message: string) => logger.warn(message)
  return { timeoutMs: role.kind === 'worker' ? Infinity : (options.storageSettings?.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS), log }
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

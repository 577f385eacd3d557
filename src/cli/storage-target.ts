/** `--storage` for every command: what it names, and opening it with its master key (waiting for it at start-up when asked). */
import { existsSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { serviceOptionsOf, type ServiceSettings } from '../config/service-options.js'
import { maskUrl } from '../config/print.js'
import { UNPARSABLE_STORAGE_URL } from '../config/schema.js'
import { configuredSecrets, IdentityService, type IdentityServiceOptions } from '../service/identity-service.js'
import { redactor } from '../service/error-log.js'
import { errorLogger } from '../observability/error-log.js'
import type { Logger } from '../observability/logger.js'
import type { ServiceMetrics } from '../observability/metrics.js'
import { timedStorage } from '../observability/timed-storage.js'
import { createMemoryStorage } from '../storage/memory/index.js'
import { type StorageAdapter, StorageUnavailableError } from '../storage/port.js'
import { resolveMasterKey, resolvePreviousMasterKeys } from './master-key.js'
import { COLLECTIONS } from '../service/collections.js'
import { KEYRING_RECORD, type MasterKeySetting } from '../custody/keyring-store.js'
import { UsageError } from './usage.js'
import { withOptionalPeer } from './optional-peer.js'
import { isSqliteSynchronous, type SqliteSynchronous } from '../storage/sqlite/synchronous.js'

/** Where `--storage` points. */
export type StorageTarget =
  | { kind: 'memory' }
  | { kind: 'sqlite'; path: string; synchronous?: SqliteSynchronous }
  | { kind: 'mongodb'; url: string }
  | { kind: 'postgres'; url: string; schema?: string; preparedStatements?: boolean; readCache?: boolean }

/** The config file's settings of the storage besides its URL (`storage: { url, … }`); a parameter in the URL wins over them. */
export interface StorageSettings {
  /** PostgreSQL: send statements prepared (default true); false behind PgBouncer before 1.21. */
  preparedStatements?: boolean
  /** SQLite: `full` (default) or `normal`. */
  synchronous?: 'full' | 'normal'
}

/**
 * Parses `memory`, `sqlite:<path>[?synchronous=full|normal]`, `mongodb://host[:port]/db` (also `mongodb+srv://`) or
 * `postgres://user@host[:port]/db[?schema=<name>][&preparedStatements=true|false][&readCache=true|false]` (also
 * `postgresql://`; `schema`, `preparedStatements` and `readCache` are taken out of the connection string; default
 * `public`, true and true), then applies the config
 * file's `settings` the URL does not set (a setting of another kind of storage is a usage error). An unknown value is
 * echoed without the password of a `//user:password@` part.
 */
export function storageTargetOf(spec: string, settings: StorageSettings = {}): StorageTarget {
  const target = parsedTarget(spec)
  const { preparedStatements, synchronous } = settings
  if (preparedStatements !== undefined) {
    if (target.kind !== 'postgres') throw new UsageError(`storage.preparedStatements applies to postgres:// storage only`)
    target.preparedStatements ??= preparedStatements
  }
  if (synchronous !== undefined) {
    if (target.kind !== 'sqlite') throw new UsageError(`storage.synchronous applies to sqlite: storage only`)
    target.synchronous ??= synchronous === 'full' ? 'FULL' : 'NORMAL'
  }
  return target
}

function parsedTarget(spec: string): StorageTarget {
  if (spec === 'memory') return { kind: 'memory' }
  if (spec.startsWith('sqlite:') && spec.length > 'sqlite:'.length) return sqliteTarget(spec.slice('sqlite:'.length))
  const url = /^(mongodb(\+srv)?|postgres(ql)?):\/\/./.test(spec)
  if (url && !URL.canParse(spec)) throw new UsageError(`--storage ${maskUrl(spec, false)} ${UNPARSABLE_STORAGE_URL}`)
  if (/^mongodb(\+srv)?:\/\/./.test(spec)) return { kind: 'mongodb', url: spec }
  if (/^postgres(ql)?:\/\/./.test(spec)) return postgresTarget(spec)
  throw new UsageError(
    `unknown --storage ${maskUrl(spec, false)} (use memory, sqlite:<path>, mongodb://host/db or postgres://user@host/db)`,
  )
}

/** A SQLite target: the file, and a trailing `?synchronous=full|normal` (any case; default FULL, see `SqliteStorageOptions`). */
function sqliteTarget(rest: string): StorageTarget {
  const match = /\?synchronous=([^?&#]*)$/i.exec(rest)
  if (match === null) return { kind: 'sqlite', path: rest }
  const synchronous = match[1].toUpperCase()
  if (!isSqliteSynchronous(synchronous)) throw new UsageError(`--storage: synchronous=${match[1]} is not full or normal`)
  return { kind: 'sqlite', path: rest.slice(0, match.index), synchronous }
}

/**
 * A PostgreSQL target. `?schema=` names the schema, `?preparedStatements=` turns statement
 * preparation on or off and `?readCache=` the read cache; they leave the connection string (the server would refuse
 * them as settings).
 */
function postgresTarget(spec: string): StorageTarget {
  const target: StorageTarget & { kind: 'postgres' } = { kind: 'postgres', url: spec }
  const schema = takeParameter(target, 'schema')
  if (schema !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_$]{0,62}$/.test(schema.value)) {
      throw new UsageError(`--storage: schema=${schema.raw} is not a plain PostgreSQL identifier (letters, digits, _ and $, at most 63)`)
    }
    target.schema = schema.value
  }
  const prepared = booleanParameter(target, 'preparedStatements')
  if (prepared !== undefined) target.preparedStatements = prepared
  const readCache = booleanParameter(target, 'readCache')
  if (readCache !== undefined) target.readCache = readCache
  return target
}

/** `?name=true|false`, taken out of the target's URL. */
function booleanParameter(target: { url: string }, name: string): boolean | undefined {
  const taken = takeParameter(target, name)
  if (taken === undefined) return undefined
  if (taken.value !== 'true' && taken.value !== 'false') throw new UsageError(`--storage: ${name}=${taken.raw} is not true or false`)
  return taken.value === 'true'
}

/** Removes `?name=value` (or `&name=value`) from the target's URL; returns the value as written and decoded. */
function takeParameter(target: { url: string }, name: string): { raw: string; value: string } | undefined {
  const match = new RegExp(`[?&]${name}=([^&#]*)`).exec(target.url)
  if (match === null) return undefined
  target.url = target.url.replace(new RegExp(`([?&])${name}=[^&#]*&?`), '$1').replace(/[?&]$/, '')
  try {
    return { raw: match[1], value: decodeURIComponent(match[1]) }
  } catch {
    return { raw: match[1], value: match[1] }
  }
}

/** How {@link openStorage} opens it. */
export interface OpenStorageOptions {
  /**
   * For reading only (`audit verify`): SQLite opened read-only (a read-only backup too), PostgreSQL
   * sessions with `default_transaction_read_only` on; nothing is created or migrated.
   */
  readonly?: boolean
  /** Told of each PostgreSQL transaction run again after a serialization failure (metrics). */
  onRetry?: () => void
}

/** The adapter module of each kind of storage, loaded only when asked for: its driver is an optional peer of the package. */
const ADAPTERS = {
  sqlite: () =>
    withOptionalPeer('better-sqlite3', 'SQLite storage (sqlite:<path>, the default --storage)', () => import('../storage/sqlite/index.js')),
  postgres: () => withOptionalPeer('pg', 'PostgreSQL storage', () => import('../storage/postgres/index.js')),
  mongodb: () => withOptionalPeer('mongodb', 'MongoDB storage', () => import('../storage/mongo/index.js')),
}

/** Fails, naming the package to install, when the driver `target` needs is missing; loads nothing for memory storage. */
export async function assertDriverInstalled(target: StorageTarget): Promise<void> {
  if (target.kind !== 'memory') await ADAPTERS[target.kind]()
}

/** Opens the storage; the SQLite, MongoDB and PostgreSQL adapters are loaded only when asked for (their drivers are optional peers). */
export async function openStorage(target: StorageTarget, options: OpenStorageOptions = {}): Promise<StorageAdapter> {
  if (target.kind === 'memory') return createMemoryStorage()
  if (target.kind === 'sqlite') {
    const { createSqliteStorage } = await ADAPTERS.sqlite()
    return createSqliteStorage({
      path: target.path,
      ...(target.synchronous !== undefined && { synchronous: target.synchronous }),
      ...(options.readonly && { readonly: true }),
    })
  }
  if (target.kind === 'postgres') {
    const { createPostgresStorage } = await ADAPTERS.postgres()
    const { url, schema, preparedStatements, readCache } = target
    return createPostgresStorage({
      connectionString: options.readonly ? readOnlySessions(url) : url,
      ...(schema !== undefined && { schema }),
      ...(preparedStatements !== undefined && { preparedStatements }),
      // Reading once (`audit verify`) has nothing to keep.
      ...(options.readonly ? { readCache: false } : readCache !== undefined && { readCache }),
      ...(options.onRetry && { onRetry: options.onRetry }),
    })
  }
  const { createMongoStorage } = await ADAPTERS.mongodb()
  return createMongoStorage({ url: target.url })
}

/** `url` with every session's transactions read-only (`options=-c default_transaction_read_only=on`): the server refuses any write. */
function readOnlySessions(url: string): string {
  const setting = `options=${encodeURIComponent('-c default_transaction_read_only=on')}`
  return `${url}${url.includes('?') ? '&' : '?'}${setting}`
}

/** The storage as messages and logs name it: a SQLite file, or the host and database of a server (never a user, password or query). */
export function describeTarget(target: StorageTarget): string {
  if (target.kind === 'memory') return 'memory storage'
  if (target.kind === 'sqlite') return target.path
  try {
    const url = new URL(target.url)
    const schema = target.kind === 'postgres' ? ` (schema ${target.schema ?? 'public'})` : ''
    return `${url.protocol}//${url.host}${url.pathname}${schema}`
  } catch {
    return `the ${target.kind === 'postgres' ? 'PostgreSQL' : 'MongoDB'} database of --storage`
  }
}

/** The master key and previous ones to open a service with. */
export interface ServiceKeys {
  masterKey: MasterKeySetting
  previousMasterKeys: MasterKeySetting[]
}

/**
 * The keys `serve` would use on `target`: the master key (`DIDVAULT_MASTER_KEY`, else `<db>.key` or a random
 * in-process key), and the previous ones (`DIDVAULT_PREVIOUS_MASTER_KEYS`, `previousKeyFiles`, `<db>.previous.key`).
 */
export function serviceKeysOf(target: StorageTarget, env: NodeJS.ProcessEnv, previousKeyFiles: readonly string[] = []): ServiceKeys {
  const previousMasterKeys = resolvePreviousMasterKeys(env, target, previousKeyFiles)
  return { masterKey: resolveMasterKey(env, target).key, previousMasterKeys }
}

/**
 * Whether a server has set up `target`: a SQLite file that exists, holding the keyring record (as
 * every database a service opened does). Checked before the service opens it, which would set it
 * up. `hint` ends the error's advice.
 */
export async function assertSetUp(target: StorageTarget, hint = ''): Promise<void> {
  const missing = () => new Error(`no didvault database at ${describeTarget(target)} (check --storage or DIDVAULT_STORAGE${hint})`)
  if (target.kind === 'sqlite' && !existsSync(target.path)) throw missing()
  const storage = await openStorage(target)
  try {
    await storage.init(COLLECTIONS)
    if ((await storage.collection('meta').get(KEYRING_RECORD.id)) === undefined) throw missing()
  } finally {
    await storage.close()
  }
}

/** How long `serve` waits for its storage at start-up by default (config `storage.startTimeoutMs`). */
export const DEFAULT_START_TIMEOUT_MS = 60_000
/** The wait before the second attempt to open the storage; it doubles up to {@link MAX_START_RETRY_DELAY_MS}. */
const FIRST_START_RETRY_DELAY_MS = 250
const MAX_START_RETRY_DELAY_MS = 5_000

/**
 * Waiting for the storage at start-up: an attempt that fails because the storage is unavailable
 * (a refused connection, a server starting up or shutting down) is made again with backoff
 * (250 ms doubling to 5 s) until `timeoutMs` has passed (`Infinity`: until the process is stopped);
 * `log` is told of each wait. Any other failure (a wrong password, a bad master key) is not waited for.
 */
export interface StartWait {
  timeoutMs: number
  log?: (message: string) => void
}

/**
 * The service over `target`, with the keys `serve` would use (or `keys`). `mustExist`: a
 * database no service has set up (a SQLite file that is not there, an empty PostgreSQL schema)
 * is an error rather than a new empty one (`missingHint` ends its advice). `previousKeyFiles`:
 * `--previous-master-key-file` / config `previousMasterKeyFiles`. `jsonldThreads`: the JSON-LD worker pool's size (default: the
 * service's, sized for one process per machine). `settings`: the config file's networks,
 * resolvers, limits and tokens. `heartbeat`: announce this process in the storage (option
 * `heartbeat` of the service: `serve` does). `observe`: unexpected errors go to `logger` (secrets
 * redacted), and `metrics` times the storage calls and counts status-list publications. `start`:
 * wait for an unavailable storage (default: fail at once). The storage returned is the adapter
 * itself (untimed).
 */
export async function openService(
  target: StorageTarget,
  env: NodeJS.ProcessEnv,
  options: {
    mustExist?: boolean
    missingHint?: string
    keys?: ServiceKeys
    previousKeyFiles?: readonly string[]
    jsonldThreads?: number
    publicUrl?: string
    statusListOrigins?: string[]
    didWebOrigins?: string[]
    settings?: ServiceSettings
    heartbeat?: boolean
    observe?: { logger: Logger; metrics?: ServiceMetrics }
    start?: StartWait
    /** The OID4VCI issuer module (`serve` with `oid4vci` on). */
    oid4vci?: IdentityServiceOptions['oid4vci']
    /** The OID4VP verifier module (`serve` with `oid4vp` on). */
    oid4vp?: IdentityServiceOptions['oid4vp']
    /** The HSM module (`serve` with an `hsm` section or `--hsm-*` flags). */
    hsm?: IdentityServiceOptions['hsm']
  } = {},
): Promise<{ service: IdentityService; storage: StorageAdapter }> {
  // A missing driver is said before anything is created (the master key file of a SQLite database).
  await assertDriverInstalled(target)
  if (options.mustExist) await assertSetUp(target, options.missingHint)
  // The keys and the gas payers are settled before the database is opened (opening creates the file).
  const keys = options.keys ?? serviceKeysOf(target, env, options.previousKeyFiles)
  const configured = serviceOptionsOf(options.settings ?? {})
  const { start = { timeoutMs: 0 } } = options
  const startedAt = Date.now()
  for (let attempt = 1; ; attempt++) {
    try {
      return await openServiceOnce(target, keys, configured, options)
    } catch (err) {
      if (!(err instanceof StorageUnavailableError) || start.timeoutMs <= 0) throw err
      const waited = Date.now() - startedAt
      if (waited >= start.timeoutMs) {
        const seconds = Math.round(waited / 1000)
        throw new Error(`storage ${describeTarget(target)} still unavailable after ${seconds} s, giving up: ${err.message}`)
      }
      // The last attempt is made at the deadline.
      const delay = Math.min(FIRST_START_RETRY_DELAY_MS * 2 ** (attempt - 1), MAX_START_RETRY_DELAY_MS, start.timeoutMs - waited)
      start.log?.(`didvault: storage ${describeTarget(target)} unavailable (${err.message}); trying again in ${delay} ms`)
      await sleep(delay)
    }
  }
}

/** One attempt of {@link openService}: the storage opened, the service created on it (the storage closed again on failure). */
async function openServiceOnce(
  target: StorageTarget,
  keys: ServiceKeys,
  configured: ReturnType<typeof serviceOptionsOf>,
  options: Parameters<typeof openService>[2] & object,
): Promise<{ service: IdentityService; storage: StorageAdapter }> {
  const storage = await openStorage(target, { onRetry: options.observe?.metrics?.storageTransactionRetried })
  try {
    const jsonldWorkers = options.jsonldThreads === undefined ? {} : { jsonldWorkers: { threads: options.jsonldThreads } }
    const publicUrl = options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }
    const { statusListOrigins, didWebOrigins, observe } = options
    const served = observe?.metrics ? timedStorage(storage, (call, s) => observe.metrics!.storageCall(call, s)) : storage
    const serviceOptions: IdentityServiceOptions = {
      storage: served,
      ...keys,
      ...configured,
      ...jsonldWorkers,
      ...publicUrl,
      statusListOrigins,
      didWebOrigins,
      ...(options.heartbeat && { heartbeat: true }),
      ...(options.oid4vci && { oid4vci: options.oid4vci }),
      ...(options.oid4vp && { oid4vp: options.oid4vp }),
      ...(options.hsm && { hsm: options.hsm }),
    }
    if (observe) serviceOptions.onError = errorLogger(observe.logger, redactor(configuredSecrets(serviceOptions)))
    if (observe?.metrics) serviceOptions.onStatusListPublished = observe.metrics.statusListPublished
    if (observe?.metrics) serviceOptions.onItemFailure = observe.metrics.itemFailed
    return { service: await IdentityService.create(serviceOptions), storage }
  } catch (err) {
    await storage.close().catch(() => undefined)
    throw err
  }
}

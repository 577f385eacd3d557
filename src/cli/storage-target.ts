/** `--storage` for every command: what it names, and opening it with its master key. */
import { existsSync } from 'node:fs'
import { serviceOptionsOf, type ServiceSettings } from '../config/service-options.js'
import { configuredSecrets, IdentityService, type IdentityServiceOptions } from '../service/identity-service.js'
import { redactor } from '../service/error-log.js'
import { errorLogger } from '../observability/error-log.js'
import type { Logger } from '../observability/logger.js'
import type { ServiceMetrics } from '../observability/metrics.js'
import { timedStorage } from '../observability/timed-storage.js'
import { createMemoryStorage } from '../storage/memory/index.js'
import type { StorageAdapter } from '../storage/port.js'
import { resolveMasterKey, resolvePreviousMasterKeys } from './master-key.js'
import { COLLECTIONS } from '../service/collections.js'
import { KEYRING_RECORD, type MasterKeyInput } from '../custody/keyring-store.js'
import { UsageError } from './usage.js'
import { isSqliteSynchronous, type SqliteSynchronous } from '../storage/sqlite/synchronous.js'

/** Where `--storage` points. */
export type StorageTarget =
  | { kind: 'memory' }
  | { kind: 'sqlite'; path: string; synchronous?: SqliteSynchronous }
  | { kind: 'mongodb'; url: string }
  | { kind: 'postgres'; url: string; schema?: string }

/**
 * Parses `memory`, `sqlite:<path>[?synchronous=full|normal]`, `mongodb://host[:port]/db` (also `mongodb+srv://`) or
 * `postgres://user@host[:port]/db[?schema=<name>]` (also `postgresql://`; `schema` is taken out of
 * the connection string, default `public`). An unknown value is echoed without the password of a
 * `//user:password@` part.
 */
export function storageTargetOf(spec: string): StorageTarget {
  if (spec === 'memory') return { kind: 'memory' }
  if (spec.startsWith('sqlite:') && spec.length > 'sqlite:'.length) return sqliteTarget(spec.slice('sqlite:'.length))
  if (/^mongodb(\+srv)?:\/\/./.test(spec)) return { kind: 'mongodb', url: spec }
  if (/^postgres(ql)?:\/\/./.test(spec)) return postgresTarget(spec)
  const shown = spec.replace(/\/\/[^@/]*@/, '//***@')
  throw new UsageError(`unknown --storage ${shown} (use memory, sqlite:<path>, mongodb://host/db or postgres://user@host/db)`)
}

/** A SQLite target: the file, and a trailing `?synchronous=full|normal` (any case; default FULL, see `SqliteStorageOptions`). */
function sqliteTarget(rest: string): StorageTarget {
  const match = /\?synchronous=([^?&#]*)$/i.exec(rest)
  if (match === null) return { kind: 'sqlite', path: rest }
  const synchronous = match[1].toUpperCase()
  if (!isSqliteSynchronous(synchronous)) throw new UsageError(`--storage: synchronous=${match[1]} is not full or normal`)
  return { kind: 'sqlite', path: rest.slice(0, match.index), synchronous }
}

/** A PostgreSQL target; `?schema=` names the schema and leaves the connection string (the server would refuse it as a setting). */
function postgresTarget(spec: string): StorageTarget {
  const match = /[?&]schema=([^&#]*)/.exec(spec)
  if (match === null) return { kind: 'postgres', url: spec }
  const schema = decodeURIComponent(match[1])
  if (!/^[A-Za-z_][A-Za-z0-9_$]{0,62}$/.test(schema)) {
    throw new UsageError(`--storage: schema=${match[1]} is not a plain PostgreSQL identifier (letters, digits, _ and $, at most 63)`)
  }
  const url = spec.replace(/([?&])schema=[^&#]*&?/, '$1').replace(/[?&]$/, '')
  return { kind: 'postgres', url, schema }
}

/** Opens the storage; the SQLite, MongoDB and PostgreSQL adapters are loaded only when asked for (their drivers are optional peers). */
export async function openStorage(target: StorageTarget): Promise<StorageAdapter> {
  if (target.kind === 'memory') return createMemoryStorage()
  if (target.kind === 'sqlite') {
    const { createSqliteStorage } = await import('../storage/sqlite/index.js')
    return createSqliteStorage({ path: target.path, ...(target.synchronous !== undefined && { synchronous: target.synchronous }) })
  }
  if (target.kind === 'postgres') {
    const { createPostgresStorage } = await import('../storage/postgres/index.js')
    return createPostgresStorage({ connectionString: target.url, ...(target.schema === undefined ? {} : { schema: target.schema }) })
  }
  const { createMongoStorage } = await import('../storage/mongo/index.js')
  return createMongoStorage({ url: target.url })
}

/** The storage as messages name it: a SQLite file, or the host and database of a server (never a password). */
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
  masterKey: MasterKeyInput
  previousMasterKeys: MasterKeyInput[]
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

/**
 * The service over `target`, with the keys `serve` would use (or `keys`). `mustExist`: a
 * database no service has set up (a SQLite file that is not there, an empty PostgreSQL schema)
 * is an error rather than a new empty one (`missingHint` ends its advice). `previousKeyFiles`:
 * `--previous-master-key-file` / config `previousMasterKeyFiles`. `jsonldThreads`: the JSON-LD worker pool's size (default: the
 * service's, sized for one process per machine). `settings`: the config file's networks,
 * resolvers, limits and tokens. `heartbeat`: announce this process in the storage (option
 * `heartbeat` of the service: `serve` does). `observe`: unexpected errors go to `logger` (secrets
 * redacted), and `metrics` times the storage calls and counts status-list publications. The
 * storage returned is the adapter itself (untimed).
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
    settings?: ServiceSettings
    heartbeat?: boolean
    observe?: { logger: Logger; metrics?: ServiceMetrics }
  } = {},
): Promise<{ service: IdentityService; storage: StorageAdapter }> {
  if (options.mustExist) await assertSetUp(target, options.missingHint)
  // The keys and the gas payers are settled before the database is opened (opening creates the file).
  const keys = options.keys ?? serviceKeysOf(target, env, options.previousKeyFiles)
  const configured = serviceOptionsOf(options.settings ?? {})
  const storage = await openStorage(target)
  try {
    const jsonldWorkers = options.jsonldThreads === undefined ? {} : { jsonldWorkers: { threads: options.jsonldThreads } }
    const publicUrl = options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }
    const { statusListOrigins, observe } = options
    const served = observe?.metrics ? timedStorage(storage, (call, s) => observe.metrics!.storageCall(call, s)) : storage
    const serviceOptions: IdentityServiceOptions = {
      storage: served,
      ...keys,
      ...configured,
      ...jsonldWorkers,
      ...publicUrl,
      statusListOrigins,
      ...(options.heartbeat && { heartbeat: true }),
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

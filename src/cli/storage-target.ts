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
import { resolveMasterKey } from './master-key.js'
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

/** Opens the storage; the SQLite, MongoDB and PostgreSQL adapters are loaded only when asked for (their drivers are optional peers). */
export async function openStorage(target: StorageTarget, options: OpenStorageOptions = {}): Promise<StorageAdapter> {
  if (target.kind === 'memory') return createMemoryStorage()
  if (target.kind === 'sqlite') {
    const { createSqliteStorage } = await import('../storage/sqlite/index.js')
    return createSqliteStorage({
      path: target.path,
      ...(target.synchronous !== undefined && { synchronous: target.synchronous }),
      ...(options.readonly && { readonly: true }),
    })
  }
  if (target.kind === 'postgres') {
    const { createPostgresStorage } = await import('../storage/postgres/index.js')
    return createPostgresStorage({
      connectionString: options.readonly ? readOnlySessions(target.url) : target.url,
      ...(target.schema === undefined ? {} : { schema: target.schema }),
      ...(options.onRetry && { onRetry: options.onRetry }),
    })
  }
  const { createMongoStorage } = await import('../storage/mongo/index.js')
  return createMongoStorage({ url: target.url })
}

/** `url` with every session's transactions read-only (`options=-c default_transaction_read_only=on`): the server refuses any write. */
function readOnlySessions(url: string): string {
  const setting = `options=${encodeURIComponent('-c default_transaction_read_only=on')}`
  return `${url}${url.includes('?') ? '&' : '?'}${setting}`
}

/**
 * The service over `target`, with the master key `serve` would use. `mustExist`: a SQLite
 * database that is not there yet is an error rather than a new empty one. `jsonldThreads`: the
 * JSON-LD worker pool's size (default: the service's, sized for one process per machine).
 * `settings`: the config file's networks, resolvers, limits and tokens. `observe`: unexpected
 * errors go to `logger` (secrets redacted), and `metrics` times the storage calls and counts
 * status-list publications. The storage returned is the adapter itself (untimed).
 */
export async function openService(
  target: StorageTarget,
  env: NodeJS.ProcessEnv,
  options: {
    mustExist?: boolean
    jsonldThreads?: number
    publicUrl?: string
    statusListOrigins?: string[]
    settings?: ServiceSettings
    observe?: { logger: Logger; metrics?: ServiceMetrics }
  } = {},
): Promise<{ service: IdentityService; storage: StorageAdapter }> {
  if (options.mustExist && target.kind === 'sqlite' && !existsSync(target.path)) {
    throw new Error(`no didvault database at ${target.path} (check --storage or DIDVAULT_STORAGE)`)
  }
  // The key and the gas payers are settled before the database is opened (opening creates the file).
  const master = resolveMasterKey(env, target)
  const configured = serviceOptionsOf(options.settings ?? {})
  const storage = await openStorage(target, { onRetry: options.observe?.metrics?.storageTransactionRetried })
  try {
    const jsonldWorkers = options.jsonldThreads === undefined ? {} : { jsonldWorkers: { threads: options.jsonldThreads } }
    const publicUrl = options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }
    const { statusListOrigins, observe } = options
    const served = observe?.metrics ? timedStorage(storage, (call, s) => observe.metrics!.storageCall(call, s)) : storage
    const serviceOptions: IdentityServiceOptions = {
      storage: served,
      masterKey: master.key,
      ...configured,
      ...jsonldWorkers,
      ...publicUrl,
      statusListOrigins,
    }
    if (observe) serviceOptions.onError = errorLogger(observe.logger, redactor(configuredSecrets(serviceOptions)))
    if (observe?.metrics) serviceOptions.onStatusListPublished = observe.metrics.statusListPublished
    return { service: await IdentityService.create(serviceOptions), storage }
  } catch (err) {
    await storage.close().catch(() => undefined)
    throw err
  }
}

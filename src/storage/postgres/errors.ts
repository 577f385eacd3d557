/** PostgreSQL errors as the port and operators need them. */
import { StorageUnavailableError, UniqueConstraintError } from '../port.js'
import type { Layout } from './layout.js'

/** SQLSTATEs after which a whole transaction may be run again: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01'])

/** Whether a transaction that failed with `err` may be run again from the start. */
export function isRetryable(err: unknown): boolean {
  return RETRYABLE.has((err as { code?: unknown })?.code as string)
}

/** Socket errors of a server that cannot be reached (refused, reset, unroutable, unresolvable now). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
])
/**
 * SQLSTATEs of a server that ends or refuses sessions: admin or crash shutdown, cannot connect now (starting,
 * stopping), too many connections.
 */
const SESSION_REFUSED = new Set(['57P01', '57P02', '57P03', '53300'])
/** node-postgres' own errors of a connection that is gone or was never made (they carry no code). */
const PG_CONNECTION_LOST =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect)/

/**
 * Whether `err` says the connection to PostgreSQL is lost or cannot be made: a socket error, a
 * connection exception (SQLSTATE class 08), a server shutting down or starting up
 * (57P01/57P02/57P03), too many connections (53300), or node-postgres' own "connection
 * terminated" errors.
 */
export function isConnectionLoss(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && (UNREACHABLE.has(code) || SESSION_REFUSED.has(code) || code.startsWith('08'))) return true
  return typeof message === 'string' && PG_CONNECTION_LOST.test(message)
}

/** The port's error for a lost or refused connection: the code and message of the cause, for the operator's log. */
export function unavailable(err: unknown, options: { outcomeUnknown?: boolean } = {}): StorageUnavailableError {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown }
  const cause = `${typeof code === 'string' ? `${code} ` : ''}${typeof message === 'string' ? message : String(err)}`
  const what = options.outcomeUnknown ? 'PostgreSQL connection lost during COMMIT (outcome unknown)' : 'PostgreSQL unavailable'
  return new StorageUnavailableError(`${what}: ${cause}`, { cause: err, ...options })
}

/** Rethrows a unique violation (23505) as the port's {@link UniqueConstraintError} naming the index's declared fields. */
export function mapConstraint(layout: Layout, err: unknown): unknown {
  const { code, constraint } = err as { code?: unknown; constraint?: string }
  if (code !== '23505') return err
  return new UniqueConstraintError(layout.name, layout.fieldsOfIndex(constraint))
}

/**
 * {@link mapConstraint} for a statement writing into several collections (`insertAll`): the layout of the table the
 * violation names (else the one holding the violated index).
 */
export function mapConstraintOf(layouts: readonly Layout[], err: unknown): unknown {
  const { code, table, constraint } = err as { code?: unknown; table?: unknown; constraint?: string }
  if (code !== '23505') return err
  const layout =
    layouts.find((candidate) => candidate.name === table) ??
    layouts.find((candidate) => candidate.indexes.some((index) => index.name === constraint)) ??
    layouts[0]
  return mapConstraint(layout, err)
}

/** Failures of a connection that was never made: a statement that met one was not sent (so not run). */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'EAI_AGAIN', 'ENOTFOUND', '57P03', '53300'])

/** Whether a connection failure `err` came before any statement could be sent (refused, unresolvable, cannot connect now). */
export function neverSent(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && NOT_CONNECTED.has(code)) return true
  return typeof message === 'string' && /^timeout exceeded when trying to connect/.test(message)
}

/** Where a pool connects, without credentials: `host:port/database`. */
export interface Endpoint {
  host: string
  port: number
  database: string
}

/** The endpoint of a connection string (its password never leaves this function). */
export function endpointOf(connectionString: string | undefined, fallback: Partial<Endpoint>): Endpoint {
  let url: URL | undefined
  try {
    url = connectionString === undefined ? undefined : new URL(connectionString)
  } catch {
    url = undefined
  }
  return {
    host: url?.hostname || fallback.host || 'localhost',
    port: Number(url?.port || fallback.port || 5432),
    database: decodeURIComponent(url?.pathname.slice(1) ?? '') || fallback.database || 'postgres',
  }
}

/**
 * The error of a first connection that failed: names host, port and database, the cause's code
 * and message, never the password. A server that cannot be reached now (refused, shutting down,
 * starting up) is a {@link StorageUnavailableError}, which a start may wait out; anything else
 * (a wrong password, no such database) is a plain Error.
 */
export function connectionError(endpoint: Endpoint, err: unknown, password: string | undefined): Error {
  const { code, message } = err as { code?: unknown; message?: unknown }
  let reason = typeof message === 'string' ? message : String(err)
  if (password) reason = reason.replaceAll(password, '***')
  const where = `PostgreSQL at ${endpoint.host}:${endpoint.port}, database "${endpoint.database}"`
  const text = `cannot connect to ${where}: ${typeof code === 'string' ? `${code} ` : ''}${reason}`
  return isConnectionLoss(err) ? new StorageUnavailableError(text) : new Error(text)
}

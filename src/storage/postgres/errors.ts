/** PostgreSQL errors as the port and operators need them. */
import { UniqueConstraintError } from '../port.js'
import type { Layout } from './layout.js'

/** SQLSTATEs after which a whole transaction may be run again: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01'])

/** Whether a transaction that failed with `err` may be run again from the start. */
export function isRetryable(err: unknown): boolean {
  return RETRYABLE.has((err as { code?: unknown })?.code as string)
}

/** Rethrows a unique violation (23505) as the port's {@link UniqueConstraintError} naming the index's declared fields. */
export function mapConstraint(layout: Layout, err: unknown): unknown {
  const { code, constraint } = err as { code?: unknown; constraint?: string }
  if (code !== '23505') return err
  return new UniqueConstraintError(layout.name, layout.fieldsOfIndex(constraint))
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

/** The error of a first connection that failed: names host, port and database, the cause's code and message, never the password. */
export function connectionError(endpoint: Endpoint, err: unknown, password: string | undefined): Error {
  const { code, message } = err as { code?: unknown; message?: unknown }
  let reason = typeof message === 'string' ? message : String(err)
  if (password) reason = reason.replaceAll(password, '***')
  const where = `PostgreSQL at ${endpoint.host}:${endpoint.port}, database "${endpoint.database}"`
  return new Error(`cannot connect to ${where}: ${typeof code === 'string' ? `${code} ` : ''}${reason}`)
}

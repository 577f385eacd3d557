/**
 * A pooled connection checked out for a transaction, a migration or an `explain`.
 *
 * node-postgres reports a connection that fails while no query runs on it — the FATAL of
 * `pg_terminate_backend` or of a server shutting down, a reset socket — as an `'error'` event
 * of its client, and an `'error'` event nobody listens to ends the process. While a connection
 * idles in the pool the pool listens; from checkout to release this holder does. A lost
 * connection fails, as {@link StorageUnavailableError}, only the work that holds it, and leaves
 * the pool when released.
 */
import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg'
import type { StorageUnavailableError } from '../port.js'
import { isConnectionLoss, unavailable } from './errors.js'

/** What runs statements on one connection (a {@link HeldConnection}). */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(statement: string | QueryConfig, values?: unknown[]): Promise<QueryResult<R>>
}

export class HeldConnection implements Queryable {
  /** Why the connection is gone, once it is. */
  #lost: unknown
  readonly #client: PoolClient
  readonly #onError = (err: Error) => {
    this.#lost ??= err
  }

  private constructor(client: PoolClient) {
    this.#client = client
    client.on('error', this.#onError)
  }

  /** Checks a connection out of `pool`; a server that cannot be reached is a {@link StorageUnavailableError}. */
  static async take(pool: Pool): Promise<HeldConnection> {
    try {
      return new HeldConnection(await pool.connect())
    } catch (err) {
      throw isConnectionLoss(err) ? unavailable(err) : err
    }
  }

  /** Whether the connection is gone (nothing sent on it any more reaches the server). */
  get lost(): boolean {
    return this.#lost !== undefined
  }

  /** The error of a statement that was not sent because the connection is gone. */
  lostError(): StorageUnavailableError {
    return unavailable(this.#lost)
  }

  /** Runs one statement; a connection lost before or while it ran is a {@link StorageUnavailableError}. */
  async query<R extends QueryResultRow = QueryResultRow>(statement: string | QueryConfig, values?: unknown[]): Promise<QueryResult<R>> {
    if (this.#lost !== undefined) throw this.lostError()
    try {
      return await (typeof statement === 'string' ? this.#client.query<R>(statement, values) : this.#client.query<R>(statement))
    } catch (err) {
      if (!isConnectionLoss(err)) throw err
      this.#lost ??= err
      throw unavailable(err)
    }
  }

  /**
   * Hands the connection back: to the pool when it is sound, closed when it was lost or when
   * `failure` leaves its state unknown (a failed COMMIT, ROLLBACK or BEGIN).
   */
  release(failure?: unknown): void {
    this.#client.removeListener('error', this.#onError)
    const reason = this.#lost ?? failure
    this.#client.release(reason === undefined ? undefined : reason instanceof Error ? reason : new Error('connection in an unknown state'))
  }
}

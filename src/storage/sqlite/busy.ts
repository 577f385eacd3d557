/** Retries after the connection's own busy_timeout wait; the delay doubles from 10 ms, capped at 1 s. */
const RETRIES = 8
const FIRST_DELAY_MS = 10
const MAX_DELAY_MS = 1000

/**
 * The database stayed locked by another connection through busy_timeout and every retry.
 * `cause` is the last `SQLITE_BUSY` error.
 */
export class SqliteBusyError extends Error {
  readonly code = 'SQLITE_BUSY'

  constructor(attempts: number, cause: unknown) {
    super(`SQLite database is locked by another connection (gave up after ${attempts} attempts)`, { cause })
    this.name = 'SqliteBusyError'
  }
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY')
}

/**
 * Runs `attempt`, retrying with jittered exponential backoff while it fails with SQLITE_BUSY.
 * better-sqlite3 waits synchronously (busy_timeout) inside each attempt; the backoff between
 * attempts is asynchronous, so the rest of the process (possibly the lock holder) can proceed.
 */
export async function retryWhenBusy<R>(attempt: () => Promise<R>): Promise<R> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt()
    } catch (err) {
      if (!isBusy(err)) throw err
      if (retry === RETRIES) throw new SqliteBusyError(retry + 1, err)
      const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** retry) * (0.5 + Math.random())
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
  }
}

/**
 * {@link retryWhenBusy} for the synchronous setup of a connection (its journal mode), sleeping between attempts. SQLite
 * answers some lock waits with SQLITE_BUSY at once, without its busy handler: switching a new database to WAL while
 * another connection (a process starting beside this one) holds its write lock is one.
 */
export function retryWhenBusySync<R>(attempt: () => R): R {
  for (let retry = 0; ; retry++) {
    try {
      return attempt()
    } catch (err) {
      if (!isBusy(err)) throw err
      if (retry === RETRIES) throw new SqliteBusyError(retry + 1, err)
      const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** retry) * (0.5 + Math.random())
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delay)
    }
  }
}

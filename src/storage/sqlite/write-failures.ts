/**
 * Writes that fail because of the storage itself — a full disk, an I/O error — rather than
 * because of what was written. Reads usually still succeed then (they need no new space), so the
 * adapter remembers the last such failure until a write succeeds, for readiness to report.
 */
import { StorageUnavailableError } from '../port.js'

/** What a failure of the storage itself is called, by SQLite result code; undefined for every other error. */
export function storageFailureOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code !== 'string') return undefined
  if (code === 'SQLITE_FULL') return 'disk full'
  if (code.startsWith('SQLITE_IOERR')) return 'disk I/O error'
  return undefined
}

/** The last write failure of one database, until a write succeeds. */
export class WriteFailures {
  #last: string | undefined

  /** Why writes fail now, or undefined when the last write succeeded. */
  get last(): string | undefined {
    return this.#last
  }

  /**
   * `err` as the caller gets it: a failure of the storage itself becomes a
   * {@link StorageUnavailableError} (nothing was committed; SQLite rolled the statement or
   * transaction back) and, when `write`, is remembered; other errors are returned as they are.
   */
  failed(err: unknown, write: boolean): unknown {
    const reason = storageFailureOf(err)
    if (reason === undefined) return err
    if (write) this.#last = reason
    const { code, message } = err as { code: string; message?: unknown }
    return new StorageUnavailableError(`SQLite cannot ${write ? 'write' : 'read'}: ${reason} (${code}: ${String(message)})`, { cause: err })
  }

  /** A write was committed: the storage takes writes again. */
  succeeded(): void {
    this.#last = undefined
  }
}

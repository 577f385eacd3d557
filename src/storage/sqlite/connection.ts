import { closeSync, existsSync, fchmodSync, openSync, readFileSync, statSync } from 'node:fs'
import Database from 'better-sqlite3'
import { isSqliteSynchronous, SQLITE_SYNCHRONOUS, type SqliteSynchronous } from './synchronous.js'
import { retryWhenBusySync } from './busy.js'

/** Options of {@link createSqliteStorage}. */
export interface SqliteStorageOptions {
  /** Database file (created when missing), or `':memory:'` for a private in-memory database. */
  path: string
  /** How long a write waits for another connection's lock before failing (default 5000). */
  busyTimeoutMs?: number
  /**
   * SQLite's `synchronous` setting in WAL mode. `FULL` (default): each commit is synced to disk
   * before it returns, so an acknowledged write survives a power loss or an OS crash. `NORMAL`:
   * commits return once written to the WAL and are synced at checkpoints; a crash of the process
   * loses nothing, but a power loss or OS crash can lose the last acknowledged commits (the
   * database stays consistent). docs/storage.md *SQLite*.
   */
  synchronous?: SqliteSynchronous
  /**
   * Open an existing database for reading only: nothing is created, migrated or written (writes
   * fail). A database in a directory this process cannot write (a read-only backup, whose `-shm`
   * SQLite could not create) is read from a copy in memory. `init` then only checks that the
   * database has every collection's table (docs/storage.md *SQLite*).
   */
  readonly?: boolean
}

const DEFAULT_BUSY_TIMEOUT_MS = 5000
/** Bounds the statement cache; statement shapes come from code, so this is rarely reached. */
const MAX_CACHED_STATEMENTS = 500

/**
 * Creates the database file `path`, empty and readable by its owner only (0600, whatever the
 * umask), unless it exists: an existing file keeps its mode. SQLite creates the `-wal` and
 * `-shm` files with the mode of the database file, so they are owner-only too.
 */
function createOwnerOnly(path: string): void {
  let fd: number
  try {
    fd = openSync(path, 'wx', 0o600)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return
    throw err
  }
  try {
    fchmodSync(fd, 0o600)
  } finally {
    closeSync(fd)
  }
}

/** One better-sqlite3 connection with its PRAGMAs and a prepared-statement cache. */
export class Connection {
  readonly db: Database.Database
  /** Whether other connections (processes) can open the same database. */
  readonly shared: boolean
  /** Opened for reading only ({@link SqliteStorageOptions.readonly}). */
  readonly readonly: boolean
  private readonly statements = new Map<string, Database.Statement>()
  private readonly immediate: Database.Transaction<(fn: () => unknown) => unknown>

  constructor(options: SqliteStorageOptions) {
    const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS
    if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
      throw new RangeError(`busyTimeoutMs must be a non-negative integer, got ${busyTimeoutMs}`)
    }
    const synchronous = options.synchronous ?? 'FULL'
    if (!isSqliteSynchronous(synchronous)) {
      throw new RangeError(`synchronous must be ${SQLITE_SYNCHRONOUS.join(' or ')}, got ${String(synchronous)}`)
    }
    this.shared = options.path !== ':memory:' && options.path !== ''
    this.readonly = options.readonly === true
    if (this.readonly) {
      this.db = openReadOnly(options.path)
      this.db.pragma(`busy_timeout = ${busyTimeoutMs}`)
      this.immediate = this.db.transaction((fn: () => unknown) => fn())
      return
    }
    if (this.shared) createOwnerOnly(options.path)
    this.db = new Database(options.path, { timeout: busyTimeoutMs })
    retryWhenBusySync(() => this.db.pragma('journal_mode = WAL'))
    this.db.pragma(`synchronous = ${synchronous}`)
    this.db.pragma('foreign_keys = ON')
    // Deleted rows (revoked API key hashes, deleted wallets' sealed keys) are overwritten, not left in free pages.
    this.db.pragma('secure_delete = ON')
    this.immediate = this.db.transaction((fn: () => unknown) => fn())
  }

  /** The prepared statement for `sql`, prepared once per connection. */
  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql)
    if (statement === undefined) {
      statement = this.db.prepare(sql)
      if (this.statements.size >= MAX_CACHED_STATEMENTS) {
        this.statements.delete(this.statements.keys().next().value as string)
      }
      this.statements.set(sql, statement)
    }
    return statement
  }

  /**
   * Runs `fn` atomically: in a `BEGIN IMMEDIATE` transaction (taking the write lock up front,
   * so concurrent writers queue on busy_timeout instead of failing on upgrade), or in a
   * savepoint when a transaction is already open. Rolls back when `fn` throws.
   */
  atomically<R>(fn: () => R): R {
    return this.immediate.immediate(fn) as R
  }

  close(): void {
    if (!this.db.open) return
    if (!this.readonly) this.db.pragma('optimize')
    this.db.close()
  }
}

/** Codes of a read-only open that failed for want of a writable directory (SQLite could not create the `-shm`). */
const NO_SHM = new Set(['SQLITE_READONLY_DIRECTORY', 'SQLITE_CANTOPEN', 'SQLITE_READONLY_CANTINIT'])

/**
 * Opens `path` read-only. SQLite reads a WAL database only with its `-shm`, which it creates
 * beside the file; where it cannot (a read-only directory) and there is no `-wal` holding
 * commits not yet in the file, the file is read into memory with its header set from WAL to
 * rollback mode, and opened from there: the same content, and nothing written anywhere.
 */
function openReadOnly(path: string): Database.Database {
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    db.prepare('SELECT count(*) FROM sqlite_schema').get()
    return db
  } catch (err) {
    db.close()
    if (!NO_SHM.has((err as { code?: string }).code ?? '')) throw err
    if (existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 0) {
      throw new Error(`${path} has a -wal file, and SQLite cannot create its -shm in that directory: copy both to a writable one`, {
        cause: err,
      })
    }
  }
  const image = readFileSync(path)
  // Bytes 18 and 19: the file format's write and read versions, 2 for WAL, 1 for rollback (the file holds every commit).
  if (image.length >= 20 && image[18] === 2 && image[19] === 2) image[18] = image[19] = 1
  return new Database(image, { readonly: true })
}

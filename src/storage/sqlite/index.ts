/**
 * `didvault/sqlite`: the SQLite storage adapter (requires the optional peer `better-sqlite3`).
 */
export { SqliteBusyError } from './busy.js'
export type { SqliteStorageOptions } from './connection.js'
export { SQLITE_SYNCHRONOUS, type SqliteSynchronous } from './synchronous.js'
export { createSqliteStorage, SqliteStorage } from './storage.js'

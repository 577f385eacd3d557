/**
 * SQLite's durability levels as didvault offers them (no import of the driver, so the CLI can
 * check a `--storage` value without loading better-sqlite3).
 */

/** The values {@link SqliteStorageOptions.synchronous} takes (default `FULL`). */
export const SQLITE_SYNCHRONOUS = ['FULL', 'NORMAL'] as const
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS)[number]

/** Whether `value` is one of {@link SQLITE_SYNCHRONOUS}. */
export const isSqliteSynchronous = (value: unknown): value is SqliteSynchronous =>
  (SQLITE_SYNCHRONOUS as readonly unknown[]).includes(value)

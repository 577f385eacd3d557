/**
 * `didvault/postgres`: the PostgreSQL storage adapter (requires the optional peer `pg`).
 */
export { createPostgresStorage, PostgresStorage, type PostgresStorageOptions } from './storage.js'

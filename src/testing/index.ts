/**
 * `didvault/testing`: the storage conformance suite, for every adapter (memory, SQLite, MongoDB,
 * yours). Runs under vitest (an optional peer); ESM only.
 *
 * @example
 * import { runStorageConformance } from 'didvault/testing'
 * runStorageConformance('my-backend', async () => ({ storage: await createMyStorage() }))
 */
export type { StorageFixture } from '../storage/conformance/index.js'
export { SERVICE_QUERIES, type ServiceQuery } from './service-queries.js'
export { runStorageConformance, type StorageConformanceOptions } from './storage-conformance.js'

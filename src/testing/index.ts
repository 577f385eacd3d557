/**
 * `didvault/testing`: the conformance suites of didvault's ports — storage adapters (memory, SQLite,
 * MongoDB, yours), key backends, DID methods, credential formats, JSON-LD proof suites and status mechanisms. Runs
 * under vitest (an optional peer); ESM only.
 *
 * @example
 * import { runStorageConformance } from 'didvault/testing'
 * runStorageConformance('my-backend', async () => ({ storage: await createMyStorage() }))
 */
export type { StorageFixture } from '../storage/conformance/index.js'
export { SERVICE_QUERIES, type ServiceQuery } from './service-queries.js'
export { runStorageConformance, type StorageConformanceOptions } from './storage-conformance.js'
export { runKeyBackendConformance, type KeyBackendFixture } from './key-backend-conformance.js'
export { runDidMethodConformance, type DidMethodFixture } from './did-method-conformance.js'
export { runCredentialFormatConformance, type CredentialFormatFixture } from './credential-format-conformance.js'
export { runProofSuiteConformance, type ProofSuiteFixture, type ProofSuiteIdentity } from './proof-suite-conformance.js'
export { runStatusMechanismConformance, type StatusMechanismFixture } from './status-mechanism-conformance.js'

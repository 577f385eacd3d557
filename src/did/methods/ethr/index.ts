/**
 * did:ethr (ERC-1056): identifiers and their syntax, documents built from a DID's registry history, the
 * registries (embedded in the service's storage, or a contract on a configured chain) with their versions, and the
 * records of the embedded registry. The one door to the method for the rest of didvault.
 */
export * from './ethr.js'
export * from './key-identity.js'
export * from './syntax.js'
export * from './document.js'
export * from './registries.js'
export * from './records.js'
export * from './registry/port.js'
export * from './registry/embedded.js'
export * from './registry/onchain.js'
export { didEthrMethod } from './method.js'

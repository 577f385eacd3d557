/**
 * What a key backend's folder (`keys/backends/<name>/`) gives the registry of key backends (`keys/backends/index.ts`):
 * its name, the records it needs initialized, and how it is made from what the service has.
 */
import type { CollectionSpec, StorageAdapter } from '../storage/port.js'
import type { HsmModule } from './hsm.js'
import type { Keyring } from './keyring.js'
import type { KeyBackend } from './port.js'

/** What the service makes its key backends from. */
export interface KeyBackendSources {
  /** The service's storage. */
  storage: StorageAdapter
  /** The service's keyring (the master key's envelopes). */
  keyring: Keyring
  /** The service's clock (milliseconds). */
  now: () => number
  /** The `mpc` backend over the service's MPC vaults (`mpc/key-backend.ts`: the layers put it above `keys/`, so it is made there). */
  mpc: KeyBackend
  /** The service's HSM (option `hsm`), when it has one. */
  hsm?: HsmModule
}

/** A key backend as the registry lists it: references to its keys are `<name>:<id>`. */
export interface KeyBackendEntry {
  /** The `<backend>` of its keys' references. */
  readonly name: string
  /** Collections of the service's storage it keeps records in, beyond the service's own (initialized before it is used). */
  readonly collections?: readonly CollectionSpec[]
  /** The backend; undefined when the service is not set up for it (`hsm` without an HSM). */
  make(sources: KeyBackendSources): KeyBackend | undefined
}

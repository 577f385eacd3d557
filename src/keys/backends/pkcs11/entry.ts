/**
 * The `hsm` backend's line in the registry of key backends: made by the service's HSM module (option `hsm`) over the
 * service's storage, its records in `hsm_keys`. Loads no pkcs11js (the root entry loads none): the module is the caller's.
 */
import type { KeyBackendEntry } from '../../backend-entry.js'
import { HSM_BACKEND } from '../../hsm.js'
import { HSM_KEYS } from './records.js'

/** Keys in the service's HSM, when it has one (`keyManagement: "HSM"`). */
export const hsmBackend: KeyBackendEntry = {
  name: HSM_BACKEND,
  collections: [HSM_KEYS],
  make: ({ hsm, storage, now }) => hsm?.keyBackend(storage, { now }),
}

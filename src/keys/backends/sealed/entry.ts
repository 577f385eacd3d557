/** The `sealed` backend's line in the registry of key backends (keyManagement `ECS`): keys sealed by the service's keyring. */
import type { KeyBackendEntry } from '../../backend-entry.js'
import { SealedKeyBackend } from './index.js'

/** Keys generated in this process, kept sealed in the `keys` collection (declared with the service's collections). */
export const sealedBackend: KeyBackendEntry = {
  name: 'sealed',
  make: ({ storage, keyring, now }) => new SealedKeyBackend(storage, keyring, now),
}

/**
 * The registry of key backends (DESIGN §10, docs/keys.md), one line per backend: what the service makes its key port
 * from (test/architecture/layers.test.ts holds it to that). Adding a backend is one folder `keys/backends/<name>/`
 * implementing {@link KeyBackend} and exporting its {@link KeyBackendEntry}, and one line here.
 */
import type { KeyBackendEntry, KeyBackendSources } from '../backend-entry.js'
import { BackendKeyManager, type KeyBackend } from '../port.js'
import { hsmBackend } from './pkcs11/entry.js'
import { sealedBackend } from './sealed/entry.js'

export type { KeyBackendEntry, KeyBackendSources } from '../backend-entry.js'

/** `mpc`: the service's MPC vaults' backend (made in `mpc/`, above `keys/` in the layers), handed in as it is. */
const mpcBackend: KeyBackendEntry = { name: 'mpc', make: ({ mpc }) => mpc }

const BACKENDS: readonly KeyBackendEntry[] = [sealedBackend, mpcBackend, hsmBackend]

/** The backend of keys created without naming one (keyManagement `ECS`). */
export const DEFAULT_KEY_BACKEND = sealedBackend.name

/** Every registered backend, whether or not the service is set up for it. */
export function keyBackendEntries(): readonly KeyBackendEntry[] {
  return BACKENDS
}

/**
 * The service's key port: every registered backend the service is set up for, made from `sources` (their collections
 * initialized first), keys created in {@link DEFAULT_KEY_BACKEND} unless a request names another.
 */
export async function openKeyManager(sources: KeyBackendSources): Promise<BackendKeyManager> {
  const backends: Record<string, KeyBackend> = {}
  for (const entry of BACKENDS) {
    const backend = entry.make(sources)
    if (backend === undefined) continue
    if (entry.collections) await sources.storage.init(entry.collections)
    backends[entry.name] = backend
  }
  return new BackendKeyManager(backends, DEFAULT_KEY_BACKEND)
}

/**
 * The HSM module as the service sees it: types only, naming nothing of the PKCS#11 binding, so the root entry's
 * declarations need no `pkcs11js` (its optional peer).
 */
import type { StorageAdapter } from '../../../storage/port.js'
import type { KeyBackend } from '../../port.js'

/** What a destroyed (or not destroyed) token key is told as. */
export interface HsmKeyDestruction {
  tenantId: string
  keyRef: string
  /** `destroyed`: C_DestroyObject removed the private and public objects; `failed`: the token refused (`error` says why). */
  outcome: 'destroyed' | 'failed'
  error?: string
}

export interface Pkcs11KeyBackendOptions {
  now?: () => number
  /** Told of each token key destroyed after its records' deletion committed (the service audits it). */
  onDestroyed?: (destruction: HsmKeyDestruction) => void
  /** How long a queued destruction waits for its transaction to commit (default 60 s): then the key is kept. */
  pendingMs?: number
}

/** The HSM key backend: a key backend told of each committed transaction of the service's storage. */
export interface HsmKeyBackend extends KeyBackend {
  /** Destroys the token keys whose records' deletion has committed. */
  afterCommit(): Promise<void>
}

/** An open HSM token as `IdentityService.create({ hsm })` takes it (`pkcs11(...)` of `didvault/pkcs11`). */
export interface HsmModule {
  /** The key backend over the service's `storage` (its `hsm_keys` records), registered as `hsm`. */
  keyBackend(storage: StorageAdapter, options?: Pkcs11KeyBackendOptions): HsmKeyBackend
  /** Whether the token answers (`/health/ready`); false while it is away and being re-initialized. */
  ready(): Promise<boolean>
  /** Closes the sessions and releases the module. */
  close(): Promise<void>
}

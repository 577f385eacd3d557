/**
 * What the service takes as its `hsm` option: a hardware security module behind the key port. The shipped one is
 * `pkcs11(...)` of `didvault/pkcs11` (PKCS#11, `keys/backends/pkcs11/`); the service registers the key backend it
 * makes as `hsm` (references `hsm:<CKA_ID hex>`). Types only, naming nothing of the PKCS#11 binding, so the root entry's
 * declarations need no `pkcs11js` (its optional peer).
 */
import type { StorageAdapter } from '../storage/port.js'
import type { KeyBackend } from './port.js'

/** The key backend name of the HSM, the `<backend>` of its keys' references. */
export const HSM_BACKEND = 'hsm'

/** The HSM's key backend: keys generated and signing in the token, and destroyed there once their records are gone. */
export interface HsmKeyBackend extends KeyBackend {
  /**
   * Destroys key `id`'s objects in the token (C_DestroyObject), once the transaction that deleted its record
   * ({@link KeyBackend.destroyKeys}) committed: refused (the key kept) while the tenant's record of it is still there.
   * Rejects with an `IdentityError` when it could not (`SERVICE_UNAVAILABLE`: the token is away).
   */
  destroyMaterial(tenantId: string, id: string): Promise<void>
}

/** An open HSM token as `IdentityService.create({ hsm })` takes it. */
export interface HsmModule {
  /** The key backend over the service's `storage` (its `hsm_keys` records), registered as `hsm`. */
  keyBackend(storage: StorageAdapter, options?: { now?: () => number }): HsmKeyBackend
  /** Whether the token answers now (`/health/ready`); false while it is away and being re-initialized. */
  ready(): Promise<boolean>
  /** Closes the sessions and releases the module (the service's `close()` calls it). */
  close(): Promise<void>
}

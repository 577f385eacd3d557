/**
 * What the service takes as its `hsm` option: a hardware security module behind the key port. The shipped one is
 * `pkcs11(...)` of `didvault/pkcs11` (PKCS#11, `keys/backends/pkcs11/`); the service registers its
 * {@link HsmModule.keyBackend} as the key backend `hsm` (references `hsm:<CKA_ID hex>`). Types only: nothing here
 * loads a PKCS#11 library.
 */
import type { KeyBackend } from './port.js'

export interface HsmModule {
  /** The key backend: keys generated and signing in the token. */
  readonly keyBackend: KeyBackend
  /** Whether the token answers now (logged in, a session pool): what `/health/ready` asks. */
  ready(): Promise<boolean>
  /** Logs out and finalizes the module (the service's `close()` calls it). */
  close(): Promise<void>
}

/** The key backend name of the HSM, the `<backend>` of its keys' references. */
export const HSM_BACKEND = 'hsm'

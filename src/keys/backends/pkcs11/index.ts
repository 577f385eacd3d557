/**
 * Keys in a PKCS#11 HSM (`didvault/pkcs11`): `pkcs11({ module, tokenLabel, pin, sessions })` opens the token — the
 * module loaded, the token found by label, the user logged in, a pool of sessions — and is given to the service as
 * `IdentityService.create({ ..., hsm })`, which registers its key backend under the name `hsm` (references
 * `hsm:<CKA_ID hex>`). A wrong PIN or a missing token throws a {@link Pkcs11StartError} naming the setting to fix.
 */
import type { StorageAdapter } from '../../../storage/port.js'
import { Pkcs11KeyBackend } from './backend.js'
import type { HsmModule } from '../../hsm.js'
import { Pkcs11Token, type Pkcs11TokenOptions } from './token.js'
import { tokenAesKeys } from './master-key.js'
import type { TokenAesKeys } from '../../token-aes-keys.js'

export { HSM_KEYS, hsmKeyLabel, hsmKeyRecordId, type HsmKeyRecord } from './records.js'
export { Pkcs11KeyBackend } from './backend.js'
export { HSM_BACKEND, type HsmKeyBackend, type HsmModule } from '../../hsm.js'
export { Pkcs11StartError, Pkcs11Token, type Pkcs11TokenOptions } from './token.js'
export { Pkcs11AesKeys, tokenAesKeys } from './master-key.js'

/** `pkcs11(options)`: the module path, the token's label, the user PIN (in memory only), the pool size (default 4). */
export type Pkcs11Options = Pkcs11TokenOptions

/**
 * An open PKCS#11 token, as the service takes it (`IdentityService.create({ hsm })`): {@link HsmModule}'s `ready()` and
 * `close()` (which calls C_Finalize when nothing else in the process uses the library), and what only PKCS#11 has.
 */
export interface Pkcs11Module extends HsmModule {
  /** The logged-in token and its session pool. */
  readonly token: Pkcs11Token
  /**
   * The key backend over the service's `storage` (its `hsm_keys` records); the service registers it as `hsm` and, once
   * a deletion committed, destroys the deleted keys in the token through it (`destroyMaterial`).
   */
  keyBackend(storage: StorageAdapter, options?: { now?: () => number }): Pkcs11KeyBackend
  /**
   * AES keys in the token and AES-GCM through it, over the same pool: what the master key in the HSM uses
   * (`IdentityService.create({ masterKey: { hsm: module } })`, docs/keys.md *The master key in an HSM*).
   */
  readonly masterKeys: TokenAesKeys
}

/** Opens a PKCS#11 token (synchronously: loading, C_Initialize and C_Login are the library's blocking calls). */
export function pkcs11(options: Pkcs11Options): Pkcs11Module {
  const token = Pkcs11Token.open(options)
  return {
    token,
    masterKeys: tokenAesKeys(token),
    keyBackend: (storage, backendOptions) => new Pkcs11KeyBackend(token, storage, backendOptions),
    ready: () => token.ready(),
    close: () => token.close(),
  }
}

/**
 * `didvault/pkcs11`: keys that never leave a PKCS#11 HSM. The only entry that loads the optional `pkcs11js` peer
 * (`npm install pkcs11js`).
 */
export {
  HSM_BACKEND,
  HSM_KEYS,
  Pkcs11AesKeys,
  Pkcs11KeyBackend,
  Pkcs11StartError,
  Pkcs11Token,
  pkcs11,
  type HsmKeyBackend,
  type HsmModule,
  tokenAesKeys,
  type HsmKeyRecord,
  type Pkcs11Module,
  type Pkcs11Options,
  type Pkcs11TokenOptions,
} from './keys/backends/pkcs11/index.js'
export type { HsmMasterKey, TokenAesKeys } from './custody/hsm-master-key.js'

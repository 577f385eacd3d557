/**
 * The master key in a PKCS#11 token (docs/keys.md *The master key in an HSM*): AES-256 keys generated in the token
 * (CKM_AES_KEY_GEN; CKA_TOKEN, CKA_PRIVATE, CKA_SENSITIVE, CKA_EXTRACTABLE false) that wrap and unwrap the keyring's
 * data keys with CKM_AES_GCM, through the async calls of pkcs11js. {@link pkcs11MasterKey} opens its own session (one
 * operation at a time: the data key is unwrapped once at start, so one session is plenty); a module with a session
 * pool can serve {@link TokenAesKeys} over its own sessions with {@link Pkcs11AesKeys}.
 */
import { randomBytes } from 'node:crypto'
import pkcs11js from 'pkcs11js'
import { KeyringError } from '../../keyring.js'
import type { TokenAesKeys } from '../../../custody/hsm-master-key.js'

/** Runs `work` with a logged-in session of the token, one operation of the session at a time. */
export type WithSession = <T>(work: (session: pkcs11js.Handle) => Promise<T>) => Promise<T>

const TAG_BYTES = 16
const AUTH_FAILED = [pkcs11js.CKR_ENCRYPTED_DATA_INVALID, pkcs11js.CKR_ENCRYPTED_DATA_LEN_RANGE, pkcs11js.CKR_GENERAL_ERROR]

/** {@link TokenAesKeys} over a loaded module's sessions. */
export class Pkcs11AesKeys implements TokenAesKeys {
  constructor(
    private readonly lib: pkcs11js.PKCS11,
    private readonly withSession: WithSession,
  ) {}

  async generateAesKey(label: string): Promise<void> {
    await this.withSession(async (session) => {
      if (this.#find(session, label) !== undefined) throw new KeyringError(`the HSM token already holds a key labelled ${label}`)
      const template: pkcs11js.Template = [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
        { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_AES },
        { type: pkcs11js.CKA_VALUE_LEN, value: 32 },
        { type: pkcs11js.CKA_TOKEN, value: true },
        { type: pkcs11js.CKA_PRIVATE, value: true },
        { type: pkcs11js.CKA_SENSITIVE, value: true },
        { type: pkcs11js.CKA_EXTRACTABLE, value: false },
        { type: pkcs11js.CKA_ENCRYPT, value: true },
        { type: pkcs11js.CKA_DECRYPT, value: true },
        { type: pkcs11js.CKA_WRAP, value: false },
        { type: pkcs11js.CKA_UNWRAP, value: false },
        { type: pkcs11js.CKA_LABEL, value: label },
        { type: pkcs11js.CKA_ID, value: randomBytes(16) },
      ]
      await this.lib.C_GenerateKeyAsync(session, { mechanism: pkcs11js.CKM_AES_KEY_GEN }, template)
    })
  }

  hasAesKey(label: string): Promise<boolean> {
    return this.withSession(async (session) => this.#find(session, label) !== undefined)
  }

  encrypt(label: string, iv: Uint8Array, aad: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array> {
    return this.withSession(async (session) => {
      this.lib.C_EncryptInit(session, gcm(iv, aad), this.#key(session, label))
      const out = await this.lib.C_EncryptAsync(session, Buffer.from(plaintext), Buffer.alloc(plaintext.length + TAG_BYTES))
      return new Uint8Array(out)
    })
  }

  decrypt(label: string, iv: Uint8Array, aad: Uint8Array, ciphertext: Uint8Array): Promise<Uint8Array> {
    return this.withSession(async (session) => {
      this.lib.C_DecryptInit(session, gcm(iv, aad), this.#key(session, label))
      const buffer = Buffer.alloc(ciphertext.length)
      try {
        return new Uint8Array(await this.lib.C_DecryptAsync(session, Buffer.from(ciphertext), buffer))
      } catch (err) {
        // SoftHSM2 answers a GCM tag that does not verify with CKR_GENERAL_ERROR.
        if (err instanceof pkcs11js.Pkcs11Error && AUTH_FAILED.includes(err.code))
          throw new KeyringError(
            `the HSM key labelled ${label} does not open this wrapped master key (another key, or tampered data: ${err.message})`,
          )
        throw err
      } finally {
        buffer.fill(0)
      }
    })
  }

  #find(session: pkcs11js.Handle, label: string): pkcs11js.Handle | undefined {
    this.lib.C_FindObjectsInit(session, [
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
      { type: pkcs11js.CKA_LABEL, value: label },
    ])
    try {
      const found = this.lib.C_FindObjects(session, 2)
      if (found.length > 1) throw new KeyringError(`the HSM token holds more than one key labelled ${label}`)
      return found[0]
    } finally {
      this.lib.C_FindObjectsFinal(session)
    }
  }

  #key(session: pkcs11js.Handle, label: string): pkcs11js.Handle {
    const key = this.#find(session, label)
    if (key === undefined) throw new KeyringError(`the HSM token holds no key labelled ${label} (another token, or the key was destroyed)`)
    return key
  }
}

function gcm(iv: Uint8Array, aad: Uint8Array): pkcs11js.Mechanism {
  const parameter: pkcs11js.AesGCM = {
    type: pkcs11js.CK_PARAMS_AES_GCM,
    iv: Buffer.from(iv),
    aad: Buffer.from(aad),
    ivBits: iv.length * 8,
    tagBits: TAG_BYTES * 8,
  }
  return { mechanism: pkcs11js.CKM_AES_GCM, parameter }
}

/** Modules this file initialized or found initialized, with how many tokens it opened on each. */
const initialized = new Map<string, number>()

/** Where {@link pkcs11MasterKey} finds the token. */
export interface Pkcs11MasterKeyOptions {
  /** The PKCS#11 module (a shared library), e.g. `/usr/lib/softhsm/libsofthsm2.so`. */
  module: string
  /** The token's label (CKA_LABEL of its token info). */
  tokenLabel: string
  /** The user PIN. Never in an error or a log line. */
  pin: string
}

/** A token holding master keys, for `IdentityService.create({ masterKey: { hsm } })`. */
export interface Pkcs11MasterKeyToken {
  masterKeys: TokenAesKeys
  /** Logs out, closes the session and finalizes the module. */
  close(): void
}

/**
 * Loads the module, finds the token by label and logs in. Errors name the setting at fault (`hsm.module`,
 * `hsm.tokenLabel`, the PIN) and never the PIN.
 */
export function pkcs11MasterKey(options: Pkcs11MasterKeyOptions): Pkcs11MasterKeyToken {
  const lib = new pkcs11js.PKCS11()
  try {
    lib.load(options.module)
  } catch (err) {
    throw new KeyringError(`hsm.module ${options.module}: cannot load the PKCS#11 module (${(err as Error).message})`)
  }
  // A module is one library per process: initialized by whoever comes first, finalized by the last to close.
  const owner = !initialized.has(options.module)
  try {
    lib.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK })
  } catch (err) {
    if (!(err instanceof pkcs11js.Pkcs11Error && err.code === pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED)) throw err
  }
  initialized.set(options.module, (initialized.get(options.module) ?? 0) + 1)
  const release = () => {
    const left = (initialized.get(options.module) ?? 1) - 1
    if (left > 0) return initialized.set(options.module, left)
    initialized.delete(options.module)
    if (owner) lib.C_Finalize()
  }
  let session: pkcs11js.Handle | undefined
  try {
    const slot = lib.C_GetSlotList(true).find((s) => lib.C_GetTokenInfo(s).label.trim() === options.tokenLabel)
    if (slot === undefined) throw new KeyringError(`hsm.tokenLabel ${options.tokenLabel}: no token with this label in ${options.module}`)
    session = lib.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION)
    try {
      lib.C_Login(session, pkcs11js.CKU_USER, options.pin)
    } catch (err) {
      if (err instanceof pkcs11js.Pkcs11Error && err.code === pkcs11js.CKR_USER_ALREADY_LOGGED_IN) {
        // Another session of this process logged in: the login is the application's.
      } else if (err instanceof pkcs11js.Pkcs11Error && [pkcs11js.CKR_PIN_INCORRECT, pkcs11js.CKR_PIN_LEN_RANGE].includes(err.code)) {
        throw new KeyringError(`the HSM PIN (hsm.pinFile or DIDVAULT_HSM_PIN) is wrong for token ${options.tokenLabel}`)
      } else throw new KeyringError(`token ${options.tokenLabel}: login failed (${(err as Error).message.split(':')[0]})`)
    }
  } catch (err) {
    if (session !== undefined) lib.C_CloseSession(session)
    release()
    throw err
  }
  const open = session
  let queue: Promise<unknown> = Promise.resolve()
  const withSession: WithSession = (work) => {
    const run = queue.then(() => work(open))
    queue = run.catch(() => undefined)
    return run
  }
  let closed = false
  return {
    masterKeys: new Pkcs11AesKeys(lib, withSession),
    close() {
      if (closed) return
      closed = true
      // No C_Logout: the login is the process's, shared by its other sessions of the token; the last one closed ends it.
      lib.C_CloseSession(open)
      release()
    },
  }
}

/**
 * The master key in a PKCS#11 token (docs/keys.md *The master key in an HSM*): AES-256 keys generated in the token
 * (CKM_AES_KEY_GEN; CKA_TOKEN, CKA_PRIVATE, CKA_SENSITIVE, CKA_EXTRACTABLE false) that wrap and unwrap the keyring's
 * data keys with CKM_AES_GCM, through the async calls of pkcs11js, on the sessions of a {@link Pkcs11Token}'s pool
 * (`pkcs11(...).masterKeys`).
 */
import { randomBytes } from 'node:crypto'
import pkcs11js from 'pkcs11js'
import { KeyringError } from '../../keyring.js'
import type { TokenAesKeys } from '../../token-aes-keys.js'
import type { Pkcs11Token } from './token.js'

/** Runs `work` on a logged-in session of the token (a pooled one: one operation of the session at a time). */
export type WithSession = <T>(work: (session: pkcs11js.Handle) => Promise<T>) => Promise<T>

/** {@link TokenAesKeys} over the token's session pool. */
export function tokenAesKeys(token: Pkcs11Token): Pkcs11AesKeys {
  return new Pkcs11AesKeys(
    () => token.pkcs11,
    (work) => token.withSession('master key', (_, session) => work(session)),
  )
}

const TAG_BYTES = 16
const AUTH_FAILED = [pkcs11js.CKR_ENCRYPTED_DATA_INVALID, pkcs11js.CKR_ENCRYPTED_DATA_LEN_RANGE, pkcs11js.CKR_GENERAL_ERROR]

/** {@link TokenAesKeys} over a loaded module's sessions. */
export class Pkcs11AesKeys implements TokenAesKeys {
  constructor(
    /** The library (its handle changes when the token is re-initialized after an outage). */
    private readonly library: () => pkcs11js.PKCS11,
    private readonly withSession: WithSession,
  ) {}

  private get lib(): pkcs11js.PKCS11 {
    return this.library()
  }

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

import { createHash, createPublicKey } from 'node:crypto'
import { BackendKeyManager, IdentityError, jwkThumbprint, UnavailableError } from '../../src/index.js'
import type { BackendKey, KeyBackend, KeyType, PublicJwk } from '../../src/index.js'
import { runKeyBackendConformance } from '../../src/testing/index.js'
import { inMemoryKms } from './in-memory-kms.js'

/** The three calls of a KMS this backend needs (AWS KMS: CreateKey, GetPublicKey, Sign with MessageType DIGEST). */
export interface KmsClient {
  createKey(spec: 'ECC_NIST_P256'): Promise<string>
  /** The key's SubjectPublicKeyInfo, DER. */
  getPublicKey(kmsKeyId: string): Promise<Uint8Array>
  /** ECDSA_SHA_256 over a 32-byte digest; the signature in DER. */
  sign(kmsKeyId: string, digest: Uint8Array): Promise<Uint8Array>
}

/**
 * P-256 keys in a KMS. Which tenant holds which key is kept in a Map here, to stay short; a backend for real keeps
 * a record per key in the service's storage, written by `stageKey(...).store(tx)` and deleted by `destroyKeys`.
 */
export class KmsKeyBackend implements KeyBackend {
  readonly #keys = new Map<string, { tenantId: string; kmsKeyId: string; publicJwk: PublicJwk }>()

  constructor(private readonly kms: KmsClient) {}

  async createKey(tenantId: string, type: KeyType): Promise<{ id: string; publicJwk: PublicJwk }> {
    if (type !== 'P-256') throw new IdentityError('VALIDATION_ERROR', `the kms key backend holds P-256 keys, not ${type}`)
    const kmsKeyId = await this.#call(() => this.kms.createKey('ECC_NIST_P256'))
    const spki = await this.#call(() => this.kms.getPublicKey(kmsKeyId))
    const { kty, crv, x, y } = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' }).export({ format: 'jwk' })
    const publicJwk = { kty, crv, x, y } as PublicJwk
    const id = jwkThumbprint(publicJwk)
    this.#keys.set(`${tenantId}\n${id}`, { tenantId, kmsKeyId, publicJwk })
    return { id, publicJwk }
  }

  /** The tenant's key, or undefined: another tenant's key is answered as a missing one. */
  async find(tenantId: string, id: string): Promise<BackendKey | undefined> {
    const key = this.#keys.get(`${tenantId}\n${id}`)
    if (key?.tenantId !== tenantId) return undefined
    return {
      publicJwk: key.publicJwk,
      // The manager has checked the algorithm (ES256) and that `data` is given.
      sign: async ({ data }) => {
        const digest = createHash('sha256').update(data!).digest()
        return joseOfDer(await this.#call(() => this.kms.sign(key.kmsKeyId, digest)))
      },
    }
  }

  /**
   * A KMS call whose failure is answered as 503 and never passed on as it is (a client's message may name the account,
   * the endpoint or the key). A backend for real tells an outage (network, throttling: UnavailableError, 503) from a
   * refusal (access denied, key disabled: an IdentityError of its own); this one takes every failure for an outage.
   */
  async #call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request()
    } catch (err) {
      throw new UnavailableError(`KMS call failed (${(err as Error).name})`, 'the key service is unavailable, retry later')
    }
  }
}

/** DER `SEQUENCE { INTEGER r, INTEGER s }` → the JOSE form r‖s, 32 bytes each. */
function joseOfDer(der: Uint8Array): Uint8Array {
  const jose = new Uint8Array(64)
  let at = der[1] & 0x80 ? 2 + (der[1] & 0x7f) : 2
  for (const offset of [0, 32]) {
    const length = der[at + 1]
    let integer = der.subarray(at + 2, at + 2 + length)
    while (integer.length > 32 && integer[0] === 0) integer = integer.subarray(1)
    jose.set(integer, offset + 32 - integer.length)
    at += 2 + length
  }
  return jose
}

runKeyBackendConformance('kms (P-256, an in-memory stand-in)', async () => {
  const kms = inMemoryKms()
  const keys = new BackendKeyManager({ kms: new KmsKeyBackend(kms) }, 'kms')
  return {
    keys,
    backend: 'kms',
    keyTypes: ['P-256'],
    makeKey: (tenantId, type) => keys.createKey({ tenantId, type }),
    breakBackend: async () => {
      const restore = kms.outage()
      return async () => restore()
    },
  }
})

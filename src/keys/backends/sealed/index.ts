/**
 * The `sealed` key backend (keyManagement `ECS`): keys generated in this process, their private
 * halves kept only as keyring envelopes in the `keys` collection, bound to their tenant and
 * thumbprint. A signature opens the envelope, signs and wipes the plaintext. Bls12381G2 keys (BBS signatures, for
 * bbs-2023) are generated and sealed the same way and sign BBS signatures only.
 */
import { tenantCollectionOf } from '../../../storage/declaration.js'
import { UniqueConstraintError, type StorageAdapter } from '../../../storage/port.js'
import type { Keyring } from '../../keyring.js'
import type { BbsPublicJwk, KeyType, PublicJwk } from '../../key-types.js'
import type { BackendKey, HdDerivation, KeyBackend, SignRequest } from '../../port.js'
import { secretContext } from '../../secret-context.js'
import { jwkThumbprint } from '../../thumbprint.js'
import { bbsPublicJwk, bbsSign, CURVES, generateBbsKey, signRecoverableDigest } from '../../types/index.js'
import { SEALED_KEYS, sealedKeyId, type SealedKeyRecord } from './records.js'
import { derivedKey } from './derive.js'

export { SEALED_KEYS, sealedEnvelopes, sealedKeyId, type SealedKeyRecord } from './records.js'

export class SealedKeyBackend implements KeyBackend {
  readonly derivesKeys = true

  constructor(
    private readonly storage: StorageAdapter,
    private readonly keyring: Keyring,
    private readonly now: () => number = Date.now,
  ) {}

  async createKey(tenantId: string, type: KeyType, derive?: HdDerivation): Promise<{ id: string; publicJwk: PublicJwk }> {
    const { store, ...key } = await this.stageKey(tenantId, type, derive)
    await store(this.storage)
    return key
  }

  /**
   * A fresh key (or, with `derive`, a vault's wallet key: the record keeps its path), sealed at
   * once; its record is written by `store` through the caller's transaction.
   */
  async stageKey(tenantId: string, type: KeyType, derive?: HdDerivation) {
    const { privateKey, path } = derive ? derivedKey(this.keyring, type, derive) : { privateKey: CURVES[type].generate(), path: undefined }
    let record: SealedKeyRecord
    let publicJwk: PublicJwk
    try {
      publicJwk = CURVES[type].publicJwk(privateKey)
      record = this.#recordOf(tenantId, type, privateKey, publicJwk)
      if (path !== undefined) record.path = path
    } finally {
      privateKey.fill(0)
    }
    const store = async (tx: StorageAdapter) => tenantCollectionOf(tx, SEALED_KEYS, tenantId).insert(record)
    return { id: record.thumbprint, publicJwk, store }
  }

  /** A fresh Bls12381G2 key, sealed at once and stored. */
  async createBbsKey(tenantId: string): Promise<{ id: string; publicJwk: BbsPublicJwk }> {
    const { secretKey, publicKey } = await generateBbsKey()
    let record: SealedKeyRecord
    try {
      record = this.#recordOf(tenantId, 'Bls12381G2', secretKey, bbsPublicJwk(publicKey))
    } finally {
      secretKey.fill(0)
    }
    await tenantCollectionOf(this.storage, SEALED_KEYS, tenantId).insert(record)
    return { id: record.thumbprint, publicJwk: bbsPublicJwk(publicKey) }
  }

  #recordOf(tenantId: string, type: SealedKeyRecord['type'], privateKey: Uint8Array, publicJwk: PublicJwk | BbsPublicJwk): SealedKeyRecord {
    const thumbprint = jwkThumbprint(publicJwk)
    const id = sealedKeyId(tenantId, thumbprint)
    const privateKeyEnvelope = this.keyring.seal(privateKey, secretContext(SEALED_KEYS.name, { tenantId, id }, 'privateKey'))
    return { id, tenantId, thumbprint, type, publicJwk, privateKey: privateKeyEnvelope, createdAt: this.now() }
  }

  /**
   * Seals a private key made elsewhere in the keys layer (a BIP44 derivation): idempotent — a
   * key the tenant already holds keeps its record. The caller wipes `privateKey`.
   */
  async importKey(tenantId: string, type: KeyType, privateKey: Uint8Array): Promise<{ id: string; publicJwk: PublicJwk }> {
    const publicJwk = CURVES[type].publicJwk(privateKey)
    const record = this.#recordOf(tenantId, type, privateKey, publicJwk)
    const { thumbprint } = record
    const keys = tenantCollectionOf(this.storage, SEALED_KEYS, tenantId)
    if (await keys.get(record.id)) return { id: thumbprint, publicJwk }
    try {
      await keys.insert(record)
    } catch (err) {
      if (!(err instanceof UniqueConstraintError)) throw err
    }
    return { id: thumbprint, publicJwk }
  }

  /** The tenant's key: its record, read once, gives the public JWK and the envelope its signer opens. */
  async find(tenantId: string, thumbprint: string): Promise<BackendKey | undefined> {
    const record = await tenantCollectionOf(this.storage, SEALED_KEYS, tenantId).get(sealedKeyId(tenantId, thumbprint))
    if (!record) return undefined
    if (record.publicJwk.crv === 'Bls12381G2') {
      const bbsPublicJwk = record.publicJwk
      return { bbsPublicJwk, signBbs: (header, messages) => this.#signBbs(record, bbsPublicJwk, header, messages) }
    }
    return { publicJwk: record.publicJwk, sign: async (request) => this.#sign(record, request) }
  }

  async #signBbs(record: SealedKeyRecord, publicJwk: BbsPublicJwk, header: Uint8Array, messages: readonly Uint8Array[]) {
    const secretKey = this.keyring.open(record.privateKey, secretContext(SEALED_KEYS.name, record, 'privateKey'))
    try {
      return await bbsSign(secretKey, Buffer.from(publicJwk.x, 'base64url'), header, messages)
    } finally {
      secretKey.fill(0)
    }
  }

  #sign(record: SealedKeyRecord, request: SignRequest): Uint8Array {
    const privateKey = this.keyring.open(record.privateKey, secretContext(SEALED_KEYS.name, record, 'privateKey'))
    try {
      if (request.digest !== undefined) return signRecoverableDigest(privateKey, request.digest)
      return CURVES[record.type as KeyType].sign(privateKey, request.alg, request.data, record.publicJwk as PublicJwk)
    } finally {
      privateKey.fill(0)
    }
  }

  async destroyKeys(tx: StorageAdapter, tenantId: string, thumbprints: readonly string[]): Promise<void> {
    const keys = tenantCollectionOf(tx, SEALED_KEYS, tenantId)
    for (const thumbprint of thumbprints) await keys.delete(sealedKeyId(tenantId, thumbprint))
  }
}

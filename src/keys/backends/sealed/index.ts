/**
 * The `sealed` key backend (keyManagement `ECS`): keys generated in this process, their private
 * halves kept only as keyring envelopes in the `keys` collection, bound to their tenant and
 * thumbprint. A signature opens the envelope, signs and wipes the plaintext.
 */
import { tenantCollectionOf } from '../../../storage/declaration.js'
import { UniqueConstraintError, type StorageAdapter } from '../../../storage/port.js'
import type { Keyring } from '../../keyring.js'
import type { KeyType, PublicJwk } from '../../key-types.js'
import type { KeyBackend, SignRequest } from '../../port.js'
import { secretContext } from '../../secret-context.js'
import { jwkThumbprint } from '../../thumbprint.js'
import { CURVES, signRecoverableDigest } from '../../types/index.js'
import { SEALED_KEYS, sealedKeyId, type SealedKeyRecord } from './records.js'

export { SEALED_KEYS, sealedKeyId, type SealedKeyRecord } from './records.js'

export class SealedKeyBackend implements KeyBackend {
  constructor(
    private readonly storage: StorageAdapter,
    private readonly keyring: Keyring,
    private readonly now: () => number = Date.now,
  ) {}

  async createKey(tenantId: string, type: KeyType): Promise<{ id: string; publicJwk: PublicJwk }> {
    const privateKey = CURVES[type].generate()
    try {
      return await this.importKey(tenantId, type, privateKey)
    } finally {
      privateKey.fill(0)
    }
  }

  /**
   * Seals a private key made elsewhere in the keys layer (a BIP44 derivation): idempotent — a
   * key the tenant already holds keeps its record. The caller wipes `privateKey`.
   */
  async importKey(tenantId: string, type: KeyType, privateKey: Uint8Array): Promise<{ id: string; publicJwk: PublicJwk }> {
    const publicJwk = CURVES[type].publicJwk(privateKey)
    const thumbprint = jwkThumbprint(publicJwk)
    const id = sealedKeyId(tenantId, thumbprint)
    const keys = tenantCollectionOf(this.storage, SEALED_KEYS, tenantId)
    if (await keys.get(id)) return { id: thumbprint, publicJwk }
    const record: SealedKeyRecord = {
      id,
      tenantId,
      thumbprint,
      type,
      publicJwk,
      privateKey: this.keyring.seal(privateKey, secretContext(SEALED_KEYS.name, { tenantId, id }, 'privateKey')),
      createdAt: this.now(),
    }
    try {
      await keys.insert(record)
    } catch (err) {
      if (!(err instanceof UniqueConstraintError)) throw err
    }
    return { id: thumbprint, publicJwk }
  }

  async sign(request: SignRequest & { id: string }): Promise<Uint8Array> {
    const record = await tenantCollectionOf(this.storage, SEALED_KEYS, request.tenantId).get(sealedKeyId(request.tenantId, request.id))
    if (!record) throw new Error(`sealed key ${request.id} vanished while signing`)
    const privateKey = this.keyring.open(record.privateKey, secretContext(SEALED_KEYS.name, record, 'privateKey'))
    try {
      if (request.digest !== undefined) return signRecoverableDigest(privateKey, request.digest)
      return CURVES[record.type].sign(privateKey, request.alg, request.data)
    } finally {
      privateKey.fill(0)
    }
  }

  async publicKey(tenantId: string, thumbprint: string): Promise<PublicJwk | undefined> {
    return (await tenantCollectionOf(this.storage, SEALED_KEYS, tenantId).get(sealedKeyId(tenantId, thumbprint)))?.publicJwk
  }
}

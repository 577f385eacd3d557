/**
 * A stand-in for a cloud KMS in docs/keys.md's backend example: P-256 keys held here, public keys answered as
 * SubjectPublicKeyInfo (DER), signatures of a SHA-256 digest answered in DER — what AWS KMS's GetPublicKey and Sign
 * (`ECDSA_SHA_256`, `MessageType: DIGEST`) answer. `outage()` makes every call fail as a network error would, until
 * the function it returns is called.
 */
import { createPublicKey } from 'node:crypto'
import { randomUUID } from 'node:crypto'
import { p256 } from '@noble/curves/nist.js'

export interface InMemoryKms {
  createKey(spec: 'ECC_NIST_P256'): Promise<string>
  getPublicKey(kmsKeyId: string): Promise<Uint8Array>
  sign(kmsKeyId: string, digest: Uint8Array): Promise<Uint8Array>
  /** Every call fails (`ECONNREFUSED`) until the returned function is called. */
  outage(): () => void
}

export function inMemoryKms(): InMemoryKms {
  const keys = new Map<string, Uint8Array>()
  let online = true
  const reachable = () => {
    if (!online) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4566'), { name: 'NetworkingError', code: 'ECONNREFUSED' })
  }
  return {
    async createKey() {
      reachable()
      const id = randomUUID()
      keys.set(id, p256.utils.randomSecretKey())
      return id
    },
    async getPublicKey(kmsKeyId) {
      reachable()
      const point = p256.getPublicKey(keys.get(kmsKeyId)!, false)
      const jwk = {
        kty: 'EC',
        crv: 'P-256',
        x: Buffer.from(point.subarray(1, 33)).toString('base64url'),
        y: Buffer.from(point.subarray(33)).toString('base64url'),
      }
      return new Uint8Array(createPublicKey({ key: jwk, format: 'jwk' }).export({ format: 'der', type: 'spki' }))
    },
    async sign(kmsKeyId, digest) {
      reachable()
      return p256.sign(digest, keys.get(kmsKeyId)!, { prehash: false, format: 'der' })
    },
    outage() {
      online = false
      return () => {
        online = true
      }
    },
  }
}

/**
 * The caches of imported verification keys (src/proofs/data-integrity/key-cache.ts, used by the bound method and the
 * library verifiers): bounded, least recently used dropped first, failures not kept; and keyed by the whole method,
 * key material included — a did:web document whose `#key-1` is rotated verifies with the new key, never the cached old
 * one, and a key differing in one byte is not taken for the cached one. Verified in this thread and in the pool's
 * worker (JCS steps over an `inlineMaxNodes: 0` pool), each with its own caches.
 */
import { generateKeyPairSync, sign as nodeSign, type KeyObject } from 'node:crypto'
import { base58, base64urlnopad } from '@scure/base'
import type { DIDDocument } from 'did-resolver'
import { afterAll, describe, expect, it } from 'vitest'
import { DATA_INTEGRITY_SUITES, type DataIntegritySuite, type JsonLdDocument } from '../../../src/proofs/data-integrity/index.js'
import { PromiseLru } from '../../../src/proofs/data-integrity/key-cache.js'
import type { JoseSigner } from '../../../src/proofs/data-integrity/key-signer.js'
import { DEFAULT_JSONLD_LIMITS } from '../../../src/proofs/jsonld/bounds.js'
import { CanonicalizationPool } from '../../../src/proofs/jsonld/canonicalization-pool.js'
import { fixedResolver } from './helpers.js'

describe('PromiseLru', () => {
  const counting = () => {
    const made: string[] = []
    return { made, make: (key: string) => () => (made.push(key), Promise.resolve(key.toUpperCase())) }
  }

  it('keeps at most maxEntries, dropping the least recently used first', async () => {
    const lru = new PromiseLru<string>(2)
    const { made, make } = counting()
    for (const key of ['a', 'b', 'a', 'c']) expect(await lru.get(key, make(key))).toBe(key.toUpperCase())
    expect(lru.size).toBe(2)
    expect(made).toEqual(['a', 'b', 'c'])
    await lru.get('a', make('a'))
    await lru.get('b', make('b'))
    expect(made).toEqual(['a', 'b', 'c', 'b'])
    expect(lru.size).toBe(2)
  })

  it('forgets a rejected value, and does not keep a key over maxKeyLength', async () => {
    const lru = new PromiseLru<string>(4, 8)
    await expect(lru.get('bad', () => Promise.reject(new Error('no key')))).rejects.toThrow('no key')
    expect(lru.size).toBe(0)
    expect(await lru.get('bad', () => Promise.resolve('now'))).toBe('now')
    const { made, make } = counting()
    await lru.get('123456789', make('123456789'))
    await lru.get('123456789', make('123456789'))
    expect(made).toHaveLength(2)
    expect(lru.size).toBe(1)
  })
})

/** A key pair of `type`, its Multikey `publicKeyMultibase` and a JOSE signer of its private half. */
function keyPair(type: 'P-256' | 'Ed25519'): { publicKeyMultibase: string; signer: JoseSigner } {
  const { privateKey, publicKey } = type === 'P-256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519')
  const jwk = publicKey.export({ format: 'jwk' })
  const x = base64urlnopad.decode(jwk.x!)
  const bytes = type === 'P-256' ? [0x80, 0x24, (base64urlnopad.decode(jwk.y!).at(-1)! & 1) === 1 ? 3 : 2, ...x] : [0xed, 0x01, ...x]
  const sign = (key: KeyObject, data: Uint8Array) =>
    type === 'P-256' ? nodeSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }) : nodeSign(null, data, key)
  return {
    publicKeyMultibase: `z${base58.encode(Uint8Array.from(bytes))}`,
    signer: { keyType: type, sign: async (_alg, data) => new Uint8Array(sign(privateKey, data)) },
  }
}

const DID = 'did:web:issuer.example'
const METHOD = `${DID}#key-1`

/** The issuer's did:web document listing `publicKeyMultibase` as `#key-1`. */
const documentWith = (publicKeyMultibase: string): DIDDocument => ({
  '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
  id: DID,
  verificationMethod: [{ id: METHOD, type: 'Multikey', controller: DID, publicKeyMultibase }],
  assertionMethod: [METHOD],
})

/** `publicKeyMultibase` with its last key byte changed. */
function changedByte(publicKeyMultibase: string): string {
  const bytes = base58.decode(publicKeyMultibase.slice(1))
  bytes[bytes.length - 1] ^= 0x01
  return `z${base58.encode(bytes)}`
}

let serial = 0
const credential = (): JsonLdDocument => ({
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  id: `urn:uuid:00000000-0000-4000-8000-${String(++serial).padStart(12, '0')}`,
  type: ['VerifiableCredential'],
  issuer: DID,
  validFrom: '2026-01-01T00:00:00Z',
  credentialSubject: { id: 'did:example:holder', name: 'Alice' },
})

const pool = new CanonicalizationPool({ threads: 1, inlineMaxNodes: 0 })
afterAll(() => pool.close())

const WHOLE: Array<[DataIntegritySuite, 'P-256' | 'Ed25519']> = [
  [DATA_INTEGRITY_SUITES['ecdsa-rdfc-2019'], 'P-256'],
  [DATA_INTEGRITY_SUITES['eddsa-rdfc-2022'], 'Ed25519'],
  [DATA_INTEGRITY_SUITES['ecdsa-jcs-2019'], 'P-256'],
  [DATA_INTEGRITY_SUITES['eddsa-jcs-2022'], 'Ed25519'],
]

describe.each(WHOLE.map(([suite, keyType]) => ({ name: suite.cryptosuite, suite, keyType })))(
  '$name: imported keys are cached by key material',
  ({ suite, keyType }) => {
    for (const where of ['this thread', 'the pool'] as const) {
      it(`a rotated did:web key is never the cached one (${where})`, async () => {
        const hasher = where === 'the pool' ? pool.hasherFor('key-cache', DEFAULT_JSONLD_LIMITS) : undefined
        const [a, b] = [keyPair(keyType), keyPair(keyType)]
        const sign = (key: typeof a) => suite.sign(credential(), key.signer, { verificationMethod: METHOD, hasher })
        const verify = (signed: JsonLdDocument, publicKeyMultibase: string) =>
          suite.verify(signed, signed.proof as Record<string, unknown>, {
            resolver: fixedResolver([documentWith(publicKeyMultibase)]),
            proofPurpose: 'assertionMethod',
            controller: DID,
            hasher,
          })
        const [byA, byB] = [await sign(a), await sign(b)]
        expect(await verify(byA, a.publicKeyMultibase)).toMatchObject({ verified: true, verificationMethod: METHOD })
        expect(await verify(byA, b.publicKeyMultibase)).toMatchObject({ verified: false })
        expect(await verify(byB, b.publicKeyMultibase)).toMatchObject({ verified: true })
        expect(await verify(byB, a.publicKeyMultibase)).toMatchObject({ verified: false })
        expect(await verify(byA, changedByte(a.publicKeyMultibase))).toMatchObject({ verified: false })
        expect(await verify(byA, a.publicKeyMultibase)).toMatchObject({ verified: true })
      })
    }
  },
)

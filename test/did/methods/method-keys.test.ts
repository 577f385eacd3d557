/**
 * `jwkOfMethod`, the key a DID method reads from a verification method (controlling keys, the `kid` of
 * wallet-signed JWTs): a `publicKeyJwk` of a key type didvault signs with, or the `publicKeyMultibase` of a
 * `Multikey` (did:key's methods, and did:web's P-256 and Ed25519 keys) — the multibase values written by
 * @digitalbazaar's multikey libraries for P-256 and Ed25519, and the did:key spelling for secp256k1; anything
 * else (another codec, a malformed or over-long value, a point off the curve) gives no key rather than an error.
 */
import { base58 } from '@scure/base'
import { describe, expect, it } from 'vitest'
import { jwkOfMethod } from '../../../src/did/methods/index.js'
import type { PublicJwk } from '../../../src/keys/key-types.js'
import { didKeyOf, holderKey, type HolderKeyType } from '../../helpers/key-holders.js'
import { multibaseOfJwk } from '../../helpers/multikey-of-jwk.js'

const DID = 'did:web:issuer.example'
const multikey = (publicKeyMultibase: string) => ({ id: `${DID}#key-0`, type: 'Multikey', controller: DID, publicKeyMultibase })
/** A fresh key of `type` as a public JWK. */
const publicJwkOf = (type: HolderKeyType) => holderKey(type).jwk as unknown as PublicJwk

describe('jwkOfMethod', () => {
  for (const type of ['P-256', 'Ed25519'] as const) {
    it(`reads a ${type} Multikey as @digitalbazaar's multikey library writes it`, async () => {
      const jwk = publicJwkOf(type)
      expect(jwkOfMethod(multikey(await multibaseOfJwk(jwk)))).toEqual(jwk)
    })
  }

  it('reads a secp256k1 Multikey as did:key spells it (multicodec e701, compressed point)', () => {
    const { jwk, publicKey } = holderKey('secp256k1')
    expect(jwkOfMethod(multikey(didKeyOf('secp256k1', publicKey).slice('did:key:'.length)))).toEqual(jwk)
  })

  it('still reads a publicKeyJwk (JsonWebKey2020), keeping only the public members', () => {
    for (const type of ['secp256k1', 'P-256', 'Ed25519'] as HolderKeyType[]) {
      const jwk = publicJwkOf(type)
      const method = { id: `${DID}#key-0`, type: 'JsonWebKey2020', controller: DID, publicKeyJwk: { ...jwk, kid: 'k', use: 'sig' } }
      expect(jwkOfMethod(method)).toEqual(jwk)
    }
  })

  it('gives no key for another codec, a malformed, over-long or off-curve value, or publicKeyMultibase outside a Multikey', () => {
    const { publicKey } = holderKey('P-256')
    const x25519 = `z${base58.encode(Uint8Array.from([0xec, 0x01, ...new Uint8Array(32).fill(9)]))}`
    const offCurve = `z${base58.encode(Uint8Array.from([0x80, 0x24, 0x02, ...new Uint8Array(32).fill(0xff)]))}`
    const p256 = didKeyOf('P-256', publicKey).slice('did:key:'.length)
    for (const value of [x25519, offCurve, 'u' + p256.slice(1), 'z0OIl', `${p256}${'1'.repeat(40)}`, '']) {
      expect(jwkOfMethod(multikey(value)), value).toBeUndefined()
    }
    expect(jwkOfMethod({ ...multikey(p256), type: 'Ed25519VerificationKey2020' })).toBeUndefined()
  })
})

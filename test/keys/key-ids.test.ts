/**
 * Key ids, what the access policy compares: a secp256k1 key is its EIP-55 address, any other key its RFC 9278 JWK
 * thumbprint URI (held to RFC 9278's example, the URI of RFC 7638's example key). One key spelled in every form a DID
 * document gives it — a JWK, did:key's Multikey, did:jwk's JsonWebKey2020, a hex key — has one key id; another key has
 * another.
 */
import { describe, expect, it } from 'vitest'
import { JWK_THUMBPRINT_URI, keyIdOfJwk } from '../../src/keys/key-ids.js'
import type { PublicJwk } from '../../src/keys/key-types.js'
import { authenticationKeyIds, keyIdOfMethod } from '../../src/proofs/method-key-ids.js'
import { didMethodNamed } from '../../src/did/methods/index.js'
import { addressOf } from '../../src/keys/secp256k1.js'
import { didJwkOf, didKeyOf, holderKey, type HolderKeyType } from '../helpers/key-holders.js'

/** RFC 7638 §3.1's example key; RFC 9278 §3 gives its thumbprint URI. */
const RFC7638_KEY = {
  kty: 'RSA',
  n:
    '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMs' +
    'tn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajr' +
    'n1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
  e: 'AQAB',
}

describe('key ids', () => {
  it('an RFC 9278 thumbprint URI for a key that is not secp256k1 (the RFC’s example)', () => {
    expect(keyIdOfJwk(RFC7638_KEY as unknown as PublicJwk)).toBe(
      'urn:ietf:params:oauth:jwk-thumbprint:sha-256:NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
    )
  })

  it.each(['secp256k1', 'P-256', 'Ed25519'] as HolderKeyType[])(
    '%s: the JWK, did:key’s and did:jwk’s authentication method name one key id; another key another',
    async (type) => {
      const { publicKey, jwk } = holderKey(type)
      const id = keyIdOfJwk(jwk as unknown as PublicJwk)
      if (type === 'secp256k1') expect(id).toBe(addressOf(publicKey))
      else expect(id.startsWith(JWK_THUMBPRINT_URI)).toBe(true)
      for (const [method, did] of [
        [didMethodNamed('key')!, didKeyOf(type, publicKey)],
        [didMethodNamed('jwk')!, didJwkOf(jwk)],
      ] as const) {
        const { didDocument } = await method.resolve(did)
        expect(authenticationKeyIds(didDocument!).map((m) => m.keyId)).toEqual([id])
        // The method's own answer (DidMethod.controllingKeys) names the same key.
        const keys = await method.controllingKeys(did)
        expect(keys.map((k) => keyIdOfJwk(k.publicJwk!))).toEqual([id])
      }
      expect(keyIdOfJwk(holderKey(type).jwk as unknown as PublicJwk)).not.toBe(id)
    },
  )

  it('a secp256k1 key given as hex, or only an address (did:ethr), is its address; an unknown key type has no id', () => {
    const { publicKey } = holderKey('secp256k1')
    const address = addressOf(publicKey)
    const base = { id: 'did:example:a#k', controller: 'did:example:a' }
    expect(
      keyIdOfMethod({ ...base, type: 'EcdsaSecp256k1VerificationKey2019', publicKeyHex: Buffer.from(publicKey).toString('hex') }),
    ).toBe(address)
    expect(
      keyIdOfMethod({ ...base, type: 'EcdsaSecp256k1RecoveryMethod2020', blockchainAccountId: `eip155:1:${address.toLowerCase()}` }),
    ).toBe(address)
    expect(keyIdOfMethod({ ...base, type: 'JsonWebKey2020', publicKeyJwk: { kty: 'RSA', n: 'AQAB', e: 'AQAB' } })).toBeUndefined()
  })
})

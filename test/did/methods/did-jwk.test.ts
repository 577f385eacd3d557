/**
 * did:jwk behind the DID-method port: the did:jwk specification's examples (quartzjer/did-jwk)
 * resolve to the examples' documents exactly; create makes one DID per key, as spelled
 * independently; the default resolver answers did:jwk offline; malformed, private and oversized
 * JWKs resolve to `invalidDid` and never throw. What every method must do (resolve as created,
 * refusals, updates 422) is in conformance.test.ts.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { Resolvable } from 'did-resolver'
import { didMethodNamed, didMethodOf } from '../../../src/did/methods/index.js'
import { ClaimResolvers } from '../../../src/did/named-resolvers.js'
import { didJwkOf, holderKey, type HolderKeyType } from '../../helpers/key-holders.js'
import examples from '../../fixtures/vectors/did-jwk/examples.json' with { type: 'json' }

const didJwk = didMethodNamed('jwk')!
const TYPES: HolderKeyType[] = ['secp256k1', 'P-256', 'Ed25519']
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

describe('did:jwk (DID-method port)', () => {
  it('the specification’s examples (P-256, X25519 with use "enc") resolve to their documents exactly', async () => {
    for (const [name, example] of Object.entries(examples)) {
      // Erratum of the source (SOURCE.md): the P-256 example's `authentication` entry has a stray `$` after `did:jwk:`.
      const expected = JSON.parse(JSON.stringify(example.didDocument).replaceAll('did:jwk:$', 'did:jwk:'))
      expect((await didJwk.resolve(example.did)).didDocument, name).toEqual(expected)
      expect((await didJwk.resolve(example.didUrl)).didDocument, `${name} DID URL`).toEqual(expected)
    }
  })

  it('create: the P-256 example’s key makes the example’s DID; every key type makes the DID of its JWK (crv, kty, x, y)', async () => {
    const example = examples['P-256']
    const jwk = example.didDocument.verificationMethod[0].publicKeyJwk
    expect((await didJwk.create({ publicJwk: jwk as never })).did).toBe(example.did)
    for (const type of TYPES) {
      const key = holderKey(type)
      const created = await didJwk.create({ publicJwk: key.jwk as never })
      expect(created.did, type).toBe(didJwkOf(key.jwk))
      expect(await didJwk.controllingKeys(created.did), type).toEqual([
        { methodId: `${created.did}#0`, publicJwk: expect.objectContaining({ x: key.jwk.x }) },
      ])
    }
  })

  it('the default resolver answers did:jwk offline, never asking the service’s own resolver', async () => {
    const own: Resolvable = { resolve: () => Promise.reject(new Error('own resolver asked')) }
    const resolver = new ClaimResolvers(own).get().resolver
    expect(didMethodOf(examples['P-256'].did)).toBe(didJwk)
    expect((await resolver.resolve(examples['P-256'].didUrl)).didDocument?.id).toBe(examples['P-256'].did)
    expect((await resolver.resolve('did:jwk:e30')).didResolutionMetadata.error).toBe('invalidDid')
  })

  it('malformed, private, off-curve, unknown-curve and oversized JWKs resolve to invalidDid and never throw', async () => {
    const { jwk } = holderKey('P-256')
    for (const identifier of [
      '',
      'e30', // {}
      '!!!',
      b64('not json'),
      b64('[1,2]'),
      b64({ ...jwk, d: 'AAAA' }),
      b64({ ...jwk, use: 'other' }),
      b64({ ...jwk, y: jwk.x }),
      b64({ kty: 'EC', crv: 'P-384', x: jwk.x, y: jwk.y }),
      b64({ kty: 'RSA', n: 'AQAB', e: 'AQAB' }),
      b64({ kty: 'OKP', crv: 'X25519', x: 'AA' }),
      b64({ kty: 'OKP', crv: 'X25519', x: 'A' }),
      b64({ kty: 'OKP', crv: 'Ed25519', x: 'A' }),
      `${b64(jwk)}${'A'.repeat(100_000)}`,
      Buffer.from([0xff, 0xfe, 0x7b, 0x7d]).toString('base64url'),
    ]) {
      const result = await didJwk.resolve(`did:jwk:${identifier}`)
      expect(result.didResolutionMetadata.error, identifier.slice(0, 60)).toBe('invalidDid')
      expect(result.didDocument).toBeNull()
    }
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 200 }), fc.json().map(b64)), async (tail) => {
        const result = await didJwk.resolve(`did:jwk:${tail}`)
        if (result.didDocument === null) expect(result.didResolutionMetadata.error).toBe('invalidDid')
      }),
      { numRuns: 300 },
    )
  })
})

/**
 * did:key through the `default` resolver, offline (didvault's did:key method, `Multikey`
 * documents): the documents of secp256k1 and Ed25519 keys, refusals, and the signing keys
 * JSON-LD verification takes from them. The expected keys were decoded from the DIDs
 * independently (base58btc, then the two-byte multicodec prefix e7 01 / ed 01 removed); the
 * Ed25519 DID's X25519 key agreement key is the did:key specification's own example.
 */
import { describe, expect, it } from 'vitest'
import type { Resolvable } from 'did-resolver'
import { ClaimResolvers } from '../../src/did/named-resolvers.js'
import { signingKeysResolver } from '../../src/proofs/signing-keys.js'

const own: Resolvable = {
  resolve: async (did) => ({
    didResolutionMetadata: { error: 'notFound', message: `own resolver asked for ${did}` },
    didDocument: null,
    didDocumentMetadata: {},
  }),
}
const resolver = new ClaimResolvers(own).get().resolver
const K1 = 'did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme'
const K1_HEX = '03874c15c7fda20e539c6e5ba573c139884c351188799f5458b4b41f7924f235cd'
const ED = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'

describe('did:key (default resolver)', () => {
  it('a secp256k1 key: one method for every relationship, its key the DID’s key', async () => {
    const { didDocument, didResolutionMetadata } = await resolver.resolve(K1)
    expect(didResolutionMetadata.error).toBeUndefined()
    const id = `${K1}#${K1.slice('did:key:'.length)}`
    expect(didDocument).toMatchObject({ id: K1, authentication: [id], assertionMethod: [id] })
    expect(didDocument).toMatchObject({ capabilityInvocation: [id], capabilityDelegation: [id], keyAgreement: [id] })
    expect(didDocument?.verificationMethod).toEqual([
      { id, type: 'Multikey', controller: K1, publicKeyMultibase: K1.slice('did:key:'.length) },
    ])
    // JSON-LD proofs are checked against it as a hex key.
    expect(await signingKeysResolver(resolver)(id)).toEqual([{ publicKeyHex: K1_HEX }])
  })

  it('an Ed25519 key: a Multikey method, and the X25519 key derived from it for keyAgreement; a DID URL resolves to its DID’s document', async () => {
    const { didDocument } = await resolver.resolve(`${ED}#${ED.slice(8)}`)
    expect(didDocument?.id).toBe(ED)
    const id = `${ED}#${ED.slice(8)}`
    const x25519 = 'z6LSj72tK8brWgZja8NLRwPigth2T9QRiG1uH9oKZuKjdh9p'
    expect(didDocument?.verificationMethod).toEqual([
      { id, type: 'Multikey', controller: ED, publicKeyMultibase: ED.slice(8) },
      { id: `${ED}#${x25519}`, type: 'Multikey', controller: ED, publicKeyMultibase: x25519 },
    ])
    expect(didDocument).toMatchObject({ authentication: [id], assertionMethod: [id], keyAgreement: [`${ED}#${x25519}`] })
    // Not a secp256k1 key: no signing key for the secp256k1 suites.
    expect(await signingKeysResolver(resolver)(`${ED}#${ED.slice(8)}`)).toEqual([{}])
  })

  it('refuses other key types, other multibase encodings and garbage; other DIDs go to the service’s own resolver', async () => {
    const error = async (did: string) => (await resolver.resolve(did)).didResolutionMetadata.error
    expect(await error('did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc')).toBe('invalidDid') // X25519: no signing key
    expect(await error(`did:key:u${'A'.repeat(46)}`)).toBe('invalidDid')
    expect(await error('did:key:z0OIl')).toBe('invalidDid')
    expect((await resolver.resolve('did:ethr:dev:0x1111111111111111111111111111111111111111')).didResolutionMetadata.message).toMatch(
      /own resolver asked/,
    )
  })
})

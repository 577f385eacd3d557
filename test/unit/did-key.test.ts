/**
 * did:key resolution, offline: the documents of secp256k1 and Ed25519 keys, and refusals. The
 * expected keys were decoded from the DIDs independently (base58btc, then the two-byte
 * multicodec prefix e7 01 / ed 01 removed).
 */
import { Resolver } from 'did-resolver'
import { describe, expect, it } from 'vitest'
import { didKeyResolver } from '../../src/did/did-key.js'

const resolver = new Resolver({ key: didKeyResolver })
const K1 = 'did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme'
const ED = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'

describe('did:key', () => {
  it('a secp256k1 key: one EcdsaSecp256k1VerificationKey2019 method (compressed publicKeyHex) for every relationship', async () => {
    const { didDocument, didResolutionMetadata } = await resolver.resolve(K1)
    expect(didResolutionMetadata.error).toBeUndefined()
    const id = `${K1}#${K1.slice('did:key:'.length)}`
    expect(didDocument).toEqual({
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/secp256k1-2019/v1'],
      id: K1,
      verificationMethod: [{ id, type: 'EcdsaSecp256k1VerificationKey2019', controller: K1, publicKeyHex: '03874c15c7fda20e539c6e5ba573c139884c351188799f5458b4b41f7924f235cd' }],
      authentication: [id],
      assertionMethod: [id],
      capabilityInvocation: [id],
      capabilityDelegation: [id],
    })
  })

  it('an Ed25519 key: one Ed25519VerificationKey2018 method (publicKeyBase58); a DID URL resolves to its DID’s document', async () => {
    const { didDocument } = await resolver.resolve(`${ED}#${ED.slice(8)}`)
    expect(didDocument?.id).toBe(ED)
    expect(didDocument?.verificationMethod).toEqual([{ id: `${ED}#${ED.slice(8)}`, type: 'Ed25519VerificationKey2018', controller: ED, publicKeyBase58: '48GdbJyVULjHDaBNS6ct9oAGtckZUS5v8asrPzvZ7R1w' }])
  })

  it('refuses other key types, points off the curve, other multibase encodings and garbage', async () => {
    const error = async (did: string) => (await resolver.resolve(did)).didResolutionMetadata.error
    expect(await error('did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc')).toBe('unsupportedPublicKeyType') // X25519
    expect(await error(`${K1.slice(0, -1)}f`)).toBe('invalidDid')
    expect(await error(`did:key:u${'A'.repeat(46)}`)).toBe('invalidDid')
    expect(await error('did:key:z0OIl')).toBe('invalidDid')
  })
})

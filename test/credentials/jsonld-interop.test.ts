/**
 * Interoperability: documents signed by other implementations, verified offline by didvault.
 *
 * - EcdsaKoblitzSignature2016: credentials signed by jolocom-lib 5.0 (test vectors of
 *   jolocom/jolocom-lib, tests/parse/testVectors/signedCredentialData.ts, `signedCredTestVector0`
 *   and `signedCredTestVector2`, with the signer's publicKeyHex from its DID document), and
 *   jolocom-lib's digest vector `emailVerifiableCredentialHash`
 *   (tests/data/credential/signedCredential.data.ts).
 * - EcdsaSecp256k1RecoverySignature2020: the DIF reference suite's signed DID document
 *   (decentralized-identity/EcdsaSecp256k1RecoverySignature2020, docs/unlockedDID.json), four
 *   proofs whose keys are given as JWK, publicKeyHex, ethereumAddress and blockchainAccountId.
 *   Its private keys are part of the signed, published document (test keys).
 */
import { bytesToHex } from '@noble/hashes/utils.js'
import { describe, expect, it } from 'vitest'
import {
  koblitz2016Digest,
  verifyJsonLd,
  verifyKoblitz2016,
  verifyRecovery2020,
  type JsonLdDocument,
  type ProofObject,
  type SigningKey,
  type VerifyOptions,
} from '../../src/proofs/jsonld/index.js'

/** jolocom-lib's default credential context (inline, so it needs no loader). */
const jolocomCredentialContext = {
  id: '@id',
  type: '@type',
  cred: 'https://w3id.org/credentials#',
  schema: 'http://schema.org/',
  dc: 'http://purl.org/dc/terms/',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  sec: 'https://w3id.org/security#',
  Credential: 'cred:Credential',
  issuer: { '@id': 'cred:issuer', '@type': '@id' },
  issued: { '@id': 'cred:issued', '@type': 'xsd:dateTime' },
  claim: { '@id': 'cred:claim', '@type': '@id' },
  credential: { '@id': 'cred:credential', '@type': '@id' },
  expires: { '@id': 'sec:expiration', '@type': 'xsd:dateTime' },
  proof: { '@id': 'sec:proof', '@type': '@id' },
  EcdsaKoblitzSignature2016: 'sec:EcdsaKoblitzSignature2016',
  created: { '@id': 'dc:created', '@type': 'xsd:dateTime' },
  creator: { '@id': 'dc:creator', '@type': '@id' },
  domain: 'sec:domain',
  nonce: 'sec:nonce',
  signatureValue: 'sec:signatureValue',
}

const emailContext = {
  ProofOfEmailCredential: 'https://identity.jolocom.com/terms/ProofOfEmailCredential',
  schema: 'http://schema.org/',
  email: 'schema:email',
}

const postalAddressContext = {
  ProofOfPostalAddressCredential: 'https://identity.jolocom.com/terms/ProofOfPostalAddressCredential',
  schema: 'http://schema.org/',
  addressLine1: 'schema:streetAddress',
  addressLine2: 'schema:streetAddress',
  postalCode: 'schema:postalCode',
  city: 'schema:addressLocality',
  country: 'schema:addressCountry',
}

const DID0 = 'did:jolo:90113fa0a2d8929af684432c8b7bf959543547a0de51f6ef0fee8af3f24438e0'
const DID2 = 'did:jolo:ba8570fa7578a97290bc8fbe4e29ce7226e03d7ec9c6df71fe5583d018d43bf0'

/** jolocom-lib 5.0.2, email credential (`signedCredTestVector0.signedCredential`). */
const jolocomEmailCredential: JsonLdDocument = {
  '@context': [jolocomCredentialContext, emailContext],
  id: 'claimId:52285184ed4555f9',
  issuer: DID0,
  issued: '2020-08-29T13:50:14.705Z',
  type: ['Credential', 'ProofOfEmailCredential'],
  expires: '2021-08-29T13:50:14.701Z',
  proof: {
    created: '2020-08-29T13:50:14.704Z',
    type: 'EcdsaKoblitzSignature2016',
    nonce: '333dfe6167578694',
    signatureValue:
      '970e5d5a1f259011d282d0b462526cfe4c2251dee9e2ebe342d6f5efb395e5d542eff90afa5c4ed76d848a65509d522d5d910530e825f6fa61c45245b867bd16',
    creator: `${DID0}#keys-1`,
  },
  claim: { email: 'Eg', id: DID0 },
  name: 'Email address',
}

/** jolocom-lib 5.0, postal address credential (`signedCredTestVector2.signedCredential`). */
const jolocomPostalCredential: JsonLdDocument = {
  '@context': [jolocomCredentialContext, postalAddressContext],
  id: 'claimId:7024dbc05c363ec0',
  issuer: DID2,
  issued: '2020-08-29T15:01:58.964Z',
  type: ['Credential', 'ProofOfPostalAddressCredential'],
  expires: '2021-08-29T15:01:58.955Z',
  proof: {
    created: '2020-08-29T15:01:58.963Z',
    type: 'EcdsaKoblitzSignature2016',
    nonce: '39f1c6167efbae6b',
    signatureValue:
      '83aa04953c53ad4ef35f9d44005bd65b80889adc22491ff193c373d9bbff0e33282c579ad5ee869e38e9eb666f860077d8208cd6e09ab67aca347dc157800490',
    creator: `${DID2}#keys-1`,
  },
  claim: {
    addressLine1: 'first address line',
    addressLine2: 'second address line',
    city: 'Chisinau',
    postalCode: 53123,
    id: DID2,
  },
  name: 'Postal Address',
}

/** The signers' keys, from their DID documents in the same test vectors. */
const jolocomKeys: VerifyOptions = {
  resolveSigningKeys: async (didUrl) =>
    ({
      [`${DID0}#keys-1`]: [{ publicKeyHex: '03a64e6b95baab43037a682c29ab81d157c485fdd46e281368cfeef10ab7446214' }],
      [`${DID2}#keys-1`]: [{ publicKeyHex: '03805ea8b2ed3eaae3073c267da1c76137202440bcc3bb3eb16b6e1220dfee8ec2' }],
    })[didUrl] ?? [],
}

/** jolocom-lib leaves `name` out of its context, so its canonicalization drops it: the property is not signed. */
function withoutUnsignedName({ name: _name, ...rest }: JsonLdDocument): JsonLdDocument {
  return rest
}

describe('jolocom-lib EcdsaKoblitzSignature2016 credentials', () => {
  it('verifies credentials signed by jolocom-lib once their unsigned `name` is removed', async () => {
    for (const credential of [jolocomEmailCredential, jolocomPostalCredential]) {
      await expect(verifyKoblitz2016(withoutUnsignedName(credential), jolocomKeys)).resolves.toEqual({ verified: true })
    }
  })

  it('refuses them as sent, since their `name` is not covered by the signature (safe mode)', async () => {
    await expect(verifyJsonLd(jolocomEmailCredential, jolocomKeys)).resolves.toMatchObject({
      verified: false,
      error: 'JSON-LD safe mode rejected the document: invalid property ("name")',
    })
  })

  it('does not verify them altered or against the other signer', async () => {
    const altered = { ...withoutUnsignedName(jolocomEmailCredential), claim: { email: 'Eh', id: DID0 } }
    await expect(verifyKoblitz2016(altered, jolocomKeys)).resolves.toMatchObject({ verified: false })
    const swapped = {
      ...withoutUnsignedName(jolocomEmailCredential),
      proof: { ...(jolocomEmailCredential.proof as ProofObject), creator: `${DID2}#keys-1` },
    }
    await expect(verifyKoblitz2016(swapped, jolocomKeys)).resolves.toMatchObject({ verified: false })
  })

  it('computes jolocom-lib’s published digest vector', async () => {
    const issuer = `did:jolo:${'a'.repeat(64)}`
    const credential = {
      '@context': [jolocomCredentialContext, emailContext],
      id: 'claimId:567e6e0c6570a',
      issuer,
      type: ['Credential', 'ProofOfEmailCredential'],
      claim: { email: 'test@jolocom.io', id: `did:jolo:${'f'.repeat(64)}` },
      issued: '1970-01-01T00:00:00.000Z',
      expires: '1971-01-01T00:00:00.000Z',
    }
    const proof = {
      type: 'EcdsaKoblitzSignature2016',
      creator: `${issuer}#keys-1`,
      nonce: '1842fb5f567dd532',
      signatureValue: '',
      created: '1970-01-01T00:00:00.000Z',
    }
    expect(bytesToHex(await koblitz2016Digest(credential, proof))).toBe('b516dc3d9d125efe41dd5bc30b94aa2a9bb8b8676f90dbd8d5d9104d18e6a426')
  })
})

/** docs/unlockedDID.json of the DIF EcdsaSecp256k1RecoverySignature2020 reference suite. */
const difSignedDidDocument: JsonLdDocument = {
  '@context': [
    'https://www.w3.org/ns/did/v1',
    'https://w3id.org/security/suites/secp256k1recovery-2020/v2',
    {
      esrs2020: 'https://identity.foundation/EcdsaSecp256k1RecoverySignature2020#',
      privateKeyJwk: { '@id': 'esrs2020:privateKeyJwk', '@type': '@json' },
      publicKeyHex: 'esrs2020:publicKeyHex',
      privateKeyHex: 'esrs2020:privateKeyHex',
      ethereumAddress: 'esrs2020:ethereumAddress',
    },
  ],
  id: 'did:example:123',
  verificationMethod: [
    {
      id: 'did:example:123#vm-1',
      controller: 'did:example:123',
      type: 'EcdsaSecp256k1RecoveryMethod2020',
      publicKeyJwk: {
        crv: 'secp256k1',
        kid: 'JUvpllMEYUZ2joO59UNui_XYDqxVqiFLLAJ8klWuPBw',
        kty: 'EC',
        x: 'dWCvM4fTdeM0KmloF57zxtBPXTOythHPMm1HCLrdd3A',
        y: '36uMVGM7hnw-N6GnjFcihWE3SkrhMLzzLCdPMXPEXlA',
      },
      privateKeyJwk: {
        crv: 'secp256k1',
        d: 'rhYFsBPF9q3-uZThy7B3c4LDF_8wnozFUAEm5LLC4Zw',
        kid: 'JUvpllMEYUZ2joO59UNui_XYDqxVqiFLLAJ8klWuPBw',
        kty: 'EC',
        x: 'dWCvM4fTdeM0KmloF57zxtBPXTOythHPMm1HCLrdd3A',
        y: '36uMVGM7hnw-N6GnjFcihWE3SkrhMLzzLCdPMXPEXlA',
      },
    },
    {
      id: 'did:example:123#vm-2',
      controller: 'did:example:123',
      type: 'EcdsaSecp256k1RecoveryMethod2020',
      publicKeyHex: '027560af3387d375e3342a6968179ef3c6d04f5d33b2b611cf326d4708badd7770',
      privateKeyHex: 'ae1605b013c5f6adfeb994e1cbb0777382c317ff309e8cc5500126e4b2c2e19c',
    },
    {
      id: 'did:example:123#vm-3',
      controller: 'did:example:123',
      type: 'EcdsaSecp256k1RecoveryMethod2020',
      ethereumAddress: '0xF3beAC30C498D9E26865F34fCAa57dBB935b0D74',
      privateKeyHex: '278a5de700e29faae8e40e366ec5012b5ec63d36ec77e8a2417154cc1d25383f',
    },
    {
      id: 'did:example:123#vm-4',
      controller: 'did:example:123',
      type: 'EcdsaSecp256k1RecoveryMethod2020',
      blockchainAccountId: 'eip155:1:0xa136D6b820E41858b57b0136514e75f4174ceA5f',
      privateKeyHex: '0b622f72d0cb4f6d7eebfb9d97375aec891c9836fcf813310069cfffdc7811d6',
    },
  ],
  authentication: ['did:example:123#vm-1', 'did:example:123#vm-2', 'did:example:123#vm-3', 'did:example:123#vm-4'],
  assertionMethod: ['did:example:123#vm-1', 'did:example:123#vm-2', 'did:example:123#vm-3', 'did:example:123#vm-4'],
  capabilityDelegation: ['did:example:123#vm-1', 'did:example:123#vm-2', 'did:example:123#vm-3', 'did:example:123#vm-4'],
  capabilityInvocation: ['did:example:123#vm-1', 'did:example:123#vm-2', 'did:example:123#vm-3', 'did:example:123#vm-4'],
  proof: [
    {
      type: 'EcdsaSecp256k1RecoverySignature2020',
      created: '2021-12-18T00:15:50Z',
      verificationMethod: 'did:example:123#vm-1',
      proofPurpose: 'assertionMethod',
      jws: 'eyJhbGciOiJFUzI1NkstUiIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19..wqa2of4I6YAD6nVFWE_FO2j520M4qxIGQNo11XAoI5BJs4oK_rvvVlaCkYUbALnr7L4XclV6E2aRV2ZnTo7QhwA',
    },
    {
      type: 'EcdsaSecp256k1RecoverySignature2020',
      created: '2021-12-18T00:15:50Z',
      verificationMethod: 'did:example:123#vm-2',
      proofPurpose: 'assertionMethod',
      jws: 'eyJhbGciOiJFUzI1NkstUiIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19..3fgzVkmRYVtv-1gCOHULSEDvLDca5-8U_4KP7ZPLS2UrHXq35IR4L9X4BgXuCSj3Z5Rl8iCLjgl4RR20ulqa_QA',
    },
    {
      type: 'EcdsaSecp256k1RecoverySignature2020',
      created: '2021-12-18T00:15:50Z',
      verificationMethod: 'did:example:123#vm-3',
      proofPurpose: 'assertionMethod',
      jws: 'eyJhbGciOiJFUzI1NkstUiIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19..MHJwfl-iADPjHP2XeP2bRVOg5sRckS7jHmE8rWH8c_MlEMc5S105eQZ_2FK0LkUoWbxO5F9Ohi8njd0ocB_b-gA',
    },
    {
      type: 'EcdsaSecp256k1RecoverySignature2020',
      created: '2021-12-18T00:15:51Z',
      verificationMethod: 'did:example:123#vm-4',
      proofPurpose: 'assertionMethod',
      jws: 'eyJhbGciOiJFUzI1NkstUiIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19..o_Ir7DwYMkKV1hGhGUT6ie1q9DSBmIUDw_KTW229czwYWGtnpnFLK3Hq8UYGqcRxtAHnvy6OYmP5zLPGV6jlvQE',
    },
  ],
}

/** Signing keys of the document's own verification methods (a JWK becomes its uncompressed hex). */
const difKeys: VerifyOptions = {
  resolveSigningKeys: async (didUrl) => {
    const methods = difSignedDidDocument.verificationMethod as Array<Record<string, unknown>>
    const method = methods.find((m) => m.id === didUrl)
    if (!method) return []
    const jwk = method.publicKeyJwk as { x: string; y: string } | undefined
    const key: SigningKey = {
      publicKeyHex: jwk
        ? '04' + Buffer.from(jwk.x, 'base64url').toString('hex') + Buffer.from(jwk.y, 'base64url').toString('hex')
        : (method.publicKeyHex as string | undefined),
      ethereumAddress: method.ethereumAddress as string | undefined,
      blockchainAccountId: method.blockchainAccountId as string | undefined,
    }
    return [key]
  },
}

describe('DIF EcdsaSecp256k1RecoverySignature2020 reference document', () => {
  it('verifies all four proofs (JWK, publicKeyHex, ethereumAddress, blockchainAccountId keys)', async () => {
    const result = await verifyJsonLd(difSignedDidDocument, difKeys)
    expect(result.proofs.map((p) => [p.verificationMethod, p.verified])).toEqual([
      ['did:example:123#vm-1', true],
      ['did:example:123#vm-2', true],
      ['did:example:123#vm-3', true],
      ['did:example:123#vm-4', true],
    ])
    expect(result.verified).toBe(true)
  })

  it('does not verify it altered or with a proof attributed to another key', async () => {
    await expect(verifyRecovery2020({ ...difSignedDidDocument, id: 'did:example:124' }, difKeys)).resolves.toMatchObject({
      verified: false,
    })
    const [first, second] = difSignedDidDocument.proof as ProofObject[]
    const misattributed = { ...difSignedDidDocument, proof: { ...second, verificationMethod: 'did:example:123#vm-3' } }
    await expect(verifyRecovery2020(misattributed, difKeys)).resolves.toMatchObject({ verified: false })
    await expect(verifyRecovery2020({ ...difSignedDidDocument, proof: first }, difKeys)).resolves.toEqual({ verified: true })
  })
})

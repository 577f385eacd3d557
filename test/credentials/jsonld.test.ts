import http from 'node:http'
import https from 'node:https'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { IdentityError } from '../../src/errors.js'
import type { DigestSigner } from '../../src/keys/signer.js'
import {
  CREDENTIALS_V1_URL,
  CREDENTIALS_V2_URL,
  JsonLdProcessingError,
  JsonLdProofError,
  KOBLITZ_2016,
  RECOVERY_2020,
  SECP256K1_RECOVERY_2020_V2_URL,
  SECURITY_V2_URL,
  UnknownContextError,
  addProof,
  canonize,
  documentLoader,
  getContext,
  koblitz2016Digest,
  registerContext,
  signJsonLd,
  signKoblitz2016,
  signRecovery2020,
  verifyJsonLd,
  verifyKoblitz2016,
  verifyRecovery2020,
  type JsonLdDocument,
  type ProofObject,
  type SigningKey,
  type VerifyOptions,
} from '../../src/proofs/jsonld/index.js'

const N = secp256k1.Point.Fn.ORDER

/** A DigestSigner over a raw key; `highS` makes it return the malleable twin of each signature. */
function testSigner(privateKeyHex: string, { highS = false } = {}): DigestSigner {
  const privateKey = hexToBytes(privateKeyHex)
  const publicKey = secp256k1.getPublicKey(privateKey, false)
  return {
    publicKeyHex: bytesToHex(publicKey),
    address: addressOf(publicKey),
    async sign(digest) {
      const sig = secp256k1.sign(digest, privateKey, { prehash: false, format: 'recovered' })
      const recovery = sig[0] as 0 | 1
      const r = sig.slice(1, 33)
      const s = sig.slice(33, 65)
      if (!highS) return { r, s, recovery }
      return { r, s: numberToBytesBE(N - bytesToNumberBE(s), 32), recovery: (recovery ^ 1) as 0 | 1 }
    },
  }
}

function addressOf(uncompressedPublicKey: Uint8Array): string {
  return '0x' + bytesToHex(keccak_256(uncompressedPublicKey.subarray(1)).subarray(12))
}

const alice = testSigner('0c5d4e2f1a3b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f')
const bob = testSigner('1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f901')
const ALICE_DID = `did:ethr:dev:${alice.address}`
const BOB_DID = `did:ethr:dev:${bob.address}`
const ALICE_KEY = `did:ethr:dev:${alice.address}#controller`
/** Bob's key as a delegate of Alice's DID: a second key of the issuer. */
const ALICE_DELEGATE = `did:ethr:dev:${alice.address}#delegate-1`
const BOB_KEY = `did:ethr:dev:${bob.address}#controller`

/** A resolver that knows one DID URL. */
function resolverFor(didUrl: string, keys: SigningKey[]): VerifyOptions {
  return { resolveSigningKeys: async (url) => (url === didUrl ? keys : []) }
}
const byPublicKey = resolverFor(ALICE_KEY, [{ publicKeyHex: alice.publicKeyHex }])
const byAddress = resolverFor(ALICE_KEY, [{ ethereumAddress: alice.address.toUpperCase().replace('0X', '0x') }])
const byAccountId = resolverFor(ALICE_KEY, [{ blockchainAccountId: `eip155:1:${alice.address}` }])
const bothKeys: VerifyOptions = {
  resolveSigningKeys: async (url) =>
    url === ALICE_KEY
      ? [{ publicKeyHex: alice.publicKeyHex }]
      : url === ALICE_DELEGATE || url === BOB_KEY
        ? [{ ethereumAddress: bob.address }]
        : [],
}

function credential(): JsonLdDocument {
  return {
    '@context': [CREDENTIALS_V1_URL, { ex: 'https://example.com/vocab#', email: 'ex:email', age: 'ex:age', member: 'ex:member' }],
    id: 'did:ethr:dev:0x4d2a1b7b5e9d3e0c0b3b8b5a6f1c2d3e4f5a6b7c',
    type: ['VerifiableCredential'],
    issuer: `did:ethr:dev:${alice.address}`,
    issuanceDate: '2024-05-01T10:00:00Z',
    expirationDate: '2034-05-01T10:00:00Z',
    credentialSubject: { id: `did:ethr:dev:${bob.address}`, email: 'bob@example.com', age: 42, member: true },
  }
}

const fixed = { creator: ALICE_KEY, created: new Date('2024-05-01T10:00:00.000Z'), nonce: '00aa11bb22cc33dd' }

function proofOf(document: JsonLdDocument): ProofObject {
  return document.proof as ProofObject
}

function withProof(document: JsonLdDocument, changes: ProofObject): JsonLdDocument {
  return { ...document, proof: { ...proofOf(document), ...changes } }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('EcdsaKoblitzSignature2016', () => {
  it('signs a W3C VC with the spec proof shape and verifies it by public key, address and account id', async () => {
    const signed = await signKoblitz2016(credential(), alice, { ...fixed, domain: 'example.com' })
    const proof = proofOf(signed)
    expect(Object.keys(proof)).toEqual(['type', 'creator', 'created', 'nonce', 'domain', 'signatureValue'])
    expect(proof).toMatchObject({ type: KOBLITZ_2016, creator: ALICE_KEY, created: '2024-05-01T10:00:00.000Z', nonce: fixed.nonce })
    expect(proof.signatureValue).toMatch(/^[0-9a-f]{128}$/)
    expect(signed['@context']).toEqual(credential()['@context'])

    await expect(verifyKoblitz2016(signed, byPublicKey)).resolves.toEqual({ verified: true })
    await expect(verifyKoblitz2016(signed, byAddress)).resolves.toEqual({ verified: true })
    await expect(verifyKoblitz2016(signed, byAccountId)).resolves.toEqual({ verified: true })
    await expect(verifyJsonLd(signed, byPublicKey)).resolves.toMatchObject({ verified: true })
  })

  it('generates a nonce when none is given', async () => {
    const a = proofOf(await signKoblitz2016(credential(), alice, { creator: ALICE_KEY }))
    const b = proofOf(await signKoblitz2016(credential(), alice, { creator: ALICE_KEY }))
    expect(a.nonce).toMatch(/^[0-9a-f]{16}$/)
    expect(a.nonce).not.toBe(b.nonce)
  })

  it('rejects a tampered claim, proof option or signature', async () => {
    const signed = await signKoblitz2016(credential(), alice, fixed)
    const subject = signed.credentialSubject as Record<string, unknown>
    const tamperedClaim = { ...signed, credentialSubject: { ...subject, age: 43 } }
    const tamperedCreated = withProof(signed, { created: '2024-05-01T10:00:01.000Z' })
    const tamperedNonce = withProof(signed, { nonce: '00aa11bb22cc33de' })
    const sig = proofOf(signed).signatureValue as string
    const tamperedSignature = withProof(signed, { signatureValue: sig.slice(0, 10) + (sig[10] === '0' ? '1' : '0') + sig.slice(11) })

    // same JSON claims, other meaning: the signature covers the RDF statements, not the text
    const [credentials, vocabulary] = signed['@context'] as [string, Record<string, string>]
    const tamperedContext = { ...signed, '@context': [credentials, { ...vocabulary, ex: 'https://evil.example/vocab#' }] }

    for (const document of [tamperedClaim, tamperedCreated, tamperedNonce, tamperedSignature, tamperedContext]) {
      for (const options of [byPublicKey, byAddress]) {
        const result = await verifyKoblitz2016(document, options)
        expect(result.verified).toBe(false)
        expect(result.error).toMatch(/does not match|not low-S/)
      }
    }
  })

  it('rejects a signature by another key and a creator without keys', async () => {
    const byBob = await signKoblitz2016(credential(), bob, fixed) // claims alice's key
    await expect(verifyKoblitz2016(byBob, byPublicKey)).resolves.toEqual({
      verified: false,
      error: `proof 0: signature does not match any key of ${ALICE_KEY}`,
    })
    await expect(verifyKoblitz2016(byBob, byAddress)).resolves.toMatchObject({ verified: false })
    const unknown = await verifyKoblitz2016(byBob, resolverFor('did:ethr:dev:0x00#controller', []))
    expect(unknown).toEqual({ verified: false, error: `proof 0: no signing keys found for ${ALICE_KEY}` })
  })

  it('normalises a high-S signer to low-S and rejects a high-S signatureValue', async () => {
    const lowS = await signKoblitz2016(credential(), alice, fixed)
    const fromHighS = await signKoblitz2016(
      credential(),
      testSigner('0c5d4e2f1a3b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f', { highS: true }),
      fixed,
    )
    expect(proofOf(fromHighS).signatureValue).toBe(proofOf(lowS).signatureValue)
    await expect(verifyKoblitz2016(fromHighS, byAddress)).resolves.toEqual({ verified: true })

    const sig = proofOf(lowS).signatureValue as string
    const highS = sig.slice(0, 64) + bytesToHex(numberToBytesBE(N - bytesToNumberBE(hexToBytes(sig.slice(64))), 32))
    for (const options of [byPublicKey, byAddress]) {
      await expect(verifyKoblitz2016(withProof(lowS, { signatureValue: highS }), options)).resolves.toEqual({
        verified: false,
        error: 'proof 0: signature is not low-S (malleable form rejected)',
      })
    }
  })

  it('is deterministic: same inputs, same digest and signature, whatever the key order', async () => {
    const proof = { type: KOBLITZ_2016, creator: ALICE_KEY, created: '2024-05-01T10:00:00.000Z', nonce: 'n1' }
    const digest = bytesToHex(await koblitz2016Digest(credential(), proof))
    expect(digest).toMatch(/^[0-9a-f]{64}$/)
    const reordered = Object.fromEntries(Object.entries(credential()).reverse())
    expect(bytesToHex(await koblitz2016Digest(reordered, { ...proof, signatureValue: 'ignored', id: 'urn:x' }))).toBe(digest)
    expect(bytesToHex(await koblitz2016Digest(credential(), { ...proof, nonce: 'n2' }))).not.toBe(digest)

    const a = await signKoblitz2016(credential(), alice, fixed)
    const b = await signKoblitz2016(reordered, alice, fixed)
    expect(proofOf(b).signatureValue).toBe(proofOf(a).signatureValue)
  })

  it('reports malformed proofs as not verified', async () => {
    const signed = await signKoblitz2016(credential(), alice, fixed)
    const cases: Array<[ProofObject, string]> = [
      [{ creator: undefined }, 'proof has no creator'],
      [{ created: undefined }, 'proof has no created date'],
      [{ signatureValue: 'zz' }, 'signatureValue is not 64 bytes of hex (r‖s)'],
    ]
    for (const [changes, error] of cases) {
      await expect(verifyKoblitz2016(withProof(signed, changes), byPublicKey)).resolves.toEqual({
        verified: false,
        error: `proof 0: ${error}`,
      })
    }
    await expect(verifyKoblitz2016(credential(), byPublicKey)).resolves.toEqual({
      verified: false,
      error: 'document has no proof to verify',
    })
  })

  it('validates its signing options', async () => {
    await expect(signKoblitz2016(credential(), alice, { creator: 'did:ethr:dev:0xabc' })).rejects.toBeInstanceOf(JsonLdProofError)
    await expect(signKoblitz2016(credential(), alice, { creator: 'not a did' })).rejects.toThrow(/creator must be a DID URL/)
    await expect(signKoblitz2016(credential(), alice, { creator: ALICE_KEY, created: new Date('nope') })).rejects.toThrow(/created/)
  })
})

describe('EcdsaSecp256k1RecoverySignature2020', () => {
  it('signs with a detached ES256K-R JWS, adding the suite context, and verifies', async () => {
    const signed = await signRecovery2020(credential(), alice, fixed)
    expect(signed['@context']).toEqual([...(credential()['@context'] as unknown[]), SECP256K1_RECOVERY_2020_V2_URL])
    const proof = proofOf(signed)
    expect(proof).toMatchObject({
      type: RECOVERY_2020,
      created: '2024-05-01T10:00:00.000Z',
      verificationMethod: ALICE_KEY,
      proofPurpose: 'assertionMethod',
      nonce: fixed.nonce,
    })
    const [header, payload, signature] = (proof.jws as string).split('.')
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'ES256K-R', b64: false, crit: ['b64'] })
    expect(payload).toBe('')
    expect(Buffer.from(signature, 'base64url')).toHaveLength(65)

    for (const options of [byPublicKey, byAddress, byAccountId]) {
      await expect(verifyRecovery2020(signed, options)).resolves.toEqual({ verified: true })
    }
    // the context is added once
    const again = await signRecovery2020(signed, alice, fixed)
    expect(again['@context']).toEqual(signed['@context'])
  })

  it('rejects tampering, other keys and non-ES256K-R headers', async () => {
    const signed = await signRecovery2020(credential(), alice, fixed)
    const subject = signed.credentialSubject as Record<string, unknown>
    await expect(
      verifyRecovery2020({ ...signed, credentialSubject: { ...subject, email: 'eve@example.com' } }, byAddress),
    ).resolves.toMatchObject({ verified: false })
    await expect(verifyRecovery2020(withProof(signed, { created: '2025-01-01T00:00:00Z' }), byPublicKey)).resolves.toMatchObject({
      verified: false,
    })
    await expect(verifyRecovery2020(signed, resolverFor(ALICE_KEY, [{ publicKeyHex: bob.publicKeyHex }]))).resolves.toMatchObject({
      verified: false,
    })

    const [, , signature] = (proofOf(signed).jws as string).split('.')
    const es256k = Buffer.from(JSON.stringify({ alg: 'ES256K', b64: false, crit: ['b64'] })).toString('base64url')
    await expect(verifyRecovery2020(withProof(signed, { jws: `${es256k}..${signature}` }), byAddress)).resolves.toEqual({
      verified: false,
      error: 'proof 0: jws alg is not ES256K-R',
    })
    await expect(verifyRecovery2020(withProof(signed, { jws: 'abc' }), byAddress)).resolves.toEqual({
      verified: false,
      error: 'proof 0: jws is not a detached JWS',
    })
  })
})

describe('EcdsaSecp256k1RecoverySignature2020: the recovery bit', () => {
  it('is a hint: a proof with the other bit verifies alike whether its key is known or recovered; a bit out of range is refused', async () => {
    const signed = await signRecovery2020(credential(), alice, fixed)
    const [header, , signature] = (proofOf(signed).jws as string).split('.')
    const bytes = Buffer.from(signature, 'base64url')
    const withV = (v: number) =>
      withProof(signed, { jws: `${header}..${Buffer.concat([bytes.subarray(0, 64), Buffer.of(v)]).toString('base64url')}` })
    const flipped = withV(bytes[64] ^ 1)
    for (const options of [byPublicKey, byAddress, byAccountId]) {
      await expect(verifyRecovery2020(flipped, options)).resolves.toEqual({ verified: true })
      await expect(verifyRecovery2020(withV(bytes[64] + 27), options)).resolves.toEqual({ verified: true })
    }
    // Still bound to the key: the other bit does not make Bob's key acceptable.
    await expect(verifyRecovery2020(flipped, resolverFor(ALICE_KEY, [{ ethereumAddress: bob.address }]))).resolves.toMatchObject({
      verified: false,
    })
    await expect(verifyRecovery2020(withV(5), byAddress)).resolves.toMatchObject({
      verified: false,
      error: 'proof 0: jws signature has an invalid recovery bit',
    })
  })
})

describe('proof sets', () => {
  it('adds a second proof of another suite; each proof verifies, and a bad one fails the set', async () => {
    const first = await signJsonLd(credential(), alice, fixed)
    await expect(signJsonLd(first, bob, { creator: ALICE_DELEGATE })).rejects.toBeInstanceOf(JsonLdProofError)
    const both = await addProof(first, bob, { creator: ALICE_DELEGATE, proofType: RECOVERY_2020 })
    const proofs = both.proof as ProofObject[]
    expect(proofs.map((p) => p.type)).toEqual([KOBLITZ_2016, RECOVERY_2020])

    await expect(verifyJsonLd(both, bothKeys)).resolves.toEqual({
      verified: true,
      proofs: [
        { type: KOBLITZ_2016, verificationMethod: ALICE_KEY, did: ALICE_DID, verified: true },
        { type: RECOVERY_2020, verificationMethod: ALICE_DELEGATE, did: ALICE_DID, verified: true },
      ],
    })
    await expect(verifyKoblitz2016(both, bothKeys)).resolves.toEqual({ verified: true })
    await expect(verifyRecovery2020(both, bothKeys)).resolves.toEqual({ verified: true })

    const broken = { ...both, proof: [proofs[0], { ...proofs[1], created: '2030-01-01T00:00:00Z' }] }
    const result = await verifyJsonLd(broken, bothKeys)
    expect(result.verified).toBe(false)
    expect(result.error).toBe(`proof 1: signature does not match any key of ${ALICE_DELEGATE}`)
    expect(result.proofs.map((p) => p.verified)).toEqual([true, false])
  })

  it('signs two Koblitz proofs into one set', async () => {
    const twice = await addProof(await addProof(credential(), alice, fixed), bob, { creator: ALICE_DELEGATE })
    expect(twice.proof).toHaveLength(2)
    await expect(verifyJsonLd(twice, bothKeys)).resolves.toMatchObject({ verified: true })
  })

  it('needs a proof by the issuer: a valid signature by another DID’s key alone does not verify', async () => {
    const byBob = await signJsonLd(credential(), bob, { creator: BOB_KEY })
    const result = await verifyJsonLd(byBob, bothKeys)
    expect(result).toEqual({
      verified: false,
      error: `no proof is by the issuer ${ALICE_DID}`,
      proofs: [{ type: KOBLITZ_2016, verificationMethod: BOB_KEY, did: BOB_DID, verified: true }],
    })
    // Bob's key verifies what Bob issues (`issuer` as an object too), and whatever `options.issuer` binds to Bob
    const bobsOwn = await signJsonLd({ ...credential(), issuer: { id: BOB_DID } }, bob, { creator: BOB_KEY })
    await expect(verifyJsonLd(bobsOwn, bothKeys)).resolves.toMatchObject({ verified: true })
    await expect(verifyJsonLd(byBob, { ...bothKeys, issuer: BOB_DID })).resolves.toMatchObject({ verified: true })
    // only co-signers' proofs, however many: not verified
    const twoStrangers = await addProof(byBob, bob, { creator: BOB_KEY, proofType: RECOVERY_2020 })
    await expect(verifyJsonLd(twoStrangers, bothKeys)).resolves.toMatchObject({
      verified: false,
      error: `no proof is by the issuer ${ALICE_DID}`,
    })
  })

  it('takes co-signers: the issuer’s proof and proofs by other DIDs, each bound to its own DID’s keys', async () => {
    const issued = await signJsonLd(credential(), alice, fixed)
    const cosigned = await addProof(issued, bob, { creator: BOB_KEY })
    await expect(verifyJsonLd(cosigned, bothKeys)).resolves.toEqual({
      verified: true,
      proofs: [
        { type: KOBLITZ_2016, verificationMethod: ALICE_KEY, did: ALICE_DID, verified: true },
        { type: KOBLITZ_2016, verificationMethod: BOB_KEY, did: BOB_DID, verified: true },
      ],
    })
    // the co-signer's proof with a key its DID does not list: signed by another key in Bob's name, or naming a key Bob's DID lacks
    const carol = testSigner('2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a12')
    const forged = await addProof(issued, carol, { creator: BOB_KEY })
    await expect(verifyJsonLd(forged, bothKeys)).resolves.toMatchObject({
      verified: false,
      error: `proof 1: signature does not match any key of ${BOB_KEY}`,
      proofs: [{ verified: true }, { did: BOB_DID, verified: false }],
    })
    const unlisted = await addProof(issued, bob, { creator: `${BOB_DID}#delegate-7` })
    await expect(verifyJsonLd(unlisted, bothKeys)).resolves.toMatchObject({
      verified: false,
      error: `proof 1: no signing keys found for ${BOB_DID}#delegate-7`,
    })
    // a method that is not a DID URL naming a key (no fragment, a URL, a DID with a query) fails, whatever the key lookup says
    const anyKey: VerifyOptions = { resolveSigningKeys: async () => [{ ethereumAddress: bob.address }] }
    for (const creator of [BOB_DID, 'https://keys.example.com/bob#1', `${BOB_DID}?versionId=1#controller`, `${BOB_DID}/path#controller`]) {
      const proof = { ...(cosigned.proof as ProofObject[])[1], creator }
      const result = await verifyJsonLd({ ...issued, proof: [issued.proof, proof] }, anyKey)
      expect(result.verified).toBe(false)
      expect(result.proofs[1]).toEqual({
        type: KOBLITZ_2016,
        verificationMethod: creator,
        verified: false,
        error: expect.stringContaining('is not a DID URL naming a key'),
      })
    }
  })

  it('reports unsupported proof types and rejects unknown proof types for signing', async () => {
    const signed = await signJsonLd(credential(), alice, fixed)
    const odd = { ...signed, proof: [proofOf(signed), { type: 'Ed25519Signature2018', verificationMethod: 'did:key:z#z' }] }
    const result = await verifyJsonLd(odd, byPublicKey)
    expect(result.verified).toBe(false)
    expect(result.proofs[1]).toEqual({
      type: 'Ed25519Signature2018',
      verificationMethod: 'did:key:z#z',
      did: 'did:key:z',
      verified: false,
      error: 'unsupported proof type "Ed25519Signature2018"',
    })
    const options = { ...fixed, proofType: 'RsaSignature2018' as typeof KOBLITZ_2016 }
    await expect(addProof(credential(), alice, options)).rejects.toThrow(/unsupported proof type/)
  })
})

describe('offline contexts and safe mode', () => {
  it('loads bundled contexts from the map and nothing else, never fetching', async () => {
    const network = [vi.spyOn(globalThis, 'fetch'), vi.spyOn(http, 'request'), vi.spyOn(https, 'request'), vi.spyOn(https, 'get')]
    const loaded = await documentLoader(CREDENTIALS_V1_URL)
    expect(loaded).toMatchObject({ documentUrl: CREDENTIALS_V1_URL, tag: 'static' })
    expect(loaded.document).toBe(getContext(CREDENTIALS_V1_URL))

    const foreign = { ...credential(), '@context': [CREDENTIALS_V1_URL, 'https://example.com/never-fetched/v1'] }
    const signing = signKoblitz2016(foreign, alice, fixed)
    await expect(signing).rejects.toBeInstanceOf(UnknownContextError)
    await expect(signing).rejects.toMatchObject({ url: 'https://example.com/never-fetched/v1', statusCode: 422 })
    await expect(signing).rejects.toBeInstanceOf(IdentityError)

    const signed = await signKoblitz2016(credential(), alice, fixed)
    await expect(verifyJsonLd({ ...signed, '@context': foreign['@context'] }, byPublicKey)).rejects.toBeInstanceOf(UnknownContextError)
    for (const spy of network) expect(spy).not.toHaveBeenCalled()
  })

  it('makes an undefined term an error, never a silently unsigned property', async () => {
    const withStray = { ...credential(), nickname: 'bobby' } // `nickname` is in no context
    const signing = signKoblitz2016(withStray, alice, fixed)
    await expect(signing).rejects.toBeInstanceOf(JsonLdProcessingError)
    await expect(signing).rejects.toMatchObject({ code: 'invalid property', statusCode: 422 })

    // added after signing: without safe mode it would be dropped and the signature would still match
    const signed = await signKoblitz2016(credential(), alice, fixed)
    const result = await verifyJsonLd({ ...signed, nickname: 'bobby' }, byPublicKey)
    expect(result.verified).toBe(false)
    expect(result.error).toBe('JSON-LD safe mode rejected the document: invalid property ("nickname")')

    const strayInProof = await verifyKoblitz2016(withProof(signed, { comment: 'x' }), byPublicKey)
    expect(strayInProof).toEqual({
      verified: false,
      error: 'proof 0: JSON-LD safe mode rejected the document: invalid property ("comment")',
    })
  })

  it('canonicalizes Koblitz proof options only with security before credentials/v1 (why the suite prepends security/v2)', async () => {
    const options = { creator: ALICE_KEY, created: '2024-05-01T10:00:00Z', nonce: 'n' }
    await expect(canonize({ '@context': CREDENTIALS_V1_URL, ...options })).rejects.toMatchObject({ code: 'invalid property' })
    await expect(canonize({ '@context': [CREDENTIALS_V1_URL, SECURITY_V2_URL], ...options })).rejects.toMatchObject({
      code: 'protected term redefinition',
    })
    const nquads = await canonize({ '@context': [SECURITY_V2_URL, CREDENTIALS_V1_URL], ...options })
    expect(nquads).toBe(
      [
        '_:c14n0 <http://purl.org/dc/terms/created> "2024-05-01T10:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .',
        `_:c14n0 <http://purl.org/dc/terms/creator> <${ALICE_KEY}> .`,
        '_:c14n0 <https://w3id.org/security#nonce> "n" .',
        '',
      ].join('\n'),
    )
  })

  it('bundles credentials v2 (from @digitalbazaar/credentials-context): both suites sign and verify under it; Koblitz proof options canonicalize with security/v2 before it', async () => {
    const { contexts } = await import('@digitalbazaar/credentials-context')
    expect(getContext(CREDENTIALS_V2_URL)).toEqual(contexts.get(CREDENTIALS_V2_URL))
    const { issuanceDate: _i, expirationDate: _e, ...rest } = credential()
    const v2 = {
      ...rest,
      '@context': [CREDENTIALS_V2_URL, (credential()['@context'] as unknown[])[1]],
      validFrom: '2024-05-01T10:00:00Z',
      validUntil: '2034-05-01T10:00:00Z',
    }
    for (const proofType of [KOBLITZ_2016, RECOVERY_2020] as const) {
      const signed = await signJsonLd(v2, alice, { ...fixed, proofType })
      await expect(verifyJsonLd(signed, byPublicKey)).resolves.toMatchObject({ verified: true })
      await expect(verifyJsonLd({ ...signed, validUntil: '2035-05-01T10:00:00Z' }, byPublicKey)).resolves.toMatchObject({ verified: false })
    }
    const options = { creator: ALICE_KEY, created: '2024-05-01T10:00:00Z', nonce: 'n' }
    expect(await canonize({ '@context': [SECURITY_V2_URL, CREDENTIALS_V2_URL], ...options })).toBe(
      await canonize({ '@context': [SECURITY_V2_URL, CREDENTIALS_V1_URL], ...options }),
    )
    // a v1-only term is undefined under v2, so safe mode refuses it
    await expect(signJsonLd({ ...v2, issuanceDate: '2024-05-01T10:00:00Z' }, alice, fixed)).rejects.toMatchObject({
      code: 'invalid property',
    })
  })

  it('uses contexts registered at start-up, and refuses to change a known one', async () => {
    const url = 'https://contexts.example.com/membership/v1'
    const context = { '@context': { '@version': 1.1, mem: 'https://example.com/membership#', level: 'mem:level' } }
    const document = {
      ...credential(),
      '@context': [CREDENTIALS_V1_URL, url],
      credentialSubject: { id: `did:ethr:dev:${bob.address}`, level: 'gold' },
    }
    await expect(signJsonLd(document, alice, fixed)).rejects.toBeInstanceOf(UnknownContextError)
    registerContext(url, context)
    registerContext(url, structuredClone(context)) // same content: no-op
    expect(() => registerContext(url, { '@context': { level: 'mem:other' } })).toThrow(/already registered/)
    expect(() => registerContext(CREDENTIALS_V1_URL, { '@context': {} })).toThrow(/already registered/)
    expect(() => registerContext('relative/ctx', { '@context': {} })).toThrow(TypeError)
    expect(() => registerContext('https://x.example/ctx', { terms: {} })).toThrow(TypeError)

    const signed = await signJsonLd(document, alice, fixed)
    await expect(verifyJsonLd(signed, byPublicKey)).resolves.toMatchObject({ verified: true })
  })
})

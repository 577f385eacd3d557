/**
 * What a did:key / did:jwk (and, for the refusals, did:web) wallet of each key type made by Generate Identity Wallet
 * signs, through the router on loopback HTTP (SQLite file): its DID-auth token carries the key type's algorithm
 * (ES256K / ES256 / EdDSA) and the `kid` of the verification method its DID's document lists, has `jsonld`
 * (Koblitz 2016 for secp256k1, Data Integrity for P-256/Ed25519), authenticates its requests, and verifies in our
 * Verify Claim and in did-jwt / did-jwt-vc through key-did-resolver and Veramo's did:jwk resolver. A forged token
 * (another wallet's key), an expired one and another tenant's are refused with the error body;
 * JSON-LD (credentials v2) issuance, add-proof and presentation with a P-256/Ed25519 key take the key type's Data
 * Integrity suite (ecdsa-rdfc-2019 / eddsa-rdfc-2022) and verify; a secp256k1 suite named for such a key is 422 naming
 * the suites that fit, with nothing written. (VC-JWTs signed by such wallets' signers: test/proofs/wallet-key-signing.test.ts.)
 */
import { getDidJwkResolver } from '@veramo/did-provider-jwk'
import { createJWT, decodeJWT, verifyJWT } from 'did-jwt'
import { verifyCredential } from 'did-jwt-vc'
import { Resolver } from 'did-resolver'
import KeyDidResolver from 'key-did-resolver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, snapshot, startHarness, TENANT_B, type Harness } from '../helpers/harness.js'

const CASES = [
  ['key', 'secp256k1', 'ES256K'],
  ['key', 'P-256', 'ES256'],
  ['key', 'Ed25519', 'EdDSA'],
  ['jwk', 'secp256k1', 'ES256K'],
  ['jwk', 'P-256', 'ES256'],
  ['jwk', 'Ed25519', 'EdDSA'],
  ['web', 'secp256k1', 'ES256K'],
  ['web', 'P-256', 'ES256'],
  ['web', 'Ed25519', 'EdDSA'],
] as const
const DEFAULT_CRYPTOSUITE: Record<string, string> = { 'P-256': 'ecdsa-rdfc-2019', Ed25519: 'eddsa-rdfc-2022' }
const V2 = 'https://www.w3.org/ns/credentials/v2'

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { publicUrl: 'https://vault.example.com/id' } })
})
afterAll(() => h.close())

const theirs = new Resolver({ ...KeyDidResolver.getResolver(), ...getDidJwkResolver() }, { cache: false })

/** A wallet of `method` and `keyType` of the tenant, and its DID-auth token. */
async function walletOf(method: string, keyType: string, token?: string) {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: method, keyType } }, token })
  expect(made.status).toBe(200)
  const did: string = made.body.wallet.did
  const res = await h.request('POST', '/did-auth-jwt', { json: { iss: did }, token })
  expect(res.status).toBe(200)
  return { did, token: res.body as { jwt: string; jsonld?: unknown; verifications: { issuer: string } } }
}

/** The verification method of `did`'s document (did:key, did:jwk: one key), as resolution through the router answers it. */
async function methodIdOf(did: string): Promise<string> {
  const res = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(did)}`)
  expect(res.status).toBe(200)
  const document = res.body.didDocument ?? res.body
  return document.assertionMethod[0] as string
}

describe('a did:key / did:jwk wallet signs with its own key', () => {
  // did:web wallets' tokens are covered end to end in wallet-jwts-router.test.ts (their document served by the router)
  it.each(CASES.filter(([method]) => method !== 'web'))(
    'did:%s, %s (%s): its DID-auth token authenticates, and ours and did-jwt(-vc) verify it',
    async (method, keyType, alg) => {
      const { did, token } = await walletOf(method, keyType)
      const kid = await methodIdOf(did)

      expect(decodeJWT(token.jwt).header).toMatchObject({ alg, kid, typ: 'JWT' })
      expect(token.verifications.issuer).toBe(did)
      // JSON-LD too, with the key type's default suite (before issue 32: none for P-256/Ed25519).
      expect(token.jsonld).toMatchObject({ proof: { type: keyType === 'secp256k1' ? 'EcdsaKoblitzSignature2016' : 'DataIntegrityProof' } })

      expect((await verifyJWT(token.jwt, { resolver: theirs, audience: decodeJWT(token.jwt).payload.aud as string })).issuer).toBe(did)
      expect((await verifyCredential(token.jwt, theirs, { audience: decodeJWT(token.jwt).payload.aud as string })).issuer).toBe(did)
      // sent as x-did-auth, it authenticates; the token is itself a VC-JWT, which Verify Claim verifies
      const checked = await h.request('POST', '/claims/verify', { json: { vcs: [{ jwt: token.jwt }] }, didAuth: token.jwt })
      expect(checked.status).toBe(200)
      expect(checked.body.vcs[0]).toMatchObject({ verified: true, issuer: did })
    },
  )

  it.each(CASES)('did:%s, %s: forged, expired and other-tenant tokens are refused; nothing is written', async (method, keyType) => {
    const { did, token } = await walletOf(method, keyType)
    const other = await walletOf(method, keyType)
    const verify = (didAuth: string) => h.request('POST', '/claims/verify', { json: { vcs: [{ jwt: token.jwt }] }, didAuth })
    const before = await snapshot(h)

    // forged: this wallet's token with another wallet's signature (the same key type)
    const [header, payload] = token.jwt.split('.')
    expectError(await verify(`${header}.${payload}.${other.token.jwt.split('.')[2]}`), 403, 'UNAUTHENTICATED')
    // expired: the token's header and claims an hour in the past, its signature replayed (did-jwt checks exp before it)
    const past = Math.floor(Date.now() / 1000) - 3_600
    const decoded = decodeJWT(token.jwt)
    const expired = await createJWT(
      { ...decoded.payload, iat: past - 600, nbf: past - 600, exp: past },
      { issuer: did, signer: async () => decoded.signature, alg: decoded.header.alg },
      decoded.header,
    )
    expectError(await verify(expired), 403, 'UNAUTHENTICATED')
    // another tenant: no token for a wallet it does not hold, and its API key with this tenant's token names no wallet of its own
    expectError(await h.request('POST', '/did-auth-jwt', { json: { iss: did }, token: TENANT_B }), 422, 'NOT_FOUND')
    const signAsOther = await h.request('POST', '/claims/sign', {
      json: { iss: did, format: 'JWT', claims: [{ payload: { degree: 'BSc' } }] },
      didAuth: token.jwt,
      token: TENANT_B,
    })
    expectError(signAsOther, 422, 'NOT_FOUND')
    expect(await snapshot(h)).toEqual(before)
  })

  it.each(CASES.filter(([, keyType]) => keyType !== 'secp256k1'))(
    'did:%s, %s: JSON-LD issuance, add-proof and presentation take the Data Integrity default and verify',
    async (method, keyType) => {
      const { did, token } = await walletOf(method, keyType)
      const cryptosuite = DEFAULT_CRYPTOSUITE[keyType]
      const claims = [{ payload: { name: 'x' } }]
      // Its `id` is the wallet's DID, whose owner adds the proof.
      const unsigned = {
        '@context': [V2],
        id: did,
        type: ['VerifiableCredential'],
        issuer: did,
        validFrom: '2026-01-01T00:00:00Z',
        credentialSubject: { id: did },
      }
      const signed = await h.request('POST', '/claims/sign', {
        json: { iss: did, format: 'JSON-LD', claims, context: [V2] },
        didAuth: token.jwt,
      })
      const added = await h.request('POST', '/claims/proofs', { json: { iss: did, vcs: [{ jsonld: unsigned }] }, didAuth: token.jwt })
      expect(added.body.errors, JSON.stringify(added.body)).toEqual([])
      const presented = await h.request('POST', '/presentations/sign', {
        json: { holder: did, format: 'JSON-LD', challenge: 'c', vcs: [{ jsonld: added.body.vcs?.[0]?.jsonld }] },
        didAuth: token.jwt,
      })
      for (const res of [signed, added, presented]) expect(res.status, JSON.stringify(res.body)).toBe(200)
      const proofs = [signed.body.vcs[0].jsonld.proof, added.body.vcs[0].jsonld.proof, presented.body.presentation.jsonld.proof]
      for (const [i, proof] of proofs.entries()) {
        expect(Object.keys(proof).sort()).toEqual(
          ['created', 'cryptosuite', 'proofPurpose', 'proofValue', 'type', 'verificationMethod', ...(i === 2 ? ['challenge'] : [])].sort(),
        )
        expect(proof).toMatchObject({
          type: 'DataIntegrityProof',
          cryptosuite,
          proofPurpose: i === 2 ? 'authentication' : 'assertionMethod',
          ...(i === 2 && { challenge: 'c' }),
        })
        expect(proof.verificationMethod.startsWith(`${did}#`)).toBe(true)
      }
      const verified = await h.request('POST', '/claims/verify', {
        json: { vcs: [{ jsonld: signed.body.vcs[0].jsonld }, { jsonld: added.body.vcs[0].jsonld }] },
        didAuth: token.jwt,
      })
      expect(verified.body.vcs.map((v: { verified: boolean }) => v.verified)).toEqual([true, true])
      const presentation = await h.request('POST', '/presentations/verify', {
        json: { presentation: { jsonld: presented.body.presentation.jsonld }, challenge: 'c' },
        didAuth: token.jwt,
      })
      expect(presentation.body).toMatchObject({ verified: true, holder: did })
    },
  )

  it.each(CASES.filter(([, keyType]) => keyType !== 'secp256k1'))(
    'did:%s, %s: a secp256k1 suite named for the key is 422 naming the suites that fit; nothing is written',
    async (method, keyType) => {
      const { did, token } = await walletOf(method, keyType)
      const before = await snapshot(h)
      const claims = [{ payload: { name: 'x' } }]
      const proofType = 'EcdsaSecp256k1RecoverySignature2020'
      const refusals = [
        await h.request('POST', '/claims/sign', { json: { iss: did, format: 'JSON-LD', claims, proofType }, didAuth: token.jwt }),
        await h.request('POST', '/presentations/sign', {
          json: { holder: did, format: 'JSON-LD', challenge: 'c', vcs: [{ jsonld: { '@context': [V2] } }], proofType },
          didAuth: token.jwt,
        }),
      ]
      for (const res of refusals) {
        expectError(res, 422, 'VALIDATION_ERROR')
        expect(res.body.errorMessage).toContain(`proofType: ${proofType} signs with secp256k1 keys, not ${keyType}; for ${keyType} keys: `)
        expect(res.body.errorMessage).toContain(`DataIntegrityProof (${DEFAULT_CRYPTOSUITE[keyType]})`)
      }
      expect(await snapshot(h)).toEqual(before)
    },
  )
})

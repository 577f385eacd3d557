/**
 * Sign and Verify Verifiable Credentials through the router (real Express on loopback,
 * SQLite): `POST /claims/sign`, `PATCH /claims` with `operation: "verify"` and its alias
 * `POST /claims/verify`. Every 200 body is checked against the published response schema by
 * the harness; every refusal is the error body with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeJWT } from 'did-jwt'
import { createVerifiableCredentialJwt, verifyCredential } from 'did-jwt-vc'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { signJsonLd, CREDENTIALS_V1_URL, CREDENTIALS_V2_URL, type JsonLdDocument } from '../../src/proofs/jsonld/index.js'
import { LocalSigner, generatePrivateKey } from '../../src/keys/secp256k1.js'
import { expectError, snapshot, startHarness, TENANT_B, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'

const MEMBERSHIP_URL = 'https://example.com/contexts/membership/v1'
const MEMBERSHIP = {
  '@context': {
    '@version': 1.1,
    MembershipCredential: 'https://example.com/vocab#MembershipCredential',
    member: 'https://example.com/vocab#member',
    level: 'https://example.com/vocab#level',
  },
}

let h: Harness
let issuer: { did: string; _id: string; jwt: string }
let subject: { did: string; _id: string; jwt: string }
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { contexts: { [MEMBERSHIP_URL]: MEMBERSHIP } } })
  issuer = await walletWithToken(h)
  subject = await walletWithToken(h)
})
afterAll(() => h?.close())

const sign = (json: unknown, didAuth = issuer.jwt, token?: string) => h.request('POST', '/claims/sign', { json, didAuth, token })
const verify = (json: unknown, didAuth = issuer.jwt) => h.request('POST', '/claims/verify', { json, didAuth })
const patch = (json: unknown, didAuth = issuer.jwt) => h.request('PATCH', '/claims', { json, didAuth })
const walletCount = async () => (await h.request('GET', '/wallets')).body.wallets.length
const membership = (claims: unknown[], extra: Record<string, unknown> = {}) => ({
  iss: issuer.did,
  context: MEMBERSHIP_URL,
  type: 'MembershipCredential',
  sub: subject.did,
  claims,
  ...extra,
})

/** A fresh key and its did:ethr:dev DID (resolved by the service's embedded registry: a DID nobody changed). */
function outsider() {
  const signer = new LocalSigner(generatePrivateKey())
  return { signer, did: `did:ethr:dev:${signer.address}` }
}

describe('POST /claims/sign', () => {
  it('JSON-LD by default: a W3C credential with an EcdsaKoblitzSignature2016 proof in the spec’s shape, for a new claim DID named by alias', async () => {
    const before = await walletCount()
    const res = await sign(membership([{ alias: 'membership-1', payload: { member: true, level: 'gold' } }]))
    expect(res.status).toBe(200)
    expect(res.body.resolver).toBe('default')
    const [vc] = res.body.vcs
    expect(Object.keys(vc).sort()).toEqual(['id', 'jsonld'])
    const claimWallet = (await h.request('GET', '/wallets?alias=membership-1')).body.wallets
    expect(claimWallet).toHaveLength(1)
    expect(await walletCount()).toBe(before + 1)
    expect(vc.id).toBe(claimWallet[0].did)
    const { proof, ...unsigned } = vc.jsonld
    expect(unsigned).toEqual({
      '@context': [CREDENTIALS_V1_URL, MEMBERSHIP_URL],
      id: vc.id,
      type: ['VerifiableCredential', 'MembershipCredential'],
      issuer: issuer.did,
      issuanceDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      credentialSubject: { id: subject.did, member: true, level: 'gold' },
    })
    expect(Object.keys(proof)).toEqual(['type', 'creator', 'created', 'nonce', 'signatureValue'])
    expect(proof).toMatchObject({
      type: 'EcdsaKoblitzSignature2016',
      creator: `${issuer.did}#controller`,
      signatureValue: expect.stringMatching(/^[0-9a-f]{128}$/),
    })

    const checked = await verify({ claims: [{ jsonld: vc.jsonld }] })
    expect(checked.status).toBe(200)
    expect(checked.body).toEqual({
      resolver: 'default',
      vcs: [
        {
          jsonld: vc.jsonld,
          format: 'JSON-LD',
          verified: true,
          issuer: issuer.did,
          checks: [
            {
              check: 'proof',
              proof: 0,
              type: 'EcdsaKoblitzSignature2016',
              verificationMethod: `${issuer.did}#controller`,
              did: issuer.did,
              verified: true,
            },
            { check: 'issuanceDate', verified: true },
          ],
        },
      ],
    })
  })

  it('proofType EcdsaSecp256k1RecoverySignature2020 on request; PATCH /claims verifies it', async () => {
    const res = await sign(membership([{ payload: { member: true } }], { proofType: 'EcdsaSecp256k1RecoverySignature2020' }))
    expect(res.status).toBe(200)
    const { jsonld } = res.body.vcs[0]
    expect(jsonld.proof).toMatchObject({
      type: 'EcdsaSecp256k1RecoverySignature2020',
      verificationMethod: `${issuer.did}#controller`,
      proofPurpose: 'assertionMethod',
      jws: expect.stringMatching(/^[\w-]+\.\.[\w-]+$/),
    })
    expect(jsonld['@context']).toContain('https://w3id.org/security/suites/secp256k1recovery-2020/v2')
    const checked = await patch({ operation: 'verify', vcs: [{ jsonld }] })
    expect(checked.status).toBe(200)
    expect(checked.body.vcs[0]).toMatchObject({
      verified: true,
      checks: [
        { check: 'proof', type: 'EcdsaSecp256k1RecoverySignature2020', verified: true },
        { check: 'issuanceDate', verified: true },
      ],
    })
  })

  it('JWT (any letter case): did-jwt-vc ES256K, verified by did-jwt-vc itself over the service’s resolver and by POST /claims/verify', async () => {
    const res = await sign(
      membership([{ id: 'urn:uuid:5f0b4c57-5d5a-4d0e-9d1e-0f3b6e1d2c3a', payload: { member: true } }], {
        format: 'jwt',
        expiresIn: 3_600_000,
      }),
    )
    expect(res.status).toBe(200)
    const { id, jwt } = res.body.vcs[0]
    expect(id).toBe('urn:uuid:5f0b4c57-5d5a-4d0e-9d1e-0f3b6e1d2c3a')
    const { header, payload } = decodeJWT(jwt)
    expect(header.alg).toBe('ES256K')
    expect(payload).toMatchObject({
      iss: issuer.did,
      sub: subject.did,
      jti: id,
      vc: {
        '@context': [CREDENTIALS_V1_URL, MEMBERSHIP_URL],
        type: ['VerifiableCredential', 'MembershipCredential'],
        credentialSubject: { member: true },
      },
    })
    expect(payload.exp! - payload.nbf!).toBe(3_600)
    const independent = await verifyCredential(jwt, h.service.resolver)
    expect(independent.verified).toBe(true)
    const checked = await verify({ claims: [{ jwt }] })
    expect(checked.body.vcs).toEqual([
      {
        jwt,
        format: 'JWT',
        verified: true,
        issuer: issuer.did,
        checks: [
          { check: 'signature', verified: true },
          { check: 'nbf', verified: true },
          { check: 'exp', verified: true },
        ],
      },
    ])
  })

  it('expirations: claim-level inputs win over global ones; none anywhere means no expiration', async () => {
    const exp = Date.now() + 7_200_000
    const res = await sign(
      membership(
        [
          { payload: { member: true }, exp },
          { payload: { member: true }, expirationDate: '2099-01-01T00:00:00.000Z' },
          { payload: { member: true } },
        ],
        { expiresIn: 3_600_000 },
      ),
    )
    expect(res.status).toBe(200)
    const [a, b, c] = res.body.vcs.map((v: any) => v.jsonld)
    expect(a.expirationDate).toBe(new Date(exp).toISOString())
    expect(b.expirationDate).toBe('2099-01-01T00:00:00.000Z')
    expect(Date.parse(c.expirationDate) - Date.parse(c.issuanceDate)).toBe(3_600_000)
    const none = await sign(membership([{ payload: { member: true } }]))
    expect(none.body.vcs[0].jsonld).not.toHaveProperty('expirationDate')
    const checked = await verify({ vcs: [{ jsonld: a }] })
    expect(checked.body.vcs[0].checks.map((x: any) => [x.check, x.verified])).toEqual([
      ['proof', true],
      ['issuanceDate', true],
      ['expirationDate', true],
    ])
  })

  it('a claim’s walletConfig applies to its new claim DID (newOwner: the subject owns the credential’s DID); a claim with id makes no wallet', async () => {
    const res = await sign(
      membership([{ alias: 'owned-by-subject', payload: { member: true }, walletConfig: { txsInput: [{ newOwner: subject.did }] } }]),
    )
    expect(res.status).toBe(200)
    const vc = res.body.vcs[0]
    expect(vc.registry).toMatchObject({ apiUrl: 'local', errors: [], transactions: [{ index: 0, op: 'changeOwner' }] })
    const doc = (await h.request('GET', `/1.0/identifiers/${vc.id}`, { token: null })).body.didDocument
    expect(doc.verificationMethod[0].blockchainAccountId).toBe(`eip155:1337:${subject.did.split(':').pop()}`)

    const before = await walletCount()
    const withId = await sign(membership([{ id: subject.did, payload: { member: true } }]))
    expect(withId.body.vcs[0].id).toBe(subject.did)
    expect(await walletCount()).toBe(before)
  })

  it('a vault wallet as issuer: vault control suffices; a DID whose owner moved to another wallet of the tenant is signed by that owner', async () => {
    const vault = (await h.request('POST', '/vaults', { json: { name: 'issuers', hierarchy: 'BIP44' } })).body.vault
    const root = vault.wallets[0]
    const second = (await h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: await tokenFor(h, root.did) })).body.wallet
    const rootToken = await tokenFor(h, root.did)
    const bySecond = await sign({ iss: second.did, claims: [{ payload: {} }] }, rootToken)
    expect(bySecond.status).toBe(200)
    expect((await verify({ claims: [{ jsonld: bySecond.body.vcs[0].jsonld }] })).body.vcs[0].verified).toBe(true)

    const moved = await walletWithToken(h)
    const newOwner = await walletWithToken(h)
    expect(
      (
        await h.request('POST', '/wallet/configure', {
          json: { wallet: { did: moved.did }, walletConfig: { txsInput: [{ newOwner: newOwner.did }] } },
          didAuth: moved.jwt,
        })
      ).status,
    ).toBe(200)
    const res = await sign({ iss: moved.did, format: 'JWT', claims: [{ payload: { member: true } }] }, newOwner.jwt)
    expect(res.status).toBe(200)
    expect((await verify({ claims: [{ jwt: res.body.vcs[0].jwt }] })).body.vcs[0]).toMatchObject({ verified: true, issuer: moved.did })
  })

  it('credentials v2 context: data model 2.0 (v2 first, validFrom/validUntil), both proof types, verified by POST /claims/verify', async () => {
    const exp = Date.now() + 3_600_000
    for (const proofType of ['EcdsaKoblitzSignature2016', 'EcdsaSecp256k1RecoverySignature2020']) {
      const res = await sign(membership([{ payload: { member: true }, exp }], { context: [CREDENTIALS_V2_URL, MEMBERSHIP_URL], proofType }))
      expect(res.status).toBe(200)
      const { proof, ...unsigned } = res.body.vcs[0].jsonld
      expect(unsigned).toEqual({
        '@context': [
          CREDENTIALS_V2_URL,
          MEMBERSHIP_URL,
          ...(proofType === 'EcdsaKoblitzSignature2016' ? [] : ['https://w3id.org/security/suites/secp256k1recovery-2020/v2']),
        ],
        id: expect.any(String),
        type: ['VerifiableCredential', 'MembershipCredential'],
        issuer: issuer.did,
        validFrom: expect.stringMatching(/^\d{4}-/),
        validUntil: new Date(exp).toISOString(),
        credentialSubject: { id: subject.did, member: true },
      })
      expect(proof.type).toBe(proofType)
      const checked = await verify({ claims: [{ jsonld: res.body.vcs[0].jsonld }] })
      expect(checked.body.vcs[0]).toMatchObject({
        verified: true,
        checks: [
          { check: 'proof', type: proofType, verified: true },
          { check: 'validFrom', verified: true },
          { check: 'validUntil', verified: true },
        ],
      })
      const tampered = { ...res.body.vcs[0].jsonld, validUntil: '2099-01-01T00:00:00.000Z' }
      expect((await verify({ claims: [{ jsonld: tampered }] })).body.vcs[0]).toMatchObject({
        verified: false,
        error: expect.stringMatching(/^proof 0: signature does not match/),
      })
    }
    // v2 dates are checked like v1's
    const self = outsider()
    const base = {
      '@context': [CREDENTIALS_V2_URL, MEMBERSHIP_URL],
      type: ['VerifiableCredential'],
      issuer: self.did,
      credentialSubject: { member: true },
    }
    const expired = await signJsonLd({ ...base, validUntil: '2021-01-01T00:00:00Z' }, self.signer, { creator: `${self.did}#controller` })
    const future = await signJsonLd({ ...base, validFrom: '2090-01-01T00:00:00Z' }, self.signer, { creator: `${self.did}#controller` })
    const undated = await signJsonLd(base, self.signer, { creator: `${self.did}#controller` })
    const res = await verify({ claims: [{ jsonld: expired }, { jsonld: future }, { jsonld: undated }] })
    expect(res.body.vcs.map((v: any) => [v.verified, v.error ?? v.checks.map((c: any) => c.check).join()])).toEqual([
      [false, 'validUntil: validUntil is missing, malformed or has passed'],
      [false, 'validFrom: validFrom is missing, malformed or is in the future'],
      [true, 'proof'],
    ])
    // a v1 term (issuanceDate) is undefined under v2: safe mode refuses it when signing, and verifying
    await expect(
      signJsonLd({ ...base, issuanceDate: '2024-01-01T00:00:00Z' }, self.signer, { creator: `${self.did}#controller` }),
    ).rejects.toMatchObject({ code: 'invalid property' })
    // v1 and v2 do not mix; a VC-JWT is data model 1.1
    const before = await snapshot(h)
    const mixed = await sign(
      membership([{ payload: { member: true } }], { context: [CREDENTIALS_V2_URL, MEMBERSHIP_URL, CREDENTIALS_V1_URL] }),
    )
    expectError(mixed, 422, 'VALIDATION_ERROR')
    expect(mixed.body.errorMessage).toMatch(/cannot be mixed/)
    const jwt = await sign(
      membership([{ id: 'urn:example:v2', payload: { member: true }, context: CREDENTIALS_V2_URL }], { format: 'JWT' }),
    )
    expectError(jwt, 422, 'VALIDATION_ERROR')
    expect(jwt.body.errorMessage).toMatch(/is for JSON-LD credentials/)
    expect(await snapshot(h)).toEqual(before)
  })

  it('every refusal is the error body, with nothing written', async () => {
    const other = await walletWithToken(h, TENANT_B)
    const unrelated = await walletWithToken(h)
    await h.request('POST', '/wallet', { json: { wallet: { alias: 'taken-alias' } } })
    const before = await snapshot(h)
    const ok = { payload: { member: true } }
    // iss of another tenant: unknown to this one
    expectError(await sign(membership([ok], { iss: other.did })), 422, 'NOT_FOUND')
    expectError(await sign(membership([ok], { iss: other.did }), other.jwt), 422, 'NOT_FOUND')
    // iss the caller does not control
    expectError(await sign(membership([ok]), unrelated.jwt), 403, 'FORBIDDEN')
    // no DID-auth token, no tenant token
    expectError(await h.request('POST', '/claims/sign', { json: membership([ok]) }), 403, 'UNAUTHENTICATED')
    expectError(await sign(membership([ok]), issuer.jwt, null as unknown as string), 403, 'UNAUTHENTICATED')
    // contexts that are not bundled or registered, at either level
    expectError(await sign(membership([ok], { context: 'https://evil.example.com/context.jsonld' })), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([{ ...ok, context: ['https://www.w3.org/ns/odrl.jsonld'] }])), 422, 'VALIDATION_ERROR')
    // expirations: two at one level (global, claim), in the past
    expectError(await sign(membership([ok], { exp: Date.now() + 60_000, expiresIn: 60_000 })), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([{ ...ok, expiresIn: 60_000, expirationDate: '2099-01-01T00:00:00Z' }])), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([{ ...ok, exp: Date.now() - 1_000 }])), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([{ ...ok, expirationDate: '2001-01-01T00:00:00Z' }])), 422, 'VALIDATION_ERROR')
    // format, proofType
    expectError(await sign(membership([ok], { format: 'XML' })), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([ok], { format: 'JWT', proofType: 'EcdsaSecp256k1RecoverySignature2020' })), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([ok], { proofType: 'RsaSignature2018' })), 422, 'VALIDATION_ERROR')
    // shapes: claims not objects, missing / mistyped / extra fields
    expectError(await sign(membership(['not an object'])), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([])), 422, 'VALIDATION_ERROR')
    expectError(await sign({ claims: [ok] }), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([ok], { iss: 42 })), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([ok], { claims: ok })), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([ok], { extra: true })), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([{ ...ok, extra: true }])), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([{ payload: 'member' }])), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([{ payload: { id: subject.did } }])), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([{ ...ok, sub: 'alice' }])), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([{ ...ok, id: subject.did, alias: 'x' }])), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([{ ...ok, walletConfig: { apiUrl: 'https://evil.example.com' } }])), 422, 'VALIDATION_ERROR')
    // a JWT credential with nothing to say about its subject
    expectError(await sign(membership([{}], { format: 'JWT' })), 422, 'VALIDATION_ERROR')
    // a term no context defines, with undefinedTerms "reject" (JSON-LD safe mode), is refused after the claim DID was made in memory only
    expectError(await sign(membership([{ payload: { nickname: 'bob' } }, ok], { undefinedTerms: 'reject' })), 422, 'VALIDATION_ERROR')
    // the second claim's alias is taken: the first claim's wallet is not kept either
    const conflict = await sign(
      membership([
        { ...ok, alias: 'fresh-alias' },
        { ...ok, alias: 'taken-alias' },
      ]),
    )
    expectError(conflict, 422, 'CONFLICT')
    // resolver names must be configured
    expectError(await sign(membership([ok], { resolver: 'elsewhere' })), 422, 'VALIDATION_ERROR')
    // deep nesting, too many claims, too large
    let deep: Record<string, unknown> = { member: true }
    for (let i = 0; i < 40; i++) deep = { level: deep }
    expectError(await sign(membership([{ payload: deep }])), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership(Array.from({ length: 1_001 }, () => ok))), 422, 'VALIDATION_ERROR')
    expectError(await sign(membership([{ payload: { level: 'x'.repeat(1_100_000) } }])), 413, 'PAYLOAD_TOO_LARGE')
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('Verify (PATCH /claims operation verify, POST /claims/verify)', () => {
  it('an altered credential, an unrelated key, a former owner key: verified false with the failing check named', async () => {
    const signed = (await sign(membership([{ payload: { member: true } }]))).body.vcs[0].jsonld
    const altered = { ...signed, credentialSubject: { ...signed.credentialSubject, level: 'platinum' } }

    // A proof by another DID's key, and one claiming the issuer's key but signed by another
    const stranger = outsider()
    const unsigned = (({ proof: _p, ...rest }) => rest)(signed) as JsonLdDocument
    const byStranger = await signJsonLd(unsigned, stranger.signer, { creator: `${stranger.did}#controller` })
    const forged = await signJsonLd(unsigned, stranger.signer, { creator: `${issuer.did}#controller` })

    const res = await verify({ claims: [{ jsonld: altered }, { jsonld: byStranger }, { jsonld: forged }] })
    expect(res.status).toBe(200)
    const [a, b, c] = res.body.vcs
    expect(a).toMatchObject({ verified: false, issuer: issuer.did, error: expect.stringMatching(/^proof 0: signature does not match/) })
    expect(b).toEqual({
      jsonld: byStranger,
      format: 'JSON-LD',
      verified: false,
      issuer: issuer.did,
      checks: [
        {
          check: 'proof',
          proof: 0,
          type: 'EcdsaKoblitzSignature2016',
          verificationMethod: `${stranger.did}#controller`,
          did: stranger.did,
          verified: true,
        },
        { check: 'issuerProof', verified: false, error: `no proof is by the issuer ${issuer.did}` },
        { check: 'issuanceDate', verified: true },
      ],
      error: `issuerProof: no proof is by the issuer ${issuer.did}`,
    })
    expect(c).toMatchObject({
      verified: false,
      checks: [
        { check: 'proof', verified: false },
        { check: 'issuanceDate', verified: true },
      ],
    })

    // After an owner change the old key no longer speaks for the DID
    const former = await walletWithToken(h)
    const heir = await walletWithToken(h)
    const old = (await sign({ iss: former.did, claims: [{ payload: {} }] }, former.jwt)).body.vcs[0].jsonld
    expect((await verify({ claims: [{ jsonld: old }] })).body.vcs[0].verified).toBe(true)
    await h.request('POST', '/wallet/configure', {
      json: { wallet: { did: former.did }, walletConfig: { txsInput: [{ newOwner: heir.did }] } },
      didAuth: former.jwt,
    })
    expect((await verify({ claims: [{ jsonld: old }] })).body.vcs[0]).toMatchObject({
      verified: false,
      error: expect.stringMatching(/^proof 0: /),
    })
  })

  it('a live delegate of the issuer signs; every proof of a proof set must verify', async () => {
    const delegate = new LocalSigner(generatePrivateKey())
    const owner = await walletWithToken(h)
    const configured = await h.request('POST', '/wallet/configure', {
      json: { wallet: { did: owner.did }, walletConfig: { txsInput: [{ delegate: { address: delegate.address, validity: 3_600_000 } }] } },
      didAuth: owner.jwt,
    })
    expect(configured.body.wallet.registry.errors).toEqual([])
    const signed = (await sign({ iss: owner.did, claims: [{ payload: {} }] }, owner.jwt)).body.vcs[0].jsonld
    const cosigned = await signJsonLd({ ...signed, proof: undefined }, delegate, { creator: `${owner.did}#delegate-1` })
    const both = { ...signed, proof: [signed.proof, cosigned.proof] }
    const res = await verify({
      claims: [{ jsonld: both }, { jsonld: { ...both, proof: [signed.proof, { ...(cosigned.proof as object), nonce: 'changed' }] } }],
    })
    expect(res.body.vcs[0]).toMatchObject({
      verified: true,
      checks: [
        { proof: 0, verified: true },
        { proof: 1, verificationMethod: `${owner.did}#delegate-1`, verified: true },
        { check: 'issuanceDate' },
      ],
    })
    expect(res.body.vcs[1]).toMatchObject({
      verified: false,
      checks: [{ proof: 0, verified: true }, { proof: 1, verified: false }, { check: 'issuanceDate' }],
    })
  })

  it('proof sets with co-signers: the issuer’s proof plus proofs by other DIDs, each bound to its own DID’s current document', async () => {
    // issued with Recovery2020, so the document already carries that suite's context and co-signing leaves it unchanged
    const issued = (
      await sign(
        membership([{ id: 'urn:example:cosigned', payload: { member: true } }], { proofType: 'EcdsaSecp256k1RecoverySignature2020' }),
      )
    ).body.vcs[0].jsonld as JsonLdDocument
    const { proof: first, ...base } = issued
    // co-signers: a DID the service holds, through its delegate key, and an outside did:ethr
    const delegate = new LocalSigner(generatePrivateKey())
    const held = await walletWithToken(h)
    const configured = await h.request('POST', '/wallet/configure', {
      json: { wallet: { did: held.did }, walletConfig: { txsInput: [{ delegate: { address: delegate.address, validity: 3_600_000 } }] } },
      didAuth: held.jwt,
    })
    expect(configured.body.wallet.registry.errors).toEqual([])
    const stranger = outsider()
    const cosign = async (signer: LocalSigner, creator: string, proofType?: 'EcdsaSecp256k1RecoverySignature2020') =>
      (await signJsonLd(base, signer, { creator, proofType })).proof
    const heldProof = await cosign(delegate, `${held.did}#delegate-1`, 'EcdsaSecp256k1RecoverySignature2020')
    const strangerProof = await cosign(stranger.signer, `${stranger.did}#controller`)
    const forgedProof = await cosign(new LocalSigner(generatePrivateKey()), `${stranger.did}#controller`)
    const unlistedProof = await cosign(stranger.signer, `${stranger.did}#delegate-1`)

    const res = await verify({
      claims: [
        { jsonld: { ...base, proof: [first, heldProof, strangerProof] } },
        { jsonld: { ...base, proof: [first, forgedProof] } },
        { jsonld: { ...base, proof: [first, unlistedProof] } },
        { jsonld: { ...base, proof: [heldProof, strangerProof] } },
      ],
    })
    const [all, forged, unlisted, noIssuer] = res.body.vcs
    expect(all).toMatchObject({
      verified: true,
      checks: [
        { check: 'proof', proof: 0, did: issuer.did, verified: true },
        {
          check: 'proof',
          proof: 1,
          type: 'EcdsaSecp256k1RecoverySignature2020',
          verificationMethod: `${held.did}#delegate-1`,
          did: held.did,
          verified: true,
        },
        {
          check: 'proof',
          proof: 2,
          type: 'EcdsaKoblitzSignature2016',
          verificationMethod: `${stranger.did}#controller`,
          did: stranger.did,
          verified: true,
        },
        { check: 'issuanceDate', verified: true },
      ],
    })
    expect(all.checks).toHaveLength(4)
    // a co-signer's proof with a key its DID's document does not list: signed by another key in its name, or naming a key it lacks
    expect(forged).toMatchObject({ verified: false, error: `proof 1: signature does not match any key of ${stranger.did}#controller` })
    expect(unlisted).toMatchObject({ verified: false, error: `proof 1: no signing keys found for ${stranger.did}#delegate-1` })
    // co-signers only, no proof by the issuer
    expect(noIssuer).toMatchObject({ verified: false, error: `issuerProof: no proof is by the issuer ${issuer.did}` })
    expect(noIssuer.checks.map((c: any) => [c.check, c.did, c.verified])).toEqual([
      ['proof', held.did, true],
      ['proof', stranger.did, true],
      ['issuerProof', undefined, false],
      ['issuanceDate', undefined, true],
    ])
  })

  it('dates: expired, not yet valid (JSON-LD and JWT)', async () => {
    const self = outsider()
    const base = {
      '@context': [CREDENTIALS_V1_URL, MEMBERSHIP_URL],
      type: ['VerifiableCredential'],
      issuer: self.did,
      credentialSubject: { member: true },
    }
    const expired = await signJsonLd(
      { ...base, issuanceDate: '2020-01-01T00:00:00Z', expirationDate: '2021-01-01T00:00:00Z' },
      self.signer,
      { creator: `${self.did}#controller` },
    )
    const future = await signJsonLd({ ...base, issuanceDate: '2090-01-01T00:00:00Z' }, self.signer, { creator: `${self.did}#controller` })
    const now = Math.floor(Date.now() / 1000)
    const jwtOf = (times: Record<string, number>) =>
      createVerifiableCredentialJwt(
        { ...times, vc: { '@context': [CREDENTIALS_V1_URL], type: ['VerifiableCredential'], credentialSubject: { member: true } } },
        { did: self.did, signer: didJwtSigner(self.signer), alg: 'ES256K' },
      )
    const res = await verify({
      claims: [
        { jsonld: expired },
        { jsonld: future },
        { jwt: await jwtOf({ nbf: now - 7200, exp: now - 3600 }) },
        { jwt: await jwtOf({ nbf: now + 3600 }) },
      ],
    })
    const outcomes = res.body.vcs.map((v: any) => [v.verified, v.error])
    expect(outcomes).toEqual([
      [false, 'expirationDate: expirationDate is missing, malformed or has passed'],
      [false, 'issuanceDate: issuanceDate is missing, malformed or is in the future'],
      [false, 'exp: exp is missing, malformed or has passed'],
      [false, 'nbf: nbf is missing, malformed or is in the future'],
    ])
    expect(res.body.vcs[0].checks[0]).toMatchObject({ check: 'proof', verified: true })
  })

  it('did:key issuers (secp256k1 and Ed25519) verify offline with the default resolver', async () => {
    const { bytesToMultibase, ES256KSigner, EdDSASigner } = await import('did-jwt')
    const { ed25519 } = await import('@noble/curves/ed25519.js')
    const { secp256k1 } = await import('@noble/curves/secp256k1.js')
    const vc = { '@context': [CREDENTIALS_V1_URL], type: ['VerifiableCredential'], credentialSubject: { member: true } }
    const k1 = generatePrivateKey()
    const k1Did = `did:key:${bytesToMultibase(secp256k1.getPublicKey(k1, true), 'base58btc', 'secp256k1-pub')}`
    const edSecret = ed25519.utils.randomSecretKey()
    const edDid = `did:key:${bytesToMultibase(ed25519.getPublicKey(edSecret), 'base58btc', 'ed25519-pub')}`
    const byK1 = await createVerifiableCredentialJwt({ vc }, { did: k1Did, signer: ES256KSigner(k1), alg: 'ES256K' })
    const byEd = await createVerifiableCredentialJwt({ vc }, { did: edDid, signer: EdDSASigner(edSecret), alg: 'EdDSA' })
    const forgedEd = await createVerifiableCredentialJwt(
      { vc },
      { did: edDid, signer: EdDSASigner(ed25519.utils.randomSecretKey()), alg: 'EdDSA' },
    )
    const res = await verify({ claims: [{ jwt: byK1 }, { jwt: byEd }, { jwt: forgedEd }] })
    expect(res.body.vcs.map((v: any) => [v.issuer, v.verified])).toEqual([
      [k1Did, true],
      [edDid, true],
      [edDid, false],
    ])
    // JSON-LD by a did:key secp256k1 issuer
    const ld = await signJsonLd(
      { ...vc, '@context': [CREDENTIALS_V1_URL, MEMBERSHIP_URL], issuer: k1Did, issuanceDate: new Date().toISOString() },
      new LocalSigner(k1),
      { creator: `${k1Did}#${k1Did.slice(8)}` },
    )
    expect((await verify({ claims: [{ jsonld: ld }] })).body.vcs[0].verified).toBe(true)
  })

  it('malformed credentials are verified false (format); bad requests are 422; unknown contexts are 422', async () => {
    const res = await verify({
      claims: [{ jwt: 'not.a.jwt' }, { jwt: 'garbage' }, { jsonld: { type: ['VerifiableCredential'], issuer: issuer.did } }],
    })
    expect(res.status).toBe(200)
    expect(res.body.vcs.map((v: any) => [v.verified, v.checks[0].check])).toEqual([
      [false, 'format'],
      [false, 'format'],
      [false, 'format'],
    ])
    expect(res.body.vcs[2].error).toBe('format: @context: missing')

    const signed = (await sign(membership([{ payload: { member: true } }]))).body.vcs[0].jsonld
    expectError(
      await verify({ claims: [{ jsonld: { ...signed, '@context': [CREDENTIALS_V1_URL, 'https://evil.example.com/ctx'] } }] }),
      422,
      'VALIDATION_ERROR',
    )
    const missing = await patch({ claims: [{ jsonld: signed }] })
    expectError(missing, 422, 'VALIDATION_ERROR')
    expect(missing.body.errorMessage).toContain('operation: must be one of "verify", "addProof", "removeProof"')
    expectError(await patch({ operation: 'sign', claims: [{ jsonld: signed }] }), 422, 'VALIDATION_ERROR')
    expectError(await patch({ operation: 'verify', claims: [{ jsonld: signed }], vcs: [{ jsonld: signed }] }), 422, 'VALIDATION_ERROR')
    expectError(await patch({ operation: 'verify' }), 422, 'VALIDATION_ERROR')
    expectError(await verify({ claims: [{ jsonld: signed, jwt: 'x.y.z' }] }), 422, 'VALIDATION_ERROR')
    expectError(await verify({ claims: [{ jsonld: signed }], resolver: 'nowhere' }), 422, 'VALIDATION_ERROR')
    expectError(await verify({ claims: Array.from({ length: 1_001 }, () => ({ jwt: 'a.b.c' })) }), 422, 'VALIDATION_ERROR')
    expectError(await patch({ operation: 'verify', vcs: Array.from({ length: 1_001 }, () => ({ jwt: 'a.b.c' })) }), 422, 'VALIDATION_ERROR')
    expectError(await h.request('POST', '/claims/verify', { json: { claims: [{ jsonld: signed }] } }), 403, 'UNAUTHENTICATED')
  })
})

describe('documents built to make canonicalization explode', () => {
  /** The "poison graph": n blank nodes, each linked to every other, all alike. */
  function poison(n: number) {
    const ref = (i: number) => ({ '@id': `_:n${i}` })
    return {
      level: Array.from({ length: n }, (_, i) => ({
        ...ref(i),
        level: Array.from({ length: n }, (_, j) => ref(j)).filter((_, j) => j !== i),
      })),
    }
  }

  it('is refused by the work bound (sign: 422, verify: verified false), one unit of work each, no deadline reached', async () => {
    const work = h.service.jsonldStats()
    const res = await sign(membership([{ payload: poison(30) }]))
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(/blank nodes need too much work/)
    const unsigned = {
      '@context': [CREDENTIALS_V1_URL, MEMBERSHIP_URL],
      type: ['VerifiableCredential'],
      issuer: issuer.did,
      issuanceDate: new Date().toISOString(),
      credentialSubject: poison(30),
    }
    const forged = {
      ...unsigned,
      proof: {
        type: 'EcdsaKoblitzSignature2016',
        creator: `${issuer.did}#controller`,
        created: new Date().toISOString(),
        signatureValue: '00'.repeat(64),
      },
    }
    const checked = await verify({ claims: [{ jsonld: forged }] })
    expect(checked.status).toBe(200)
    expect(checked.body.vcs[0]).toMatchObject({ verified: false, error: expect.stringMatching(/blank nodes need too much work/) })
    // rdf-canonize's work factor stopped each (a count, not a clock): one unit of work in the pool per
    // request, none stopped at the deadline; and the server stays responsive.
    expect(h.service.jsonldStats()).toMatchObject({ completed: work.completed + 2, timedOut: work.timedOut })
    expect((await h.request('GET', '/wallets?limit=1')).status).toBe(200)
  })
})

describe('embedded API', () => {
  it('signs and verifies with the same semantics as the router', async () => {
    const api = h.service.as({ authorization: 'token-tenant-a-0123456789', didAuth: issuer.jwt })
    const signed = await api.signClaims({ iss: issuer.did, format: 'JWT', claims: [{ id: 'urn:example:1', payload: { member: true } }] })
    expect(signed.resolver).toBe('default')
    const vc = signed.vcs[0]
    expect('jwt' in vc && vc.jwt).toMatch(/^ey/)
    const checked = await api.verifyClaims({ claims: [{ jwt: 'jwt' in vc ? vc.jwt : '' }] })
    expect(checked.vcs[0].verified).toBe(true)
    const patched = await api.verifyClaims({ operation: 'verify', vcs: [{ jwt: 'jwt' in vc ? vc.jwt : '' }] })
    expect('verified' in patched.vcs[0] && patched.vcs[0].verified).toBe(true)
    await expect(api.signClaims({ iss: issuer.did, claims: [{ payload: {} }], format: 'XML' })).rejects.toMatchObject({
      statusCode: 422,
      errorType: 'VALIDATION_ERROR',
    })
  })
})

/**
 * Sign and Verify Verifiable Presentations through the router (real Express on loopback,
 * SQLite): `POST /presentations/sign` and `POST /presentations/verify`. Every 200 body is checked
 * against the published response schema by the harness; every refusal is the error body with
 * nothing written (a digest of every collection before and after).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeJWT } from 'did-jwt'
import { createVerifiablePresentationJwt } from 'did-jwt-vc'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { CREDENTIALS_V1_URL, signRecovery2020, type JsonLdDocument } from '../../src/proofs/jsonld/index.js'
import { LocalSigner, generatePrivateKey } from '../../src/keys/secp256k1.js'
import { expectError, snapshot, startHarness, TENANT_B, walletWithToken, type Harness } from '../helpers/harness.js'
import { mintToken, tamper } from '../helpers/tokens.js'

let h: Harness
type Wallet = { did: string; _id: string; jwt: string }
let holder: Wallet
let other: Wallet
let issuer: Wallet
let jwtVc: string
let jsonldVc: JsonLdDocument
let storedId: string
let aboutOther: string

beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
  ;[holder, other, issuer] = [await walletWithToken(h), await walletWithToken(h), await walletWithToken(h)]
  const issue = async (sub: string, format: string) =>
    (
      await h.request('POST', '/claims/sign', {
        json: { iss: issuer.did, sub, format, claims: [{ id: `urn:example:${format}-${sub.slice(-6)}`, payload: { member: true } }] },
        didAuth: issuer.jwt,
      })
    ).body.vcs[0]
  jwtVc = (await issue(holder.did, 'JWT')).jwt
  jsonldVc = (await issue(holder.did, 'JSON-LD')).jsonld
  const stored = await h.request('POST', '/claims', { json: { claims: [{ jwt: jwtVc }] }, didAuth: holder.jwt })
  storedId = stored.body.vcs[0]._id
  // stored by the issuer, about another wallet, not public: the holder may not read it
  const hidden = await h.request('POST', '/claims', {
    json: { claims: [{ jwt: (await issue(other.did, 'JWT')).jwt }] },
    didAuth: issuer.jwt,
  })
  aboutOther = hidden.body.vcs[0]._id
})
afterAll(() => h?.close())

const sign = (json: unknown, didAuth = holder.jwt, token?: string) => h.request('POST', '/presentations/sign', { json, didAuth, token })
const verify = (json: unknown, didAuth = other.jwt) => h.request('POST', '/presentations/verify', { json, didAuth })
const claimsVerify = async (vcs: unknown[]) => (await h.request('POST', '/claims/verify', { json: { vcs }, didAuth: other.jwt })).body.vcs

/** A fresh key and its did:ethr:dev DID (a DID nobody changed: its owner is the key). */
function outsider() {
  const signer = new LocalSigner(generatePrivateKey())
  return { signer, did: `did:ethr:dev:${signer.address}` }
}

describe('JWT presentations', () => {
  it('a VP-JWT of stored, JWT and JSON-LD credentials: did-jwt-vc’s shape; it verifies, each credential exactly as /claims/verify has it', async () => {
    const before = await snapshot(h)
    const res = await sign({
      holder: holder.did,
      format: 'jwt',
      nonce: 'n-123',
      aud: 'https://verifier.example',
      expiresIn: 600_000,
      vcs: [{ _id: storedId }, { jwt: jwtVc }, { jsonld: jsonldVc }],
    })
    expect(res.status).toBe(200)
    expect(await snapshot(h)).toEqual(before)
    const { jwt } = res.body.presentation
    const { header, payload } = decodeJWT(jwt)
    expect(header).toMatchObject({ alg: 'ES256K', typ: 'JWT' })
    expect(payload).toMatchObject({ iss: holder.did, nonce: 'n-123', aud: 'https://verifier.example' })
    expect(payload.exp! - payload.nbf!).toBe(600)
    expect(payload.vp).toEqual({
      '@context': [CREDENTIALS_V1_URL],
      type: ['VerifiablePresentation'],
      verifiableCredential: [jwtVc, jwtVc, jsonldVc],
    })

    const checked = await verify({ presentation: { jwt }, nonce: 'n-123', aud: 'https://verifier.example' })
    expect(checked.status).toBe(200)
    expect(checked.body).toEqual({
      resolver: 'default',
      verified: true,
      holder: holder.did,
      checks: [
        { check: 'signature', verified: true, verificationMethod: `${holder.did}#controller` },
        { check: 'nonce', verified: true },
        { check: 'aud', verified: true },
        { check: 'nbf', verified: true },
        { check: 'exp', verified: true },
        { check: 'credential', credential: 0, verified: true },
        { check: 'credential', credential: 1, verified: true },
        { check: 'credential', credential: 2, verified: true },
      ],
      vcs: await claimsVerify([{ jwt: jwtVc }, { jwt: jwtVc }, { jsonld: jsonldVc }]),
    })
  })

  it('the verifier’s expectations: a nonce or audience mismatch, a missing aud, a tampered token are verified: false, named', async () => {
    const { jwt } = (await sign({ holder: holder.did, format: 'JWT', nonce: 'n-1', aud: 'https://a.example', vcs: [{ jwt: jwtVc }] })).body
      .presentation
    const replayed = await verify({ presentation: { jwt }, nonce: 'n-2', aud: 'https://a.example' })
    expect(replayed.status).toBe(200)
    expect(replayed.body).toMatchObject({ verified: false, error: 'nonce: does not match the expected nonce' })
    expect(replayed.body.checks).toContainEqual({ check: 'nonce', verified: false, error: 'does not match the expected nonce' })
    const elsewhere = await verify({ presentation: { jwt }, nonce: 'n-1', aud: 'https://b.example' })
    expect(elsewhere.body).toMatchObject({ verified: false, error: 'aud: does not name the expected audience' })
    const noAud = await verify({ presentation: { jwt }, nonce: 'n-1' })
    expect(noAud.body).toMatchObject({ verified: false, error: 'aud: names an audience: give the expected `aud`' })
    const tampered = await verify({ presentation: { jwt: tamper(jwt) }, nonce: 'n-1', aud: 'https://a.example' })
    expect(tampered.body).toMatchObject({ verified: false })
    expect(tampered.body.checks[0]).toMatchObject({ check: 'signature', verified: false })
  })

  it('expired, signed by a key the holder’s document does not list, or holding a bad credential: verified: false', async () => {
    const stranger = outsider()
    const now = Math.floor(Date.now() / 1000)
    const vp = { vp: { '@context': [CREDENTIALS_V1_URL], type: ['VerifiablePresentation'], verifiableCredential: [jwtVc] } }
    const expired = await createVerifiablePresentationJwt(
      { ...vp, exp: now - 3_600 },
      { did: stranger.did, signer: didJwtSigner(stranger.signer) },
    )
    expect((await verify({ presentation: { jwt: expired } })).body).toMatchObject({
      verified: false,
      error: 'exp: exp is malformed or has passed',
    })
    const impostor = await createVerifiablePresentationJwt(vp, { did: holder.did, signer: didJwtSigner(stranger.signer) })
    const res = await verify({ presentation: { jwt: impostor } })
    expect(res.body).toMatchObject({ verified: false, holder: holder.did })
    expect(res.body.checks[0]).toMatchObject({ check: 'signature', verified: false })
    const badVc = await createVerifiablePresentationJwt(
      { vp: { ...vp.vp, verifiableCredential: [tamper(jwtVc)] } },
      { did: stranger.did, signer: didJwtSigner(stranger.signer) },
    )
    const withBad = await verify({ presentation: { jwt: badVc } })
    expect(withBad.body).toMatchObject({ verified: false, vcs: [{ verified: false }] })
    expect(withBad.body.checks).toContainEqual(expect.objectContaining({ check: 'credential', credential: 0, verified: false }))
  })

  it('holderBinding: each credential’s subject must be the holder', async () => {
    const aboutHolder = (await sign({ holder: holder.did, format: 'JWT', vcs: [{ jwt: jwtVc }, { jsonld: jsonldVc }] })).body.presentation
    const bound = await verify({ presentation: aboutHolder, holderBinding: true })
    expect(bound.body.verified).toBe(true)
    expect(bound.body.checks.filter((c: { check: string }) => c.check === 'holderBinding')).toEqual([
      { check: 'holderBinding', credential: 0, verified: true },
      { check: 'holderBinding', credential: 1, verified: true },
    ])
    // other presents the holder's credential: every credential verifies, the binding does not
    const byOther = (await sign({ holder: other.did, format: 'JWT', vcs: [{ jwt: jwtVc }] }, other.jwt)).body.presentation
    expect((await verify({ presentation: byOther })).body.verified).toBe(true)
    expect((await verify({ presentation: byOther, holderBinding: true })).body).toMatchObject({
      verified: false,
      error: 'holderBinding 0: the credential’s subject is not the holder',
    })
  })

  it('garbage inside the presentation is verified: false in a 200, named', async () => {
    for (const [presentation, check] of [
      [{ jwt: 'not-a-jwt' }, 'format'],
      [{ jwt: 'eyJhbGciOiJFUzI1NksifQ.eyJpc3MiOiJ4In0.c2ln' }, 'format'],
      [{ jsonld: {} }, 'format'],
      [{ jsonld: { '@context': [CREDENTIALS_V1_URL], type: 'VerifiablePresentation', holder: holder.did } }, 'proof'],
      [
        { jsonld: { '@context': ['https://unknown.example/ctx'], type: 'VerifiablePresentation', holder: holder.did, proof: {} } },
        'format',
      ],
      [
        { jsonld: { '@context': [CREDENTIALS_V1_URL], type: 'VerifiablePresentation', holder: holder.did, verifiableCredential: [7] } },
        'format',
      ],
    ] as const) {
      const res = await verify({ presentation })
      expect(res.status, JSON.stringify(presentation)).toBe(200)
      expect(res.body).toMatchObject({ verified: false, vcs: [] })
      expect(res.body.checks[0]).toMatchObject({ check, verified: false })
    }
  })
})

describe('JSON-LD presentations', () => {
  it('data model 2.0 credentials make a credentials/v2 presentation that verifies; mixed with 1.1 ones: 422 naming both, nothing written', async () => {
    const signed = await h.request('POST', '/claims/sign', {
      json: {
        iss: issuer.did,
        sub: holder.did,
        format: 'JSON-LD',
        proofType: 'EcdsaSecp256k1RecoverySignature2020',
        context: 'https://www.w3.org/ns/credentials/v2',
        claims: [{ payload: { member: true } }],
      },
      didAuth: issuer.jwt,
    })
    const v2Vc = signed.body.vcs[0].jsonld
    const res = await sign({ holder: holder.did, format: 'JSON-LD', challenge: 'c-v2', vcs: [{ jsonld: v2Vc }] })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.presentation.jsonld['@context'][0]).toBe('https://www.w3.org/ns/credentials/v2')
    const verified = await verify({ presentation: res.body.presentation, challenge: 'c-v2' })
    expect(verified.body.verified, JSON.stringify(verified.body.checks)).toBe(true)
    expect(verified.body.vcs[0]).toMatchObject({ verified: true })

    const before = await snapshot(h)
    const mixed = await sign({ holder: holder.did, format: 'JSON-LD', challenge: 'c', vcs: [{ jsonld: jsonldVc }, { jsonld: v2Vc }] })
    expectError(mixed, 422, 'VALIDATION_ERROR')
    expect(mixed.body.errorMessage).toMatch(/^vcs\.1: a data model 2\.0 credential .* data model 1\.1 ones \(vcs\.0\)/)
    expect(await snapshot(h)).toEqual(before)
  })

  it('an EcdsaSecp256k1RecoverySignature2020 authentication proof with challenge, domain and expires; verified against them', async () => {
    const res = await sign({
      holder: holder.did,
      format: 'JSON-LD',
      challenge: 'c-1',
      domain: 'verifier.example',
      expiresIn: 600_000,
      vcs: [{ jsonld: jsonldVc }],
    })
    expect(res.status).toBe(200)
    const vp = res.body.presentation.jsonld
    expect(vp).toMatchObject({
      '@context': [CREDENTIALS_V1_URL, 'https://w3id.org/security/suites/secp256k1recovery-2020/v2'],
      type: ['VerifiablePresentation'],
      holder: holder.did,
      verifiableCredential: [jsonldVc],
      proof: {
        type: 'EcdsaSecp256k1RecoverySignature2020',
        verificationMethod: `${holder.did}#controller`,
        proofPurpose: 'authentication',
        challenge: 'c-1',
        domain: 'verifier.example',
        jws: expect.stringMatching(/^[\w-]+\.\.[\w-]+$/),
      },
    })
    expect(Date.parse(vp.proof.expires) - Date.parse(vp.proof.created)).toBe(600_000)
    const ok = await verify({ presentation: { jsonld: vp }, challenge: 'c-1', domain: 'verifier.example' })
    expect(ok.body).toEqual({
      resolver: 'default',
      verified: true,
      holder: holder.did,
      checks: [
        { check: 'proof', verified: true },
        { check: 'proofPurpose', verified: true },
        { check: 'challenge', verified: true },
        { check: 'domain', verified: true },
        { check: 'expires', verified: true },
        { check: 'credential', credential: 0, verified: true },
      ],
      vcs: await claimsVerify([{ jsonld: jsonldVc }]),
    })
    expect((await verify({ presentation: { jsonld: vp }, challenge: 'c-2' })).body).toMatchObject({
      verified: false,
      error: 'challenge: does not match the expected challenge',
    })
    expect((await verify({ presentation: { jsonld: vp }, challenge: 'c-1', domain: 'x.example' })).body.error).toBe(
      'domain: does not match the expected domain',
    )
    // a changed challenge breaks the signature too (it is signed)
    const altered = { ...vp, proof: { ...vp.proof, challenge: 'c-2' } }
    expect((await verify({ presentation: { jsonld: altered }, challenge: 'c-2' })).body.checks[0]).toMatchObject({
      check: 'proof',
      verified: false,
    })
    const swapped = { ...vp, verifiableCredential: [{ ...jsonldVc, credentialSubject: { id: other.did, member: true } }] }
    expect((await verify({ presentation: { jsonld: swapped }, challenge: 'c-1' })).body.verified).toBe(false)
  })

  it('a credential proof (assertionMethod) is no presentation proof; expired proofs fail', async () => {
    const me = outsider()
    const unsigned = {
      '@context': [CREDENTIALS_V1_URL],
      type: ['VerifiablePresentation'],
      holder: me.did,
      verifiableCredential: [jsonldVc],
    }
    const asCredential = await signRecovery2020(unsigned, me.signer, { creator: `${me.did}#controller`, challenge: 'c' })
    expect((await verify({ presentation: { jsonld: asCredential }, challenge: 'c' })).body).toMatchObject({
      verified: false,
      error: 'proofPurpose: the holder’s proof is not for authentication',
    })
    const expired = await signRecovery2020(unsigned, me.signer, {
      creator: `${me.did}#controller`,
      proofPurpose: 'authentication',
      challenge: 'c',
      expires: new Date(Date.now() - 3_600_000),
    })
    expect((await verify({ presentation: { jsonld: expired }, challenge: 'c' })).body).toMatchObject({
      verified: false,
      error: 'expires: expires is malformed or has passed',
    })
  })

  it('refused: a VC-JWT in a JSON-LD presentation, no challenge, a binding named twice with different values (422, nothing written)', async () => {
    const before = await snapshot(h)
    expectError(await sign({ holder: holder.did, format: 'JSON-LD', challenge: 'c', vcs: [{ jwt: jwtVc }] }), 422, 'VALIDATION_ERROR')
    expectError(await sign({ holder: holder.did, format: 'JSON-LD', vcs: [{ jsonld: jsonldVc }] }), 422, 'VALIDATION_ERROR')
    expectError(
      await sign({ holder: holder.did, format: 'JSON-LD', challenge: 'c', nonce: 'n', vcs: [{ jsonld: jsonldVc }] }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(
      await sign({ holder: holder.did, format: 'JWT', challenge: 'c', nonce: 'n', vcs: [{ jwt: jwtVc }] }),
      422,
      'VALIDATION_ERROR',
    )
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('who may present', () => {
  it('a holder the caller does not control — another wallet of the tenant, a delegate, another tenant’s DID — is refused, nothing signed', async () => {
    const before = await snapshot(h)
    const vcs = [{ jwt: jwtVc }]
    expectError(await sign({ holder: holder.did, format: 'JWT', vcs }, other.jwt), 403, 'FORBIDDEN')
    // a veriKey delegate of the holder authenticates as the holder's DID, but holds no owner key
    const delegateKey = generatePrivateKey()
    const configured = await h.request('POST', '/wallet/configure', {
      json: {
        wallet: { did: holder.did },
        walletConfig: { txsInput: [{ delegate: { address: new LocalSigner(delegateKey).address, validity: 600_000 } }] },
      },
      didAuth: holder.jwt,
    })
    expect(configured.status, JSON.stringify(configured.body)).toBe(200)
    const afterDelegation = await snapshot(h)
    const delegateToken = await mintToken({ iss: holder.did, signerKey: delegateKey })
    expectError(await sign({ holder: holder.did, format: 'JWT', vcs }, delegateToken.jwt), 403, 'FORBIDDEN')
    const foreign = await walletWithToken(h, TENANT_B)
    const afterForeign = await snapshot(h)
    const res = await sign({ holder: foreign.did, format: 'JWT', vcs })
    expectError(res, 422, 'NOT_FOUND')
    expect(res.body.errorMessage).toMatch(/^iss: no wallet of this tenant has DID/)
    expect(await snapshot(h)).toEqual(afterForeign)
    expect(before).not.toEqual(afterDelegation)
  })

  it('a stored credential the caller may not read, or another tenant’s, is answered as one that does not exist', async () => {
    const before = await snapshot(h)
    const missing = await sign({ holder: holder.did, format: 'JWT', vcs: [{ _id: 'no-such-id' }] })
    const hidden = await sign({ holder: holder.did, format: 'JWT', vcs: [{ _id: aboutOther }] })
    expectError(missing, 422, 'NOT_FOUND')
    expectError(hidden, 422, 'NOT_FOUND')
    expect(hidden.body.errorMessage).toBe(missing.body.errorMessage.replace('no-such-id', aboutOther))
    const foreign = await walletWithToken(h, TENANT_B)
    const b = await sign({ holder: foreign.did, format: 'JWT', vcs: [{ _id: storedId }] }, foreign.jwt, TENANT_B)
    expectError(b, 422, 'NOT_FOUND')
    expect(b.body.errorMessage).toBe(`vcs.0._id: no stored credential ${storedId} that the caller may read`)
    // the issuer, who stored it, may
    expect((await sign({ holder: issuer.did, format: 'JWT', vcs: [{ _id: aboutOther }] }, issuer.jwt)).status).toBe(200)
    expect(before).not.toEqual(await snapshot(h)) // the tenant-B wallet only
  })

  it('bad envelopes, forged and expired DID-auth tokens, 1,001 credentials, huge input: error bodies, nothing written', async () => {
    const before = await snapshot(h)
    const ok = { holder: holder.did, format: 'JWT', vcs: [{ jwt: jwtVc }] }
    for (const body of [
      {},
      { ...ok, holder: undefined },
      { ...ok, vcs: [] },
      { ...ok, vcs: 'x' },
      { ...ok, format: 'PDF' },
      { ...ok, extra: 1 },
      { ...ok, vcs: [{ jwt: jwtVc, _id: 'x' }] },
      { ...ok, expiresIn: -1 },
      { ...ok, holder: 'not-a-did' },
    ]) {
      expectError(await sign(body), 422, 'VALIDATION_ERROR')
    }
    const tooMany = await sign({ ...ok, vcs: Array.from({ length: 1_001 }, () => ({ _id: storedId })) })
    expectError(tooMany, 422, 'VALIDATION_ERROR')
    expect(tooMany.body.errorMessage).toContain('at most 1000 credentials per presentation')
    expectError(await sign({ ...ok, vcs: [{ jwt: 'x'.repeat(1_100_000) }] }), 413, 'PAYLOAD_TOO_LARGE')
    expectError(await sign(ok, tamper(holder.jwt)), 403, 'UNAUTHENTICATED')
    expectError(await sign(ok, (await mintToken({ expIn: -600 })).jwt), 403, 'UNAUTHENTICATED')
    for (const body of [{}, { presentation: { jwt: 1 } }, { presentation: { jwt: 'x' }, extra: 1 }, { presentation: { pdf: 'x' } }]) {
      expectError(await verify(body), 422, 'VALIDATION_ERROR')
    }
    expectError(await h.request('POST', '/presentations/verify', { json: { presentation: { jwt: 'x' } } }), 403, 'UNAUTHENTICATED')
    expect(await snapshot(h)).toEqual(before)
  })

  it('1,000 credentials are presented', async () => {
    const res = await sign({ holder: holder.did, format: 'JWT', vcs: Array.from({ length: 1_000 }, () => ({ _id: storedId })) })
    expect(res.status).toBe(200)
    expect((decodeJWT(res.body.presentation.jwt).payload.vp as { verifiableCredential: unknown[] }).verifiableCredential).toHaveLength(
      1_000,
    )
  })
})

/**
 * VC-JOSE (issue 32 §3: W3C "Securing Verifiable Credentials using JOSE and COSE", a VCDM 2.0 credential as the payload of
 * a compact JWS) through the router on loopback HTTP (SQLite file) and the embedded API: Sign Claims with `format:
 * "VC-JOSE"` for issuers of each key type (did:jwk), the header `{ alg, typ: vc+jwt, cty: vc, kid }` and the payload the
 * credential itself; node:crypto and did-jwt's `verifyJWS` verify our signature with the issuer's JWK; VC-JOSE credentials
 * made outside didvault (node:crypto, and did-jwt's `createJWS`, with did:jwk keys) verify and store here; `vp+jwt`
 * presentations enveloping them sign and verify (nonce, aud, holder binding, revocation); Store / Fetch / Delete keep `format: 'VC-JOSE'` and its index
 * fields; a Bitstring status entry is checked and, once revoked, fails; refusals (a `vc` claim, `typ` wrong, `alg: none`,
 * credentials/v1) are the error body with nothing written, or `verified: false` naming the check.
 */
import { generateKeyPairSync, sign as nodeSign } from 'node:crypto'
import { createJWS, EdDSASigner, ES256KSigner, ES256Signer, verifyJWS, type JWTHeader } from 'did-jwt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CredentialRecord } from '../../src/credentials/records.js'
import type { KeyType, PublicJwk } from '../../src/keys/key-types.js'
import { CREDENTIALS_V1_URL, CREDENTIALS_V2_URL } from '../../src/proofs/jsonld/index.js'
import { expectError, snapshot, startHarness, TENANT_A, type Harness } from '../helpers/harness.js'
import { ALG_OF, didJwkOf, KEY_TYPES, nodeVerifier } from './sd-jwt/helpers.js'

const PUBLIC_URL = 'https://vault.example.com/identity'

let h: Harness
beforeAll(async () => {
  // The publisher's interval is an hour: the revocation test asks for publication itself.
  h = await startHarness({ storage: 'sqlite', service: { publicUrl: PUBLIC_URL, statusPublishIntervalMs: 3_600_000 } })
})
afterAll(() => h?.close())

type Party = { did: string; jwt: string }

/** A did:jwk wallet of the tenant with a key of `keyType`, and its DID-auth token. */
async function walletOf(keyType: KeyType): Promise<Party> {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'jwk', keyType } } })
  expect(made.status).toBe(200)
  const did: string = made.body.wallet.did
  const token = await h.request('POST', '/did-auth-jwt', { json: { iss: did } })
  expect(token.status).toBe(200)
  return { did, jwt: token.body.jwt }
}

const jwkOfDidJwk = (did: string): PublicJwk => JSON.parse(Buffer.from(did.slice('did:jwk:'.length), 'base64url').toString('utf8'))
const decodePart = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, any>
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

const sign = (issuer: Party, body: Record<string, unknown>) =>
  h.request('POST', '/claims/sign', { json: { iss: issuer.did, format: 'VC-JOSE', ...body }, didAuth: issuer.jwt })
const verifyHere = async (jwt: string, didAuth: string) => {
  const res = await h.request('POST', '/claims/verify', { json: { claims: [{ jwt }] }, didAuth })
  expect(res.status).toBe(200)
  return res.body.vcs[0]
}
const checksOf = (verification: { checks: Array<{ check: string }> }) => verification.checks.map((c) => c.check)

/** A key held outside didvault (node:crypto) and the JWS it signs: `header` and `payload` as given. */
function outsideIssuer(type: KeyType) {
  const { privateKey, publicKey } =
    type === 'Ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: type === 'P-256' ? 'prime256v1' : 'secp256k1' })
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as PublicJwk
  const publicJwk = (y === undefined ? { kty, crv, x } : { kty, crv, x, y }) as PublicJwk
  const jws = (header: Record<string, unknown>, payload: Record<string, unknown>) => {
    const data = `${b64(header)}.${b64(payload)}`
    const input = Buffer.from(data, 'utf8')
    const signature =
      type === 'Ed25519' ? nodeSign(null, input, privateKey) : nodeSign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' })
    return `${data}.${signature.toString('base64url')}`
  }
  return { publicJwk, jws }
}

/** did-jwt's signer of a key held outside didvault (the private key's JWK `d`). */
function didJwtSignerOf(type: KeyType) {
  const { privateKey, publicKey } =
    type === 'Ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: type === 'P-256' ? 'prime256v1' : 'secp256k1' })
  const d = new Uint8Array(Buffer.from((privateKey.export({ format: 'jwk' }) as { d: string }).d, 'base64url'))
  const signer = type === 'Ed25519' ? EdDSASigner(d) : type === 'P-256' ? ES256Signer(d) : ES256KSigner(d)
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as PublicJwk
  return { signer, publicJwk: (y === undefined ? { kty, crv, x } : { kty, crv, x, y }) as PublicJwk }
}

/** A VCDM 2.0 credential of `issuer`, valid from an hour ago for a day. */
const credentialOf = (issuer: string, extra: Record<string, unknown> = {}) => ({
  '@context': [CREDENTIALS_V2_URL],
  id: 'urn:uuid:32000000-0000-4000-8000-00000000a001',
  type: ['VerifiableCredential', 'ExampleDegreeCredential'],
  issuer: { id: issuer, name: 'Example University' },
  validFrom: new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  validUntil: new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  credentialSubject: { id: 'did:example:ebfeb1f712ebc6f1c276e12ec21', degree: { type: 'ExampleBachelorDegree', name: 'BSc' } },
  ...extra,
})

describe('Sign Claims, format VC-JOSE', () => {
  for (const keyType of KEY_TYPES) {
    it(`a ${keyType} issuer: a vc+jwt JWS whose payload is the VCDM 2.0 credential; node:crypto and Verify Claims verify it`, async () => {
      const issuer = await walletOf(keyType)
      const id = `urn:uuid:32000000-0000-4000-8000-0000000000${KEY_TYPES.indexOf(keyType)}1`
      const res = await sign(issuer, {
        format: 'vc-jose',
        sub: 'did:example:holder',
        type: 'ExampleDegreeCredential',
        expiresIn: 3_600_000,
        claims: [{ id, payload: { degree: 'BSc' } }],
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(Object.keys(res.body.vcs[0]).sort()).toEqual(['id', 'jwt'])
      const jws: string = res.body.vcs[0].jwt
      const [header, payload] = jws.split('.').slice(0, 2).map(decodePart)
      expect(header).toEqual({ alg: ALG_OF[keyType], typ: 'vc+jwt', cty: 'vc', kid: `${issuer.did}#0` })
      expect(payload).toEqual({
        '@context': [CREDENTIALS_V2_URL],
        id,
        type: ['VerifiableCredential', 'ExampleDegreeCredential'],
        issuer: issuer.did,
        validFrom: expect.any(String),
        validUntil: expect.any(String),
        credentialSubject: { id: 'did:example:holder', degree: 'BSc' },
      })
      expect(Date.parse(payload.validUntil) - Date.parse(payload.validFrom)).toBe(3_600_000)

      // An independent check of the signature: node:crypto with the issuer's public JWK (from its did:jwk).
      const [h64, p64, s64] = jws.split('.')
      expect(nodeVerifier(jwkOfDidJwk(issuer.did))(`${h64}.${p64}`, s64)).toBe(true)
      expect(nodeVerifier(jwkOfDidJwk(issuer.did))(`${h64}.${b64({ ...payload, id: 'urn:other' })}`, s64)).toBe(false)

      const checked = await verifyHere(jws, issuer.jwt)
      expect(checked).toMatchObject({ jwt: jws, verified: true, issuer: issuer.did })
      expect(checksOf(checked)).toEqual(['signature', 'validFrom', 'validUntil'])
      // one payload byte changed: the signature no longer verifies
      const forged = await verifyHere(`${h64}.${b64({ ...payload, credentialSubject: { degree: 'PhD' } })}.${s64}`, issuer.jwt)
      expect(forged).toMatchObject({ verified: false, checks: [{ check: 'signature', verified: false }] })
    })
  }

  it('the embedded API signs and verifies the same', async () => {
    const issuer = await walletOf('P-256')
    const api = h.service.as({ authorization: TENANT_A, didAuth: issuer.jwt })
    const signed = await api.signClaims({ iss: issuer.did, format: 'VC-JOSE', claims: [{ payload: { member: true } }] })
    const { jwt } = signed.vcs[0] as { jwt: string }
    expect(decodePart(jwt.split('.')[0])).toMatchObject({ typ: 'vc+jwt', cty: 'vc', alg: 'ES256' })
    // a claim without id gets a claim DID, as in the other W3C formats
    expect(decodePart(jwt.split('.')[1]).id).toMatch(/^did:/)
    const verified = await api.verifyClaims({ claims: [{ jwt }] })
    expect(verified.vcs[0]).toMatchObject({ verified: true, issuer: issuer.did })
  })

  it('credentials/v1, or a VC-JWT-only field, is 422 with nothing written', async () => {
    const issuer = await walletOf('Ed25519')
    const before = await snapshot(h)
    const v1 = await sign(issuer, { context: CREDENTIALS_V1_URL, claims: [{ payload: { a: 1 } }] })
    expectError(v1, 422, 'VALIDATION_ERROR')
    expect(v1.body.errorMessage).toMatch(/a VC-JOSE credential is VC Data Model 2\.0/)
    const proofType = await sign(issuer, { proofType: 'EcdsaKoblitzSignature2016', claims: [{ payload: { a: 1 } }] })
    expectError(proofType, 422, 'VALIDATION_ERROR')
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('a VC-JOSE credential made outside didvault (node:crypto, a did:jwk key)', () => {
  for (const keyType of KEY_TYPES) {
    it(`${keyType}: verifies, stores with verify: true, and fetches back as given`, async () => {
      const outside = outsideIssuer(keyType)
      const { did, kid } = await didJwkOf(outside.publicJwk)
      const jws = outside.jws({ alg: ALG_OF[keyType], typ: 'vc+jwt', cty: 'vc', kid }, credentialOf(did))
      const reader = await walletOf('P-256')
      const checked = await verifyHere(jws, reader.jwt)
      expect(checked).toMatchObject({ verified: true, issuer: did })
      expect(checksOf(checked)).toEqual(['signature', 'validFrom', 'validUntil'])
      const stored = await h.request('POST', '/claims', { json: { verify: true, claims: [{ jwt: jws }] }, didAuth: reader.jwt })
      expect(stored.body).toMatchObject({
        errors: [],
        vcs: [{ jwt: jws, issuer: did, subject: 'did:example:ebfeb1f712ebc6f1c276e12ec21' }],
      })
      // a kid of another DID, or an issuer whose key did not sign: not verified
      const other = await didJwkOf(outsideIssuer(keyType).publicJwk)
      const wrongIssuer = outside.jws({ alg: ALG_OF[keyType], typ: 'vc+jwt', kid: `${other.did}#0` }, credentialOf(other.did))
      expect(await verifyHere(wrongIssuer, reader.jwt)).toMatchObject({ verified: false, checks: [{ check: 'signature' }] })
    })
  }
})

describe('interop with did-jwt (an independent JOSE implementation)', () => {
  for (const keyType of KEY_TYPES) {
    it(`${keyType}: did-jwt's verifyJWS verifies ours with the issuer's JWK; a credential made by did-jwt's createJWS verifies here`, async () => {
      const issuer = await walletOf(keyType)
      const ours: string = (await sign(issuer, { claims: [{ payload: { degree: 'BSc' } }] })).body.vcs[0].jwt
      const method = { id: `${issuer.did}#0`, type: 'JsonWebKey2020', controller: issuer.did, publicKeyJwk: jwkOfDidJwk(issuer.did) }
      expect(verifyJWS(ours, method)).toMatchObject({ id: method.id })
      const [h64, p64, s64] = ours.split('.')
      expect(() => verifyJWS(`${h64}.${b64({ ...decodePart(p64), id: 'urn:other' })}.${s64}`, method)).toThrow()

      const outside = didJwtSignerOf(keyType)
      const { did, kid } = await didJwkOf(outside.publicJwk)
      // did-jwt types `typ` as 'JWT' only; it writes the header it is given.
      const header = { alg: ALG_OF[keyType], typ: 'vc+jwt', cty: 'vc', kid } as unknown as Partial<JWTHeader>
      const theirs = await createJWS(credentialOf(did), outside.signer, header)
      expect(decodePart(theirs.split('.')[0])).toMatchObject({ alg: ALG_OF[keyType], typ: 'vc+jwt', cty: 'vc', kid })
      const reader = await walletOf('P-256')
      expect(await verifyHere(theirs, reader.jwt)).toMatchObject({ verified: true, issuer: did })
    })
  }
})

describe('Store, Fetch, Delete', () => {
  it('keeps format VC-JOSE and the index fields of the payload; Fetch gives it back; Delete removes it', async () => {
    const issuer = await walletOf('Ed25519')
    const id = 'urn:uuid:32000000-0000-4000-8000-00000000b001'
    const jws: string = (
      await sign(issuer, { sub: 'did:example:holder', type: 'ExampleDegreeCredential', claims: [{ id, payload: { degree: 'BSc' } }] })
    ).body.vcs[0].jwt
    const res = await h.request('POST', '/claims', { json: { claims: [{ jwt: jws }] }, didAuth: issuer.jwt })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const stored = res.body.vcs[0]
    expect(stored).toMatchObject({
      id,
      issuer: issuer.did,
      subject: 'did:example:holder',
      type: ['VerifiableCredential', 'ExampleDegreeCredential'],
      jwt: jws,
    })
    const payload = decodePart(jws.split('.')[1])
    const record = (await h.storage.collection<CredentialRecord>('credentials').get(stored._id))!
    expect(record).toMatchObject({
      format: 'VC-JOSE',
      encoded: jws,
      vcId: id,
      issuer: issuer.did,
      subject: 'did:example:holder',
      types: ['VerifiableCredential', 'ExampleDegreeCredential'],
      issuanceDate: payload.validFrom,
    })
    // stored again: the same record (content hash)
    const again = await h.request('POST', '/claims', { json: { claims: [{ jwt: jws }] }, didAuth: issuer.jwt })
    expect(again.body.vcs[0]._id).toBe(stored._id)

    const fetched = await h.request('GET', `/claims?ids=${encodeURIComponent(id)}`, { didAuth: issuer.jwt })
    expect(fetched.status, JSON.stringify(fetched.body)).toBe(200)
    expect(fetched.body.vcs).toEqual([stored])

    const deleted = await h.request('DELETE', '/claims', { json: { ids: [stored._id] }, token: issuer.jwt })
    expect(deleted.body).toMatchObject({ vcs: [stored], errors: [] })
    expect(await h.storage.collection('credentials').get(stored._id)).toBeUndefined()
  })

  it('the high-S twin of an ES256 credential is the same record (its content hash is of the low-S form)', async () => {
    const issuer = await walletOf('P-256')
    const jws: string = (await sign(issuer, { claims: [{ payload: { n: 2 } }] })).body.vcs[0].jwt
    const [h64, p64, s64] = jws.split('.')
    const signature = Buffer.from(s64, 'base64url')
    const n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n
    const twinS = (n - BigInt(`0x${signature.subarray(32).toString('hex')}`)).toString(16).padStart(64, '0')
    const twin = `${h64}.${p64}.${Buffer.concat([signature.subarray(0, 32), Buffer.from(twinS, 'hex')]).toString('base64url')}`
    expect(twin).not.toBe(jws)
    const first = await h.request('POST', '/claims', { json: { claims: [{ jwt: jws }] }, didAuth: issuer.jwt })
    const second = await h.request('POST', '/claims', { json: { claims: [{ jwt: twin }] }, didAuth: issuer.jwt })
    expect(second.body.vcs[0]._id).toBe(first.body.vcs[0]._id)
  })

  it('refuses a `vc` claim, a wrong typ, alg none and credentials/v1: each item an exact 422, nothing written', async () => {
    const outside = outsideIssuer('P-256')
    const { did, kid } = await didJwkOf(outside.publicJwk)
    const reader = await walletOf('P-256')
    const header = { alg: 'ES256', typ: 'vc+jwt', cty: 'vc', kid }
    const cases = [
      { jwt: outside.jws(header, { ...credentialOf(did), vc: credentialOf(did) }), message: /a `vc` claim is a VC-JWT’s/, check: 'format' },
      { jwt: outside.jws({ ...header, typ: 'JWT' }, credentialOf(did)), message: /typ must be vc\+jwt/, check: 'typ' },
      { jwt: `${b64({ ...header, alg: 'none' })}.${b64(credentialOf(did))}.`, message: /alg must be one of/, check: 'alg' },
      {
        jwt: outside.jws(header, credentialOf(did, { '@context': [CREDENTIALS_V1_URL] })),
        message: /@context must begin with https:\/\/www\.w3\.org\/ns\/credentials\/v2/,
        check: 'format',
      },
    ]
    const before = await snapshot(h)
    const res = await h.request('POST', '/claims', { json: { claims: cases.map(({ jwt }) => ({ jwt })) }, didAuth: reader.jwt })
    expect(res.status).toBe(200)
    expect(res.body.vcs).toEqual([])
    expect(res.body.errors).toEqual(
      cases.map((_, claim) => ({ claim, error: { statusCode: 422, errorType: 'VALIDATION_ERROR', errorMessage: expect.any(String) } })),
    )
    cases.forEach(({ message }, i) => expect(res.body.errors[i].error.errorMessage).toMatch(message))
    expect(await snapshot(h)).toEqual(before)
    for (const { jwt, check } of cases)
      expect(await verifyHere(jwt, reader.jwt)).toMatchObject({ verified: false, checks: [{ check, verified: false }] })
  })
})

describe('status', () => {
  it('a Bitstring entry is checked when verifying; once revoked, the credential does not verify', async () => {
    const issuer = await walletOf('P-256')
    const id = 'urn:uuid:32000000-0000-4000-8000-00000000c001'
    const res = await sign(issuer, { status: { purposes: ['revocation'] }, claims: [{ id, payload: { n: 1 } }] })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const jws: string = res.body.vcs[0].jwt
    expect(decodePart(jws.split('.')[1]).credentialStatus).toMatchObject({
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListCredential: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/status/`)),
    })
    // the list is a VC-JOSE credential of the issuer too, served as application/vc+jwt
    const listUrl: string = decodePart(jws.split('.')[1]).credentialStatus.statusListCredential
    const list = await fetch(h.url + listUrl.slice(PUBLIC_URL.length))
    expect(list.headers.get('content-type')).toMatch(/^application\/vc\+jwt/)
    const listJws = await list.text()
    expect(decodePart(listJws.split('.')[0])).toMatchObject({ typ: 'vc+jwt', cty: 'vc', kid: `${issuer.did}#0` })
    expect(decodePart(listJws.split('.')[1])).toMatchObject({
      '@context': [CREDENTIALS_V2_URL],
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      credentialSubject: { type: 'BitstringStatusList', statusPurpose: 'revocation' },
    })
    const fresh = await verifyHere(jws, issuer.jwt)
    expect(fresh).toMatchObject({ verified: true })
    expect(fresh.checks.find((c: { check: string }) => c.check === 'status')).toMatchObject({ verified: true, value: false })

    const revoked = await h.request('POST', '/claims/status', {
      json: { items: [{ id, purpose: 'revocation', value: true }] },
      didAuth: issuer.jwt,
    })
    expect(revoked.body.errors).toEqual([])
    await h.service.publishStatusLists()
    const after = await verifyHere(jws, issuer.jwt)
    expect(after).toMatchObject({ verified: false })
    expect(after.checks.find((c: { check: string }) => c.check === 'status')).toMatchObject({ verified: false, reason: 'revoked' })
  })
})

describe('presentations, format VC-JOSE', () => {
  const present = (holder: Party, body: Record<string, unknown>) =>
    h.request('POST', '/presentations/sign', { json: { holder: holder.did, format: 'VC-JOSE', ...body }, didAuth: holder.jwt })
  const verifyPresentation = (didAuth: string, jwt: string, body: Record<string, unknown> = {}) =>
    h.request('POST', '/presentations/verify', { json: { presentation: { jwt }, ...body }, didAuth })

  for (const keyType of KEY_TYPES) {
    it(`a ${keyType} holder: a vp+jwt enveloping the credentials, bound to nonce and aud; verified with each credential`, async () => {
      const issuer = await walletOf('P-256')
      const holder = await walletOf(keyType)
      const signed = await sign(issuer, { sub: holder.did, claims: [{ payload: { a: 1 } }, { payload: { b: 2 } }] })
      const [first, second] = signed.body.vcs.map((vc: { jwt: string }) => vc.jwt)
      const stored = await h.request('POST', '/claims', { json: { claims: [{ jwt: second }] }, didAuth: holder.jwt })
      const res = await present(holder, {
        vcs: [{ jwt: first }, { _id: stored.body.vcs[0]._id }],
        nonce: 'n-0S6_WzA2Mj',
        aud: 'https://verifier.example',
        expiresIn: 600_000,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const vp: string = res.body.presentation.jwt
      const [header, payload] = vp.split('.').slice(0, 2).map(decodePart)
      expect(header).toEqual({ alg: ALG_OF[keyType], typ: 'vp+jwt', cty: 'vp', kid: `${holder.did}#0` })
      expect(payload).toEqual({
        '@context': [CREDENTIALS_V2_URL],
        type: ['VerifiablePresentation'],
        holder: holder.did,
        verifiableCredential: [first, second].map((jws) => ({
          '@context': CREDENTIALS_V2_URL,
          type: 'EnvelopedVerifiableCredential',
          id: `data:application/vc+jwt,${jws}`,
        })),
        nonce: 'n-0S6_WzA2Mj',
        aud: 'https://verifier.example',
        iat: expect.any(Number),
        nbf: payload.iat,
        exp: payload.iat + 600,
      })
      const [h64, p64, s64] = vp.split('.')
      expect(nodeVerifier(jwkOfDidJwk(holder.did))(`${h64}.${p64}`, s64)).toBe(true)

      const binding = { nonce: 'n-0S6_WzA2Mj', aud: 'https://verifier.example', holderBinding: true }
      const verified = await verifyPresentation(holder.jwt, vp, binding)
      expect(verified.status, JSON.stringify(verified.body)).toBe(200)
      expect(verified.body).toMatchObject({ verified: true, holder: holder.did })
      expect(checksOf(verified.body)).toEqual([
        'signature',
        'nonce',
        'aud',
        'nbf',
        'exp',
        'credential',
        'credential',
        'holderBinding',
        'holderBinding',
      ])
      expect(verified.body.vcs).toMatchObject([
        { jwt: first, verified: true, issuer: issuer.did },
        { jwt: second, verified: true, issuer: issuer.did },
      ])

      // another nonce or audience, a changed payload: not verified, naming the check
      const otherNonce = await verifyPresentation(holder.jwt, vp, { ...binding, nonce: 'other' })
      expect(otherNonce.body).toMatchObject({ verified: false, error: expect.stringMatching(/^nonce: /) })
      const otherAud = await verifyPresentation(holder.jwt, vp, { ...binding, aud: 'https://other.example' })
      expect(otherAud.body).toMatchObject({ verified: false, error: expect.stringMatching(/^aud: /) })
      const forged = await verifyPresentation(holder.jwt, `${h64}.${b64({ ...payload, verifiableCredential: [] })}.${s64}`, binding)
      expect(forged.body).toMatchObject({ verified: false, error: expect.stringMatching(/^signature: /) })
    })
  }

  it('a VC-JWT or JSON-LD credential in a VC-JOSE presentation is 422; a presentation by another holder does not verify', async () => {
    const issuer = await walletOf('Ed25519')
    const holder = await walletOf('Ed25519')
    const vcJwt = (await sign(issuer, { format: 'JWT', claims: [{ payload: { a: 1 } }] })).body.vcs[0].jwt
    const before = await snapshot(h)
    const refused = await present(holder, { vcs: [{ jwt: vcJwt }], nonce: 'n' })
    expectError(refused, 422, 'VALIDATION_ERROR')
    expect(refused.body.errorMessage).toMatch(/^vcs\.0: a VC-JOSE presentation holds VC-JOSE credentials only/)
    expect(await snapshot(h)).toEqual(before)

    // the holder it names is not who signed: the signature is by no authentication key of that holder
    const vc = (await sign(issuer, { claims: [{ payload: { a: 1 } }] })).body.vcs[0].jwt
    const vp: string = (await present(holder, { vcs: [{ jwt: vc }], nonce: 'n' })).body.presentation.jwt
    const [h64, p64, s64] = vp.split('.')
    const payload = decodePart(p64)
    const claimed = await verifyPresentation(holder.jwt, `${h64}.${b64({ ...payload, holder: issuer.did })}.${s64}`, { nonce: 'n' })
    expect(claimed.body).toMatchObject({ verified: false, holder: issuer.did, error: expect.stringMatching(/^signature: /) })
    // a vp+jwt whose credentials are not enveloped VC-JOSE ones: format
    const bare = await verifyPresentation(holder.jwt, `${h64}.${b64({ ...payload, verifiableCredential: [vc] })}.${s64}`, { nonce: 'n' })
    expect(bare.body).toMatchObject({ verified: false, checks: [{ check: 'format', verified: false }] })
  })

  it('a revoked credential fails inside a verified presentation', async () => {
    const issuer = await walletOf('P-256')
    const holder = await walletOf('P-256')
    const id = 'urn:uuid:32000000-0000-4000-8000-00000000d001'
    const vc = (await sign(issuer, { sub: holder.did, status: { purposes: ['revocation'] }, claims: [{ id, payload: { n: 1 } }] })).body
      .vcs[0].jwt
    const vp: string = (await present(holder, { vcs: [{ jwt: vc }], nonce: 'n' })).body.presentation.jwt
    expect((await verifyPresentation(holder.jwt, vp, { nonce: 'n' })).body).toMatchObject({ verified: true })
    await h.request('POST', '/claims/status', { json: { items: [{ id, purpose: 'revocation', value: true }] }, didAuth: issuer.jwt })
    await h.service.publishStatusLists()
    const after = (await verifyPresentation(holder.jwt, vp, { nonce: 'n' })).body
    expect(after).toMatchObject({ verified: false, error: expect.stringMatching(/^credential 0: status/) })
  })
})

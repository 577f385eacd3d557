/**
 * SD-JWT VC through Sign Claims and Verify Claims (issue 31 §2), through the router on loopback HTTP (SQLite file) and
 * the embedded API: issuers of each key type on did:jwk, on did:web and did:ethr; `cnf.jwk` from the subject DID's
 * first `authentication` key or `holderJwk`; `@sd-jwt/sd-jwt-vc` verifies what Sign Claims returns and what it issues
 * verifies here; Verify Claims answers named checks and `disclosed`, and a bad credential is `verified: false` in a 200; each refusal is the error body with nothing written;
 * the audit record of a sign holds no disclosure or salt.
 */
import { digest } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUDIT_RECORDS } from '../../../src/audit/records.js'
import { collectionOf } from '../../../src/storage/declaration.js'
import type { KeyType, PublicJwk } from '../../../src/keys/key-types.js'
import { expectError, snapshot, startHarness, TENANT_A, type Harness } from '../../helpers/harness.js'
import { multikeyMethod } from '../../helpers/multikey-of-jwk.js'
import { decodeDisclosure, didJwkOf, KEY_TYPES, nodeVerifier, nowSeconds, outsideKey, partsOf } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { publicUrl: 'https://vault.example.com/id' } })
})
afterAll(() => h?.close())

/** A wallet of the tenant on `method` with a key of `keyType`, and its DID-auth token. */
async function walletOf(keyType: KeyType, method = 'jwk'): Promise<{ did: string; jwt: string }> {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: method, keyType } } })
  expect(made.status).toBe(200)
  const did: string = made.body.wallet.did
  const token = await h.request('POST', '/did-auth-jwt', { json: { iss: did } })
  expect(token.status).toBe(200)
  return { did, jwt: token.body.jwt }
}

/** The public JWK a did:jwk DID encodes. */
const jwkOfDidJwk = (did: string): PublicJwk => JSON.parse(Buffer.from(did.slice('did:jwk:'.length), 'base64url').toString('utf8'))

const decodePart = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, any>

/** `@sd-jwt/sd-jwt-vc` verifying with the issuer's public key in node:crypto. */
const library = (issuerJwk: PublicJwk) => new SDJwtVcInstance({ hasher: digest, verifier: nodeVerifier(issuerJwk) })

const PAYLOAD = { given_name: 'Erika', family_name: 'Mustermann', address: { locality: 'Berlin', country: 'DE' } }

function sign(issuer: { did: string; jwt: string }, body: Record<string, unknown>) {
  return h.request('POST', '/claims/sign', { json: { iss: issuer.did, format: 'SD-JWT', ...body }, didAuth: issuer.jwt })
}

describe('Sign Claims, format SD-JWT', () => {
  for (const keyType of KEY_TYPES) {
    it(`a ${keyType} issuer: cnf.jwk is the subject's authentication key; the library and Verify Claims verify it`, async () => {
      const issuer = await walletOf(keyType)
      const holder = await walletOf('P-256')
      const res = await sign(issuer, {
        sub: holder.did,
        expiresIn: 3_600_000,
        claims: [
          { vct: 'https://credentials.example.com/identity', payload: PAYLOAD, disclose: ['/given_name', '/address/locality'], decoys: 2 },
        ],
      })
      expect(res.status).toBe(200)
      expect(Object.keys(res.body.vcs[0])).toEqual(['sdjwt'])
      const compact: string = res.body.vcs[0].sdjwt
      const { jwt, disclosures, kb } = partsOf(compact)
      expect(kb).toBe('')
      expect(
        disclosures
          .map(decodeDisclosure)
          .map((d) => d[1])
          .sort(),
      ).toEqual(['given_name', 'locality'])
      const [header, payload] = jwt.split('.').slice(0, 2).map(decodePart)
      expect(header).toMatchObject({ typ: 'dc+sd-jwt', kid: `${issuer.did}#0` })
      expect(payload).toMatchObject({
        iss: issuer.did,
        sub: holder.did,
        vct: 'https://credentials.example.com/identity',
        _sd_alg: 'sha-256',
      })
      expect(payload.cnf).toEqual({ jwk: jwkOfDidJwk(holder.did) })
      expect(payload.exp - payload.iat).toBe(3_600)
      expect(payload._sd).toHaveLength(3) // one disclosure and two decoys
      expect(payload.family_name).toBe('Mustermann')

      const theirs = await library(jwkOfDidJwk(issuer.did)).verify(compact)
      expect(theirs.payload).toMatchObject({ ...PAYLOAD, iss: issuer.did, sub: holder.did })

      const checked = await h.request('POST', '/claims/verify', { json: { vcs: [{ sdjwt: compact }] }, didAuth: issuer.jwt })
      expect(checked.status).toBe(200)
      const [vc] = checked.body.vcs
      expect(vc).toMatchObject({ sdjwt: compact, verified: true, issuer: issuer.did })
      expect(vc.checks.map((c: { check: string }) => c.check)).toEqual([
        'typ',
        'alg',
        'signature',
        'sd_alg',
        'disclosures',
        'vct',
        'iat',
        'exp',
      ])
      expect(vc.disclosed).toEqual({
        ...PAYLOAD,
        iss: issuer.did,
        sub: holder.did,
        vct: 'https://credentials.example.com/identity',
        iat: payload.iat,
        exp: payload.exp,
      })
    })
  }

  it('a did:web issuer and subject (served by the service): kid from its document, cnf.jwk its authentication key', async () => {
    const issuer = await walletOf('Ed25519', 'web')
    const res = await sign(issuer, { sub: issuer.did, claims: [{ vct: 'Identity', payload: PAYLOAD }] })
    expect(res.status).toBe(200)
    const compact: string = res.body.vcs[0].sdjwt
    const document = (await h.request('GET', `/1.0/identifiers/${encodeURIComponent(issuer.did)}`)).body
    const didDocument = document.didDocument ?? document
    const [method] = didDocument.verificationMethod as Array<{ id: string; publicKeyMultibase?: string }>
    const [header, payload] = compact.split('~')[0].split('.').slice(0, 2).map(decodePart)
    expect(header).toMatchObject({ alg: 'EdDSA', kid: `${issuer.did}#key-0` })
    expect(payload.cnf.jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' })
    expect(method).toEqual(await multikeyMethod(`${issuer.did}#key-0`, issuer.did, payload.cnf.jwk))
    const checked = await h.request('POST', '/claims/verify', { json: { vcs: [{ sdjwt: compact }] }, didAuth: issuer.jwt })
    expect(checked.body.vcs[0]).toMatchObject({ verified: true, issuer: issuer.did, disclosed: { ...PAYLOAD, sub: issuer.did } })
  })

  it('a did:ethr issuer (the default wallet, named by address): kid #controller; the library and Verify Claims verify it', async () => {
    const made = await h.request('POST', '/wallet', { json: {} })
    expect(made.status).toBe(200)
    const { did, publicKeyJwk } = made.body.wallet as { did: string; publicKeyJwk: PublicJwk }
    const issuer = { did, jwt: (await h.request('POST', '/did-auth-jwt', { json: { iss: did } })).body.jwt as string }
    const res = await sign(issuer, { claims: [{ vct: 'Identity', payload: PAYLOAD, holderJwk: outsideKey('Ed25519').publicJwk }] })
    expect(res.status).toBe(200)
    const compact: string = res.body.vcs[0].sdjwt
    expect(decodePart(compact.split('.')[0])).toMatchObject({ alg: 'ES256K', kid: `${did}#controller` })
    expect((await library(publicKeyJwk).verify(compact)).payload).toMatchObject({ ...PAYLOAD, iss: did })
    const checked = await h.request('POST', '/claims/verify', { json: { vcs: [{ sdjwt: compact }] }, didAuth: issuer.jwt })
    expect(checked.body.vcs[0]).toMatchObject({ verified: true, issuer: did, disclosed: { ...PAYLOAD, iss: did } })
    // another did:ethr wallet's signature over the same credential: recovered to another address
    const other = await walletOf('secp256k1', 'ethr')
    const theirs = await sign(other, { claims: [{ vct: 'Identity', payload: PAYLOAD, holderJwk: outsideKey('Ed25519').publicJwk }] })
    const [header, payload] = compact.split('~')[0].split('.')
    const forged = `${header}.${payload}.${theirs.body.vcs[0].sdjwt.split('~')[0].split('.')[2]}~`
    const refused = await h.request('POST', '/claims/verify', { json: { vcs: [{ sdjwt: forged }] }, didAuth: issuer.jwt })
    expect(refused.body.vcs[0].checks).toContainEqual(expect.objectContaining({ check: 'signature', verified: false }))
  })

  it('holderJwk without sub; by default every top-level payload claim is disclosable; the embedded API signs and verifies too', async () => {
    const issuer = await walletOf('Ed25519')
    const holderJwk = outsideKey('P-256').publicJwk
    const api = h.service.as({ authorization: TENANT_A, didAuth: issuer.jwt })
    const signed = await api.signClaims({
      iss: issuer.did,
      format: 'SD-JWT',
      claims: [{ id: 'urn:uuid:6f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21', vct: 'Identity', payload: PAYLOAD, holderJwk }],
    })
    const vc = signed.vcs[0] as { id?: string; sdjwt: string }
    expect(vc.id).toBe('urn:uuid:6f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21')
    const { jwt, disclosures } = partsOf(vc.sdjwt)
    const payload = decodePart(jwt.split('.')[1])
    expect(payload.cnf).toEqual({ jwk: holderJwk })
    expect(payload.sub).toBeUndefined()
    expect(
      disclosures
        .map(decodeDisclosure)
        .map((d) => d[1])
        .sort(),
    ).toEqual(['address', 'family_name', 'given_name'])
    const verified = await api.verifyClaims({ vcs: [{ sdjwt: vc.sdjwt }] })
    expect(verified.vcs[0]).toMatchObject({ verified: true, disclosed: { ...PAYLOAD, iss: issuer.did, vct: 'Identity' } })
  })

  it('the audit record of the sign names the credential by its content hash and holds no disclosure or salt', async () => {
    const issuer = await walletOf('P-256')
    const res = await sign(issuer, { claims: [{ vct: 'Identity', payload: PAYLOAD, holderJwk: outsideKey('Ed25519').publicJwk }] })
    expect(res.status).toBe(200)
    const { disclosures } = partsOf(res.body.vcs[0].sdjwt)
    await h.service.chainAuditRecords()
    const records = (await collectionOf(h.storage, AUDIT_RECORDS).find({ and: [] }, { limit: 1_000 })).items
    const text = JSON.stringify(records)
    const signs = records.filter((r) => r.action === 'credential.sign' && r.actorDids.includes(issuer.did))
    expect(signs).toEqual([
      expect.objectContaining({ targetType: 'credential', outcome: 'ok', targetId: expect.stringMatching(/^[0-9a-f]{64}$/) }),
    ])
    for (const disclosure of disclosures) {
      expect(text).not.toContain(disclosure)
      expect(text).not.toContain(String(decodeDisclosure(disclosure)[0]))
    }
  })
})

describe('Sign Claims, format SD-JWT: refusals (the error body, nothing written)', () => {
  let issuer: { did: string; jwt: string }
  const holderJwk = outsideKey('P-256').publicJwk
  beforeAll(async () => {
    issuer = await walletOf('secp256k1')
  })
  const claim = { vct: 'Identity', payload: PAYLOAD, holderJwk }

  const CASES: Array<[string, Record<string, unknown>, RegExp]> = [
    ['no vct', { claims: [{ payload: PAYLOAD, holderJwk }] }, /claims\.0\.vct.*required/],
    ['alias', { claims: [{ ...claim, alias: 'x' }] }, /claims\.0\.alias.*no claim DID/],
    ['walletConfig', { claims: [{ ...claim, walletConfig: { didMethod: 'key' } }] }, /claims\.0\.walletConfig.*no claim DID/],
    ['a context', { claims: [{ ...claim, context: 'https://www.w3.org/2018/credentials/examples/v1' }] }, /claims\.0\.context/],
    ['a type', { claims: [{ ...claim, type: 'Identity' }] }, /claims\.0\.type.*vct/],
    ['a disclose path not in the payload', { claims: [{ ...claim, disclose: ['/nickname'] }] }, /disclose/],
    ['an issuer claim in the payload', { claims: [{ ...claim, payload: { ...PAYLOAD, cnf: {} } }] }, /payload: cnf is set by the issuer/],
    ['a private holderJwk', { claims: [{ ...claim, holderJwk: { ...holderJwk, d: 'AAAA' } }] }, /holderJwk/],
    ['neither sub nor holderJwk', { claims: [{ vct: 'Identity', payload: PAYLOAD }] }, /claims\.0\.holderJwk: required/],
    [
      'a subject whose authentication has no key material (did:ethr address)',
      { sub: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72', claims: [{ vct: 'Identity', payload: PAYLOAD }] },
      /claims\.0\.sub: no authentication key .* give claims\.0\.holderJwk/,
    ],
  ]
  it.each(CASES)('%s', async (_, body, message) => {
    const before = await snapshot(h)
    const res = await sign(issuer, body)
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(message)
    expect(res.body.errorMessage).not.toContain('AAAA')
    expect(await snapshot(h)).toEqual(before)
  })

  it('SD-JWT members on a JWT claim are 422', async () => {
    const res = await h.request('POST', '/claims/sign', {
      json: { iss: issuer.did, format: 'JWT', claims: [{ payload: PAYLOAD, vct: 'Identity' }] },
      didAuth: issuer.jwt,
    })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(/claims\.0\.vct.*only for SD-JWT/)
  })
})

describe('Verify Claims, item sdjwt: a bad credential is verified: false in a 200', () => {
  let a: string
  let b: string
  let issuer: { did: string; jwt: string }
  beforeAll(async () => {
    issuer = await walletOf('Ed25519')
    const holderJwk = outsideKey('P-256').publicJwk
    const signed = await sign(issuer, {
      claims: [
        { vct: 'Identity', payload: PAYLOAD, holderJwk },
        { vct: 'Identity', payload: PAYLOAD, holderJwk },
      ],
    })
    expect(signed.status).toBe(200)
    ;[a, b] = signed.body.vcs.map((vc: { sdjwt: string }) => vc.sdjwt)
  })
  const verify = (sdjwt: string) => h.request('POST', '/claims/verify', { json: { claims: [{ sdjwt }] }, didAuth: issuer.jwt })
  const failed = async (sdjwt: string, check: string) => {
    const res = await verify(sdjwt)
    expect(res.status).toBe(200)
    expect(res.body.vcs[0]).toMatchObject({ verified: false })
    expect(res.body.vcs[0].disclosed).toBeUndefined()
    expect(res.body.vcs[0].checks).toContainEqual(expect.objectContaining({ check, verified: false }))
  }

  it('a disclosure swapped from another credential', async () => {
    const pa = partsOf(a)
    await failed(`${pa.jwt}~${partsOf(b).disclosures[0]}~${pa.disclosures.slice(1).join('~')}~`, 'disclosures')
  })
  it('a disclosure given twice', async () => {
    const pa = partsOf(a)
    await failed(`${pa.jwt}~${pa.disclosures[0]}~${pa.disclosures.join('~')}~`, 'disclosures')
  })
  it('alg: none', async () => {
    const [, payload] = partsOf(a).jwt.split('.')
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'dc+sd-jwt' })).toString('base64url')
    await failed(`${header}.${payload}.${partsOf(a).jwt.split('.')[2]}~`, 'alg')
  })
  it('a forged signature (another credential’s)', async () => {
    const [header, payload] = partsOf(a).jwt.split('.')
    await failed(`${header}.${payload}.${partsOf(b).jwt.split('.')[2]}~`, 'signature')
  })
  it('an SD-JWT VC @sd-jwt/sd-jwt-vc issued (secp256k1 key on did:jwk, typ dc+sd-jwt) verifies, with its disclosed claims', async () => {
    const key = outsideKey('secp256k1')
    const { did, kid } = await didJwkOf(key.publicJwk)
    const theirs = new SDJwtVcInstance({
      signer: key.signer,
      signAlg: key.alg,
      hasher: digest,
      saltGenerator: () => Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64url'),
    })
    const iat = nowSeconds()
    const compact = await theirs.issue(
      { iss: did, iat, vct: 'urn:eudi:pid:1', ...PAYLOAD },
      { _sd: ['given_name', 'address'], address: { _sd: ['locality'] } },
      { header: { kid, typ: 'dc+sd-jwt' } },
    )
    const res = await verify(compact)
    expect(res.status).toBe(200)
    expect(res.body.vcs[0]).toMatchObject({ verified: true, issuer: did })
    expect(res.body.vcs[0].disclosed).toEqual({ ...PAYLOAD, iss: did, iat, vct: 'urn:eudi:pid:1' })
  })

  it('an SD-JWT given as { jwt } is verified as a VC-JWT and answered in the member it came in', async () => {
    const res = await h.request('POST', '/claims/verify', { json: { claims: [{ jwt: a }] }, didAuth: issuer.jwt })
    expect(res.status).toBe(200)
    expect(res.body.vcs[0]).toMatchObject({ jwt: a, verified: false })
    expect(res.body.vcs[0].sdjwt).toBeUndefined()
  })
  it('an item past the bounds is the error body', async () => {
    expectError(await verify(`${'a'.repeat(512 * 1024)}~`), 422, 'VALIDATION_ERROR')
  })
})

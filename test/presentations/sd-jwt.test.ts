/**
 * SD-JWT VC presentations with key binding through `POST /presentations/sign` and `POST /presentations/verify` (issue
 * 31 §2 *Present*, *Verify presentation*), through the router on loopback HTTP (SQLite file) and the embedded API:
 * issuers with Ed25519, P-256 and secp256k1 keys, holders on did:key, did:jwk and did:ethr; `@sd-jwt/sd-jwt-vc`
 * verifies our presentations (`requiredClaimKeys`, `keyBindingNonce`) and its presentations verify here; a holder key the
 * caller does not control is 403 with nothing written and a refusal in the audit trail; every attack on a presentation is
 * `verified: false` with its named check; the audit record holds no disclosure or salt.
 */
import { createHash } from 'node:crypto'
import { digest, ES256 } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUDIT_RECORDS } from '../../src/audit/records.js'
import type { KeyType, PublicJwk } from '../../src/keys/key-types.js'
import { collectionOf } from '../../src/storage/declaration.js'
import { expectError, snapshot, startHarness, TENANT_A, TENANT_B, type Harness } from '../helpers/harness.js'
import { decodeDisclosure, nodeVerifier, nowSeconds, outsideKey, partsOf, type OutsideKey } from '../credentials/sd-jwt/helpers.js'

let h: Harness
/** The verifier's DID-auth token (verify needs a caller). */
let verifierJwt: string
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
  verifierJwt = (await walletOf('P-256', 'jwk', TENANT_B)).jwt
})
afterAll(() => h?.close())

type Wallet = { did: string; jwt: string; publicJwk: PublicJwk }

/** A wallet of the tenant of `token` on `method` with a key of `keyType`, its public JWK and its DID-auth token. */
async function walletOf(keyType: KeyType, method: string, token = TENANT_A): Promise<Wallet> {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: method, keyType } }, token })
  expect(made.status).toBe(200)
  const did: string = made.body.wallet.did
  const auth = await h.request('POST', '/did-auth-jwt', { json: { iss: did }, token })
  expect(auth.status).toBe(200)
  return { did, jwt: auth.body.jwt, publicJwk: made.body.wallet.publicKeyJwk }
}

const PAYLOAD = { given_name: 'Erika', family_name: 'Mustermann', address: { locality: 'Berlin', country: 'DE' } }
const DISCLOSE = ['/given_name', '/family_name', '/address', '/address/locality']
const NONCE = 'n-0S6_WzA2Mj'
const AUD = 'https://verifier.example.org'

const decodePart = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, any>
const checksOf = (body: { checks: Array<{ check: string; verified: boolean }> }) =>
  Object.fromEntries(body.checks.map((c) => [c.check, c.verified]))

/** An SD-JWT VC by `issuer`, bound to `holder`'s key: through its DID (`sub`) or as `holderJwk`. */
async function issue(issuer: Wallet, holder: { did?: string; jwk?: PublicJwk }): Promise<string> {
  const claim = { vct: 'https://credentials.example.com/identity', payload: PAYLOAD, disclose: DISCLOSE }
  const res = await h.request('POST', '/claims/sign', {
    json: {
      iss: issuer.did,
      format: 'SD-JWT',
      ...(holder.did !== undefined && { sub: holder.did }),
      claims: [{ ...claim, ...(holder.jwk !== undefined && { holderJwk: holder.jwk }) }],
    },
    didAuth: issuer.jwt,
  })
  expect(res.status).toBe(200)
  return res.body.vcs[0].sdjwt
}

const present = (holder: Wallet | { jwt: string }, json: Record<string, unknown>, token?: string) =>
  h.request('POST', '/presentations/sign', { json: { format: 'SD-JWT', nonce: NONCE, aud: AUD, ...json }, didAuth: holder.jwt, token })
const verify = (sdjwt: string, binding: Record<string, unknown> = { nonce: NONCE, aud: AUD }) =>
  h.request('POST', '/presentations/verify', { json: { presentation: { sdjwt }, ...binding }, didAuth: verifierJwt, token: TENANT_B })

/** The library, verifying the issuer's key for the credential and `cnf.jwk` for the KB-JWT. */
function library(issuerJwk: PublicJwk): SDJwtVcInstance {
  const verifierOf = async (jwk: PublicJwk) => (jwk.crv === 'P-256' ? ES256.getVerifier(jwk) : nodeVerifier(jwk))
  return new SDJwtVcInstance({
    hasher: digest,
    verifier: async (data, sig) => (await verifierOf(issuerJwk))(data, sig),
    kbVerifier: async (data, sig, payload) => (await verifierOf(payload.cnf!.jwk as PublicJwk))(data, sig),
  })
}

/** A KB-JWT over `presented` signed by a key held outside didvault; `header` and `claims` override the defaults. */
async function kbJwtBy(key: OutsideKey, presented: string, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) {
  const sd_hash = createHash('sha256').update(presented).digest('base64url')
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const data = `${encode({ typ: 'kb+jwt', alg: key.alg, ...header })}.${encode({ iat: nowSeconds(), aud: AUD, nonce: NONCE, sd_hash, ...claims })}`
  return `${data}.${await key.signer(data)}`
}

describe('Present and verify an SD-JWT VC with key binding', () => {
  const CASES: Array<[KeyType, string, KeyType, string]> = [
    ['Ed25519', 'key', 'P-256', 'jwk'],
    ['P-256', 'jwk', 'Ed25519', 'key'],
    ['secp256k1', 'ethr', 'secp256k1', 'ethr'],
  ]
  for (const [issuerType, issuerMethod, holderType, holderMethod] of CASES) {
    it(`a ${issuerType} issuer (did:${issuerMethod}), a ${holderType} holder on did:${holderMethod}: only the chosen claims; both libraries verify`, async () => {
      const issuer = await walletOf(issuerType, issuerMethod)
      const holder = await walletOf(holderType, holderMethod)
      // A did:ethr DID's authentication names its key by address: the holder key is given as holderJwk.
      const credential = await issue(issuer, holderMethod === 'ethr' ? { jwk: holder.publicJwk } : { did: holder.did })
      expect(decodePart(partsOf(credential).jwt.split('.')[1]).cnf.jwk).toEqual(holder.publicJwk)

      const res = await present(holder, {
        holder: holder.did,
        vcs: [{ sdjwt: credential }],
        disclose: ['/given_name', '/address/locality'],
      })
      expect(res.status).toBe(200)
      expect(Object.keys(res.body)).toEqual(['presentation'])
      expect(Object.keys(res.body.presentation)).toEqual(['sdjwt'])
      const presentation: string = res.body.presentation.sdjwt
      const { jwt, disclosures, kb } = partsOf(presentation)
      expect(jwt).toBe(partsOf(credential).jwt)
      expect(disclosures.map((d) => decodeDisclosure(d)[1]).sort()).toEqual(['address', 'given_name', 'locality'])
      const [kbHeader, kbPayload] = kb.split('.').slice(0, 2).map(decodePart)
      expect(kbHeader).toEqual({ typ: 'kb+jwt', alg: { Ed25519: 'EdDSA', 'P-256': 'ES256', secp256k1: 'ES256K' }[holderType] })
      const presented = presentation.slice(0, presentation.lastIndexOf('~') + 1)
      expect(kbPayload).toEqual({
        iat: expect.any(Number),
        aud: AUD,
        nonce: NONCE,
        sd_hash: createHash('sha256').update(presented).digest('base64url'),
      })
      expect(Math.abs(kbPayload.iat - nowSeconds())).toBeLessThan(120)

      const checked = await verify(presentation)
      expect(checked.status).toBe(200)
      expect(checked.body).toMatchObject({ verified: true, holder: null })
      expect(checked.body.checks.map((c: { check: string }) => c.check)).toEqual([
        'kb',
        'kbSignature',
        'sd_hash',
        'nonce',
        'aud',
        'kbIat',
        'credential',
      ])
      expect(checked.body.vcs).toHaveLength(1)
      expect(checked.body.vcs[0]).toMatchObject({ sdjwt: presentation, verified: true, issuer: issuer.did })
      expect(checked.body.vcs[0].disclosed).toMatchObject({ given_name: 'Erika', address: { locality: 'Berlin', country: 'DE' } })
      expect(checked.body.vcs[0].disclosed).not.toHaveProperty('family_name')

      const theirs = await library(issuer.publicJwk).verify(presentation, { requiredClaimKeys: ['given_name'], keyBindingNonce: NONCE })
      expect(theirs.kb?.payload).toMatchObject({ aud: AUD, nonce: NONCE })
      expect(theirs.payload).toMatchObject({ given_name: 'Erika', address: { locality: 'Berlin' } })
      expect(theirs.payload).not.toHaveProperty('family_name')
      await expect(library(issuer.publicJwk).verify(presentation, { requiredClaimKeys: ['family_name'] })).rejects.toThrow()
    })
  }

  it('without holder: the wallet holding cnf.jwk signs; the embedded API presents and verifies; the audit record holds no disclosure', async () => {
    const issuer = await walletOf('P-256', 'jwk')
    const holder = await walletOf('Ed25519', 'jwk')
    const credential = await issue(issuer, { did: holder.did })
    const api = h.service.as({ authorization: TENANT_A, didAuth: holder.jwt })
    const signed = await api.signPresentation({
      format: 'SD-JWT',
      vcs: [{ sdjwt: credential }],
      disclose: ['/family_name'],
      nonce: 'e-1',
      aud: AUD,
    })
    const sdjwt = (signed.presentation as { sdjwt: string }).sdjwt
    const verified = await api.verifyPresentation({ presentation: { sdjwt }, challenge: 'e-1', domain: AUD })
    expect(verified).toMatchObject({ verified: true, vcs: [{ disclosed: { family_name: 'Mustermann' } }] })
    expect(verified.vcs[0]).not.toHaveProperty('disclosed.given_name')

    await h.service.chainAuditRecords()
    const records = (await collectionOf(h.storage, AUDIT_RECORDS).find({ and: [] }, { limit: 1_000 })).items
    const signs = records.filter((r) => r.action === 'presentation.sign' && r.actorDids.includes(holder.did))
    expect(signs).toEqual([expect.objectContaining({ targetType: 'wallet', targetId: holder.did, outcome: 'ok' })])
    const text = JSON.stringify(records)
    for (const disclosure of partsOf(credential).disclosures) {
      expect(text).not.toContain(disclosure)
      expect(text).not.toContain(String(decodeDisclosure(disclosure)[0]))
    }
  })

  it('a presentation made by @sd-jwt/sd-jwt-vc (a holder key outside didvault) verifies here with the claims it disclosed', async () => {
    const issuer = await walletOf('secp256k1', 'key')
    const holderKey = outsideKey('Ed25519')
    const credential = await issue(issuer, { jwk: holderKey.publicJwk })
    const theirs = new SDJwtVcInstance({ hasher: digest, kbSigner: holderKey.signer, kbSignAlg: holderKey.alg })
    const presentation = await theirs.present(
      credential,
      { address: { locality: true } },
      { kb: { payload: { iat: nowSeconds(), aud: AUD, nonce: NONCE } } },
    )
    const checked = await verify(presentation)
    expect(checked.body).toMatchObject({ verified: true, vcs: [{ verified: true, disclosed: { address: { locality: 'Berlin' } } }] })
    expect(checked.body.vcs[0].disclosed).not.toHaveProperty('given_name')
  })
})

describe('Present an SD-JWT VC: refusals (the error body, nothing written)', () => {
  let issuer: Wallet
  let holder: Wallet
  let credential: string
  beforeAll(async () => {
    issuer = await walletOf('Ed25519', 'key')
    holder = await walletOf('P-256', 'jwk')
    credential = await issue(issuer, { did: holder.did })
  })

  it('a holder key the caller does not control is 403 (another wallet’s token, another tenant, a key outside), a refusal audited', async () => {
    const stranger = await walletOf('P-256', 'jwk')
    const before = await snapshot(h)
    expectError(await present(stranger, { vcs: [{ sdjwt: credential }] }), 403, 'FORBIDDEN')
    expectError(await present(stranger, { holder: holder.did, vcs: [{ sdjwt: credential }] }), 403, 'FORBIDDEN')
    const otherTenant = await walletOf('P-256', 'jwk', TENANT_B)
    const before2 = await snapshot(h)
    expectError(await present(otherTenant, { vcs: [{ sdjwt: credential }] }, TENANT_B), 403, 'FORBIDDEN')
    expect(await snapshot(h)).toEqual(before2)
    const outside = await issue(issuer, { jwk: outsideKey('P-256').publicJwk })
    expectError(await present(holder, { vcs: [{ sdjwt: outside }] }), 403, 'FORBIDDEN')
    expect((await snapshot(h)).credentials).toEqual(before.credentials)

    await h.service.chainAuditRecords()
    const records = (await collectionOf(h.storage, AUDIT_RECORDS).find({ and: [] }, { limit: 1_000 })).items
    const refusals = records.filter((r) => r.action === 'presentation.sign' && r.actorDids.includes(stranger.did))
    expect(refusals).toEqual([
      expect.objectContaining({ outcome: 'refused', error: 'FORBIDDEN', targetId: '' }),
      expect.objectContaining({ outcome: 'refused', error: 'FORBIDDEN', targetId: holder.did }),
    ])
    expect(JSON.stringify(records)).not.toContain(partsOf(credential).disclosures[0])
  })

  it('every input is checked before the holder key is looked for: a bad pointer from a caller without the key is 422', async () => {
    const stranger = await walletOf('Ed25519', 'key')
    const res = await present(stranger, { vcs: [{ sdjwt: credential }], disclose: ['/nickname'] })
    expectError(res, 422, 'VALIDATION_ERROR')
  })

  const CASES: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a pointer the credential cannot disclose', { disclose: ['/nickname'] }, /disclose: \/nickname is not a claim/],
    ['no nonce', { nonce: undefined }, /nonce/],
    ['no aud', { aud: undefined }, /aud/],
    ['an aud list', { aud: [AUD, 'https://other.example'] }, /aud: a KB-JWT names one audience/],
    ['expiresIn', { expiresIn: 60_000 }, /expiresIn/],
    ['two credentials', { vcs: 'two' }, /vcs: an SD-JWT presentation holds exactly one credential/],
    ['a VC-JWT', { vcs: [{ jwt: 'eyJ.eyJ.c2ln' }] }, /vcs\.0/],
    ['a presentation instead of a credential', { vcs: 'presentation' }, /a credential, not a presentation/],
    ['a holder whose authentication lacks cnf.jwk', { holder: 'self' }, /holder: .*no authentication key/],
  ]
  for (const [name, change, message] of CASES) {
    it(`${name}: 422`, async () => {
      const vcs =
        change.vcs === 'two'
          ? [{ sdjwt: credential }, { sdjwt: credential }]
          : change.vcs === 'presentation'
            ? [{ sdjwt: `${credential}${await kbJwtBy(outsideKey('P-256'), credential)}` }]
            : (change.vcs ?? [{ sdjwt: credential }])
      const json = { ...change, vcs, ...(change.holder === 'self' && { holder: issuer.did }) }
      const before = await snapshot(h)
      const res = await present(holder, json)
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage).toMatch(message)
      expect(await snapshot(h)).toEqual(before)
    })
  }

  it('a stored SD-JWT VC by _id: presented with its unsealed disclosures by the holder who may read it; a stranger’s _id is NOT_FOUND, a VC-JWT’s 422', async () => {
    const stored = await h.request('POST', '/claims', { json: { claims: [{ sdjwt: credential }] }, didAuth: holder.jwt })
    expect(stored.status).toBe(200)
    const _id: string = stored.body.vcs[0]._id
    const res = await present(holder, { vcs: [{ _id }], disclose: ['/address/locality'] })
    expect(res.status).toBe(200)
    const presentation: string = res.body.presentation.sdjwt
    expect(partsOf(presentation).jwt).toBe(partsOf(credential).jwt)
    expect(
      partsOf(presentation)
        .disclosures.map((d) => decodeDisclosure(d)[1])
        .sort(),
    ).toEqual(['address', 'locality'])
    const checked = await verify(presentation)
    expect(checked.body).toMatchObject({ verified: true, vcs: [{ disclosed: { address: { locality: 'Berlin' } } }] })
    expect(checked.body.vcs[0].disclosed).not.toHaveProperty('given_name')

    // Another wallet of the tenant may not read the record: answered as if there were none, nothing written.
    const stranger = await walletOf('P-256', 'jwk')
    const before = await snapshot(h)
    const hidden = await present(stranger, { vcs: [{ _id }] })
    expectError(hidden, 422, 'NOT_FOUND')
    expect(hidden.body.errorMessage).toMatch(/vcs\.0\._id: no stored credential/)
    expect(await snapshot(h)).toEqual(before)
    // A stored VC-JWT is presented with format JWT.
    const jwtVc = await h.request('POST', '/claims/sign', {
      json: { iss: holder.did, format: 'JWT', claims: [{ payload: { role: 'x' } }] },
      didAuth: holder.jwt,
    })
    const storedJwt = await h.request('POST', '/claims', { json: { claims: [{ jwt: jwtVc.body.vcs[0].jwt }] }, didAuth: holder.jwt })
    const before2 = await snapshot(h)
    const wrong = await present(holder, { vcs: [{ _id: storedJwt.body.vcs[0]._id }] })
    expectError(wrong, 422, 'VALIDATION_ERROR')
    expect(wrong.body.errorMessage).toMatch(/vcs\.0\._id: the stored credential is no SD-JWT VC/)
    expect(await snapshot(h)).toEqual(before2)
  })

  it('an sdjwt credential in a JWT presentation, or disclose there: 422', async () => {
    const res = await h.request('POST', '/presentations/sign', {
      json: { format: 'JWT', holder: holder.did, vcs: [{ sdjwt: credential }], disclose: [] },
      didAuth: holder.jwt,
    })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(/disclose: for an SD-JWT presentation only/)
    expect(res.body.errorMessage).toMatch(/vcs\.0: an SD-JWT VC is presented with format SD-JWT only/)
  })
})

describe('Verify an SD-JWT presentation: attacks are `verified: false` with the named check', () => {
  let issuer: Wallet
  let holderKey: OutsideKey
  let credential: string
  let other: string
  beforeAll(async () => {
    issuer = await walletOf('P-256', 'jwk')
    holderKey = outsideKey('Ed25519')
    credential = await issue(issuer, { jwk: holderKey.publicJwk })
    other = await issue(issuer, { jwk: holderKey.publicJwk })
  })
  /** The credential with the disclosures of `claims` (by name), up to its last `~`. */
  const presentedWith = (compact: string, claims: string[]) => {
    const { jwt, disclosures } = partsOf(compact)
    return [jwt, ...disclosures.filter((d) => claims.includes(String(decodeDisclosure(d)[1]))), ''].join('~')
  }
  const failed = (body: { checks: Array<{ check: string; verified: boolean }> }) =>
    body.checks.filter((c) => !c.verified).map((c) => c.check)

  it('a well-made one verifies (the control)', async () => {
    const presented = presentedWith(credential, ['given_name'])
    const res = await verify(presented + (await kbJwtBy(holderKey, presented)))
    expect(res.body).toMatchObject({ verified: true })
    expect(checksOf(res.body)).toMatchObject({ kb: true, kbSignature: true, sd_hash: true, nonce: true, aud: true, kbIat: true })
  })

  it('a KB-JWT over another sd_hash (made for another disclosure set)', async () => {
    const kb = await kbJwtBy(holderKey, presentedWith(credential, ['family_name']))
    const res = await verify(presentedWith(credential, ['given_name']) + kb)
    expect(res.body.verified).toBe(false)
    expect(failed(res.body)).toEqual(['sd_hash'])
  })

  it('a disclosure swapped in from another credential, and a duplicate disclosure: the credential fails its disclosures check', async () => {
    const { jwt } = partsOf(credential)
    const foreign = partsOf(other).disclosures.find((d) => decodeDisclosure(d)[1] === 'given_name')!
    const own = partsOf(credential).disclosures.find((d) => decodeDisclosure(d)[1] === 'given_name')!
    for (const presented of [`${jwt}~${foreign}~`, `${jwt}~${own}~${own}~`]) {
      const res = await verify(presented + (await kbJwtBy(holderKey, presented)))
      expect(res.body.verified).toBe(false)
      expect(failed(res.body)).toEqual(['credential'])
      expect(failed(res.body.vcs[0])).toEqual(['disclosures'])
      expect(res.body.vcs[0]).not.toHaveProperty('disclosed')
    }
  })

  it('a replayed KB-JWT (made for another nonce), and a wrong aud', async () => {
    const presented = presentedWith(credential, ['given_name'])
    const compact = presented + (await kbJwtBy(holderKey, presented))
    const replayed = await verify(compact, { nonce: 'another-nonce', aud: AUD })
    expect(replayed.body.verified).toBe(false)
    expect(failed(replayed.body)).toEqual(['nonce'])
    const elsewhere = await verify(compact, { nonce: NONCE, aud: 'https://other-verifier.example' })
    expect(failed(elsewhere.body)).toEqual(['aud'])
  })

  it('an expired and a future KB-JWT (iat outside the last 300 s, 60 s skew)', async () => {
    const presented = presentedWith(credential, ['given_name'])
    for (const iat of [nowSeconds() - 400, nowSeconds() + 600]) {
      const res = await verify(presented + (await kbJwtBy(holderKey, presented, { iat })))
      expect(res.body.verified).toBe(false)
      expect(failed(res.body)).toEqual(['kbIat'])
    }
  })

  it('alg none, another typ, a KB-JWT by another key, and none at all', async () => {
    const presented = presentedWith(credential, ['given_name'])
    const signed = await kbJwtBy(holderKey, presented)
    const unsigned = `${Buffer.from(JSON.stringify({ typ: 'kb+jwt', alg: 'none' })).toString('base64url')}.${signed.split('.')[1]}.`
    for (const [compact, check] of [
      [presented + unsigned, 'kb'],
      [presented + (await kbJwtBy(holderKey, presented, {}, { typ: 'JWT' })), 'kb'],
      [presented + (await kbJwtBy(outsideKey('Ed25519'), presented)), 'kbSignature'],
      [presented, 'kb'],
    ] as const) {
      const res = await verify(compact)
      expect(res.status).toBe(200)
      expect(res.body.verified).toBe(false)
      expect(failed(res.body)).toEqual([check])
    }
  })

  it('nonce and aud are required to verify; holderBinding is 422 for an SD-JWT presentation', async () => {
    for (const binding of [{ aud: AUD }, { nonce: NONCE }, { nonce: NONCE, aud: AUD, holderBinding: true }]) {
      const res = await verify(credential, binding)
      expectError(res, 422, 'VALIDATION_ERROR')
    }
  })
})

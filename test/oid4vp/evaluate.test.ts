/**
 * A wallet's `vp_token` judged against its request (`evaluateVpToken`, OID4VP 1.0 §8.1, DCQL, Appendix B) on the
 * service's own context (SQLite file): real credentials made by the service (SD-JWT VC, VC-JWT, ecdsa-sd-2023 derived),
 * real presentations — SD-JWT key binding by a holder key outside didvault through `@sd-jwt/sd-jwt-vc`, a VP-JWT and a
 * Data Integrity presentation signed by the holder's wallet. Each case is one rule a relying party relies on: the
 * binding to the request (nonce, client id), the DCQL query (vct, claims, claim_sets, credential_sets), only the asked
 * claims returned, extra disclosures reported, status, transaction data, the form of `vp_token` and its bounds.
 */
import { createHash } from 'node:crypto'
import { digest } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Caller } from '../../src/auth/context.js'
import { oid4vp } from '../../src/oid4vc.js'
import { evaluateVpToken, type EvaluateContext, type EvaluatedRequest } from '../../src/oid4vp/evaluate.js'
import { checkVpTokenBounds } from '../../src/oid4vp/vp-token-bounds.js'
import { outsideKey, nowSeconds, type OutsideKey } from '../credentials/sd-jwt/helpers.js'
import { startHarness, TENANT_B, type Harness } from '../helpers/harness.js'

const PUBLIC_URL = 'https://verifier.example/identity'
const CLIENT_ID = 'decentralized_identifier:did:web:verifier.example'
const NONCE = 'nonce-5c1f7a0e9b2d'
const VCT = 'https://credentials.example.com/identity'
const PAYLOAD = { given_name: 'Erika', family_name: 'Mustermann', birthdate: '1964-08-12', address: { locality: 'Berlin', country: 'DE' } }
const DISCLOSE = ['/given_name', '/family_name', '/birthdate', '/address', '/address/locality', '/address/country']

let h: Harness
let ctx: EvaluateContext
/** The verifier's tenant: the response endpoint evaluates for the request's tenant. */
const caller: Caller = { tenantId: 'tenant-b', dids: [], addresses: [] }

type Wallet = { did: string; jwt: string }
let issuer: Wallet
let holder: Wallet
let holderKey: OutsideKey
/** An SD-JWT VC by `issuer` bound to `holderKey`; and one with a revocation status entry. */
let sdJwtVc: string
let revocable: { sdjwt: string; id: string }

async function walletOf(keyType: string, method: string, token?: string): Promise<Wallet> {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: method, keyType } }, token })
  expect(made.status, JSON.stringify(made.body)).toBe(200)
  const did: string = made.body.wallet.did
  const auth = await h.request('POST', '/did-auth-jwt', { json: { iss: did }, token })
  return { did, jwt: auth.body.jwt as string }
}

async function issueSdJwt(extra: Record<string, unknown> = {}, claim: Record<string, unknown> = {}): Promise<string> {
  const res = await h.request('POST', '/claims/sign', {
    json: {
      iss: issuer.did,
      format: 'SD-JWT',
      claims: [{ vct: VCT, payload: PAYLOAD, disclose: DISCLOSE, holderJwk: holderKey.publicJwk, ...claim }],
      ...extra,
    },
    didAuth: issuer.jwt,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.vcs[0].sdjwt as string
}

/** The holder's presentation of `credential` through `@sd-jwt/sd-jwt-vc`: `frame` disclosed, a KB-JWT with `kb` claims. */
async function presentSdJwt(credential: string, frame: Record<string, unknown>, kb: Record<string, unknown> = {}): Promise<string> {
  const sdjwt = new SDJwtVcInstance({ hasher: digest, kbSigner: holderKey.signer, kbSignAlg: holderKey.alg })
  return sdjwt.present(credential, frame as never, { kb: { payload: { iat: nowSeconds(), aud: CLIENT_ID, nonce: NONCE, ...kb } } })
}

const pidQuery = (extra: Record<string, unknown> = {}) => ({
  credentials: [
    {
      id: 'pid',
      format: 'dc+sd-jwt',
      meta: { vct_values: [VCT] },
      claims: [{ path: ['given_name'] }, { path: ['address', 'locality'] }],
      ...extra,
    },
  ],
})

const request = (dcqlQuery: Record<string, unknown>, more: Partial<EvaluatedRequest> = {}): EvaluatedRequest => ({
  dcqlQuery,
  nonce: NONCE,
  clientId: CLIENT_ID,
  ...more,
})

const evaluate = (req: EvaluatedRequest, vpToken: unknown) => evaluateVpToken(ctx, caller, req, vpToken)

beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { oid4vp: oid4vp(), publicUrl: PUBLIC_URL, statusPublishIntervalMs: 3_600_000 } })
  // The service's own context, as the response endpoint's handler is given it.
  ctx = (h.service.dispatcher as unknown as { ctx: EvaluateContext }).ctx
  issuer = await walletOf('P-256', 'jwk')
  holder = await walletOf('Ed25519', 'key', TENANT_B)
  holderKey = outsideKey('P-256')
  sdJwtVc = await issueSdJwt()
  const id = 'urn:uuid:34000000-0000-4000-8000-000000000001'
  revocable = { sdjwt: await issueSdJwt({ status: { purposes: ['revocation'] } }, { id }), id }
})
afterAll(() => h?.close())

describe('dc+sd-jwt', () => {
  it('fulfilled: only the asked claims, the extra disclosure reported as unrequested, issuer, holder key, every check', async () => {
    const vp = await presentSdJwt(sdJwtVc, { given_name: true, family_name: true, address: { locality: true } })
    const outcome = await evaluate(request(pidQuery()), { pid: [vp] })
    expect(outcome.status, JSON.stringify(outcome)).toBe('fulfilled')
    if (outcome.status !== 'fulfilled') return
    const [credential] = outcome.credentials.pid
    expect(credential).toMatchObject({ format: 'dc+sd-jwt', issuer: issuer.did, vct: VCT, holder: { jwk: holderKey.publicJwk } })
    expect(credential.claims).toEqual({ given_name: 'Erika', address: { locality: 'Berlin' } })
    expect(credential.unrequested).toEqual([['family_name']])
    const names = credential.checks.map((c) => c.check)
    for (const check of ['kb', 'kbSignature', 'sd_hash', 'nonce', 'aud', 'kbIat', 'signature', 'vct']) expect(names).toContain(check)
    expect(credential.checks.every((c) => c.verified)).toBe(true)
  })

  it('a query naming no claims: the claims that are not selectively disclosable; every disclosure unrequested', async () => {
    const vp = await presentSdJwt(sdJwtVc, { birthdate: true })
    const outcome = await evaluate(request({ credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [VCT] } }] }), {
      pid: [vp],
    })
    expect(outcome.status, JSON.stringify(outcome)).toBe('fulfilled')
    if (outcome.status !== 'fulfilled') return
    const [credential] = outcome.credentials.pid
    expect(credential.claims).toMatchObject({ vct: VCT, iss: issuer.did })
    expect(credential.claims).not.toHaveProperty('birthdate')
    expect(credential.unrequested).toEqual([['birthdate']])
  })

  it('another request’s nonce: verification_failed naming the nonce check', async () => {
    const vp = await presentSdJwt(sdJwtVc, { given_name: true, address: { locality: true } }, { nonce: 'another-request-nonce' })
    const outcome = await evaluate(request(pidQuery()), { pid: [vp] })
    expect(outcome).toMatchObject({
      status: 'failed',
      error: 'verification_failed',
      checks: [{ check: 'nonce', verified: false, query: 'pid' }],
    })
  })

  it('another client id (or the DID without its prefix) as aud: verification_failed naming aud', async () => {
    for (const aud of ['did:web:verifier.example', 'decentralized_identifier:did:web:other.example']) {
      const vp = await presentSdJwt(sdJwtVc, { given_name: true, address: { locality: true } }, { aud })
      const outcome = await evaluate(request(pidQuery()), { pid: [vp] })
      expect(outcome).toMatchObject({ status: 'failed', error: 'verification_failed', checks: [{ check: 'aud', verified: false }] })
    }
  })

  it('a requested claim not disclosed: query_not_satisfied naming the query and the claim', async () => {
    const vp = await presentSdJwt(sdJwtVc, { address: { locality: true } })
    const outcome = await evaluate(request(pidQuery()), { pid: [vp] })
    expect(outcome).toMatchObject({ status: 'failed', error: 'query_not_satisfied' })
    if (outcome.status === 'failed') expect(outcome.errorDescription).toMatch(/'pid'.*given_name/)
  })

  it('another vct than the query accepts: query_not_satisfied naming the vct', async () => {
    const vp = await presentSdJwt(sdJwtVc, { given_name: true, address: { locality: true } })
    const outcome = await evaluate(request(pidQuery({ meta: { vct_values: ['https://credentials.example.com/other'] } })), { pid: [vp] })
    expect(outcome).toMatchObject({ status: 'failed', error: 'query_not_satisfied' })
    if (outcome.status === 'failed') expect(outcome.errorDescription).toMatch(/'pid'.*vct/)
  })

  it('a revoked credential: verification_failed naming the status check (it verified before)', async () => {
    const frame = { given_name: true, address: { locality: true } }
    expect((await evaluate(request(pidQuery()), { pid: [await presentSdJwt(revocable.sdjwt, frame)] })).status).toBe('fulfilled')
    const revoked = await h.request('POST', '/claims/status', {
      json: { items: [{ id: revocable.id, purpose: 'revocation', value: true }] },
      didAuth: issuer.jwt,
    })
    expect(revoked.body.errors, JSON.stringify(revoked.body)).toEqual([])
    await h.service.publishStatusLists()
    const outcome = await evaluate(request(pidQuery()), { pid: [await presentSdJwt(revocable.sdjwt, frame)] })
    expect(outcome).toMatchObject({ status: 'failed', error: 'verification_failed' })
    if (outcome.status !== 'failed') return
    // The credential's own check first, then the presentation's `credential` check that sums it up.
    expect(outcome.checks).toMatchObject([
      { check: 'status', verified: false, reason: 'revoked', query: 'pid', presentation: 0 },
      { check: 'credential', verified: false },
    ])
    expect(outcome.errorDescription).toMatch(/^credential query 'pid', presentation 0: status \(credential 0\): revoked/)
  })

  it('transaction_data: the KB-JWT must carry the hash of each entry naming its query', async () => {
    const entry = Buffer.from(JSON.stringify({ type: 'payment', credential_ids: ['pid'], amount: '42 EUR' })).toString('base64url')
    const frame = { given_name: true, address: { locality: true } }
    const req = request(pidQuery(), { transactionData: [entry] })
    const without = await evaluate(req, { pid: [await presentSdJwt(sdJwtVc, frame)] })
    expect(without).toMatchObject({
      status: 'failed',
      error: 'verification_failed',
      checks: [{ check: 'transaction_data', verified: false }],
    })
    const wrong = await evaluate(req, { pid: [await presentSdJwt(sdJwtVc, frame, { transaction_data_hashes: ['AAAA'] })] })
    expect(wrong).toMatchObject({ status: 'failed', checks: [{ check: 'transaction_data', verified: false }] })
    const hash = createHash('sha256').update(entry).digest('base64url')
    const withHash = await presentSdJwt(sdJwtVc, frame, { transaction_data_hashes: [hash], transaction_data_hashes_alg: 'sha-256' })
    const outcome = await evaluate(req, { pid: [withHash] })
    expect(outcome.status, JSON.stringify(outcome)).toBe('fulfilled')
    if (outcome.status === 'fulfilled')
      expect(outcome.credentials.pid[0].checks).toContainEqual({ check: 'transaction_data', verified: true })
  })
})

describe('claim_sets and credential_sets', () => {
  it('claim_sets: the first set the credential satisfies decides the claims returned', async () => {
    const query = pidQuery({
      claims: [
        { id: 'name', path: ['given_name'] },
        { id: 'dob', path: ['birthdate'] },
        { id: 'city', path: ['address', 'locality'] },
      ],
      claim_sets: [['name', 'dob'], ['city']],
    })
    const onlyCity = await presentSdJwt(sdJwtVc, { address: { locality: true } })
    const outcome = await evaluate(request(query), { pid: [onlyCity] })
    expect(outcome.status, JSON.stringify(outcome)).toBe('fulfilled')
    if (outcome.status === 'fulfilled') expect(outcome.credentials.pid[0].claims).toEqual({ address: { locality: 'Berlin' } })
    const neither = await presentSdJwt(sdJwtVc, { given_name: true })
    expect(await evaluate(request(query), { pid: [neither] })).toMatchObject({ status: 'failed', error: 'query_not_satisfied' })
  })

  it('credential_sets: an optional query may be absent; a required set left unmet fails naming it', async () => {
    const vp = await presentSdJwt(sdJwtVc, { given_name: true, address: { locality: true } })
    const pid = pidQuery().credentials[0]
    const other = { id: 'other', format: 'dc+sd-jwt', meta: { vct_values: ['https://credentials.example.com/other'] } }
    const optional = { credentials: [pid, other], credential_sets: [{ options: [['pid']] }, { options: [['other']], required: false }] }
    expect((await evaluate(request(optional), { pid: [vp] })).status).toBe('fulfilled')
    const required = { credentials: [pid, other], credential_sets: [{ options: [['pid']] }, { options: [['other']] }] }
    const outcome = await evaluate(request(required), { pid: [vp] })
    expect(outcome).toMatchObject({ status: 'failed', error: 'query_not_satisfied' })
    if (outcome.status === 'failed') expect(outcome.errorDescription).toMatch(/credential set 1.*other/)
    // Without credential_sets every credential query is required.
    const both = { credentials: [pid, other] }
    expect(await evaluate(request(both), { pid: [vp] })).toMatchObject({ status: 'failed', error: 'query_not_satisfied' })
    // Transaction data for the optional query only: a wallet that leaves that query out has not authorized it.
    const entry = Buffer.from(JSON.stringify({ type: 'payment', credential_ids: ['other'] })).toString('base64url')
    const skipped = await evaluate(request(optional, { transactionData: [entry] }), { pid: [vp] })
    expect(skipped).toMatchObject({ status: 'failed', error: 'query_not_satisfied' })
    if (skipped.status === 'failed')
      expect(skipped.errorDescription).toMatch(/transaction_data 0: none of its credential_ids was presented/)
  })
})

describe('the form of vp_token', () => {
  it('an unknown credential query id, an empty array, two presentations without multiple, a wrong type: invalid_request', async () => {
    const vp = await presentSdJwt(sdJwtVc, { given_name: true, address: { locality: true } })
    const cases: unknown[] = [
      { pid: [vp], nope: [vp] },
      { pid: [] },
      { pid: [vp, vp] },
      { pid: vp },
      { pid: [{ sdjwt: vp }] },
      [vp],
      'x',
      {},
    ]
    for (const vpToken of cases)
      expect(await evaluate(request(pidQuery()), vpToken), JSON.stringify(vpToken).slice(0, 80)).toMatchObject({
        status: 'failed',
        error: 'invalid_request',
      })
    // With multiple, two are taken.
    const outcome = await evaluate(request(pidQuery({ multiple: true })), { pid: [vp, vp] })
    expect(outcome.status).toBe('fulfilled')
    if (outcome.status === 'fulfilled') expect(outcome.credentials.pid).toHaveLength(2)
  })

  it('bounds before any verification: the count of presentations, the nesting, the length of strings', () => {
    expect(checkVpTokenBounds({ a: ['x', 'y'], b: ['z'] }, { maxPresentations: 3 })).toBeUndefined()
    expect(checkVpTokenBounds({ a: ['x', 'y'], b: ['z', 'w'] }, { maxPresentations: 3 })).toMatch(/more than 3 presentations/)
    expect(checkVpTokenBounds({ a: Array(11).fill('x') }, { maxPresentations: 10 })).toMatch(/more than 10 presentations/)
    let deep: unknown = {}
    for (let i = 0; i < 10_000; i++) deep = { d: deep }
    expect(checkVpTokenBounds({ a: [deep] }, { maxPresentations: 10 })).toMatch(/nested deeper than 64/)
    expect(checkVpTokenBounds({ a: ['x'.repeat(101)] }, { maxPresentations: 10, maxStringChars: 100 })).toMatch(/longer than 100/)
    expect(checkVpTokenBounds({ a: 'x' }, { maxPresentations: 10 })).toMatch(/array/)
    expect(checkVpTokenBounds(['x'], { maxPresentations: 10 })).toMatch(/JSON object/)
  })
})

describe('W3C formats', () => {
  it('jwt_vc_json: a VP-JWT of a VC-JWT, bound by nonce and aud; the claims at their paths from the credential root', async () => {
    const signed = await h.request('POST', '/claims/sign', {
      json: {
        iss: issuer.did,
        sub: holder.did,
        format: 'JWT',
        claims: [{ id: 'urn:example:member-1', payload: { member: true, level: 'gold' } }],
      },
      didAuth: issuer.jwt,
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const vcJwt: string = signed.body.vcs[0].jwt
    const sign = async (nonce: string, aud: string) => {
      const res = await h.request('POST', '/presentations/sign', {
        json: { holder: holder.did, format: 'JWT', nonce, aud, vcs: [{ jwt: vcJwt }] },
        token: TENANT_B,
        didAuth: holder.jwt,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.presentation.jwt as string
    }
    const query = {
      credentials: [
        {
          id: 'member',
          format: 'jwt_vc_json',
          meta: { type_values: [['VerifiableCredential']] },
          claims: [{ path: ['credentialSubject', 'level'] }],
        },
      ],
    }
    const outcome = await evaluate(request(query), { member: [await sign(NONCE, CLIENT_ID)] })
    expect(outcome.status, JSON.stringify(outcome)).toBe('fulfilled')
    if (outcome.status === 'fulfilled')
      expect(outcome.credentials.member[0]).toMatchObject({
        format: 'jwt_vc_json',
        issuer: issuer.did,
        holder: { did: holder.did },
        types: expect.arrayContaining(['VerifiableCredential']),
        claims: { credentialSubject: { level: 'gold' } },
        unrequested: [],
      })
    expect(await evaluate(request(query), { member: [await sign('other-nonce', CLIENT_ID)] })).toMatchObject({
      error: 'verification_failed',
      checks: [{ check: 'nonce', verified: false }],
    })
    expect(await evaluate(request(query), { member: [await sign(NONCE, 'decentralized_identifier:did:web:other.example')] })).toMatchObject(
      {
        error: 'verification_failed',
        checks: [{ check: 'aud', verified: false }],
      },
    )
    const otherType = { credentials: [{ ...query.credentials[0], meta: { type_values: [['UniversityDegreeCredential']] } }] }
    expect(await evaluate(request(otherType), { member: [await sign(NONCE, CLIENT_ID)] })).toMatchObject({ error: 'query_not_satisfied' })
    // A VP-JWT under a query of another format: refused before verification.
    const asLdp = { credentials: [{ ...query.credentials[0], format: 'ldp_vc' }] }
    expect(await evaluate(request(asLdp), { member: [await sign(NONCE, CLIENT_ID)] })).toMatchObject({ error: 'invalid_request' })
  })

  it('ldp_vc: a Data Integrity presentation of an ecdsa-sd-2023 derived credential, bound by challenge and domain', async () => {
    const V2 = 'https://www.w3.org/ns/credentials/v2'
    const signed = await h.request('POST', '/claims/sign', {
      json: {
        iss: issuer.did,
        sub: holder.did,
        context: [V2],
        cryptosuite: 'ecdsa-sd-2023',
        mandatoryPointers: ['/issuer', '/credentialSubject/degree'],
        claims: [{ payload: { degree: 'BSc', name: 'Alice', birthYear: 2001 } }],
      },
      didAuth: issuer.jwt,
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const derived = await h.request('POST', '/presentations/derive', {
      json: { jsonld: signed.body.vcs[0].jsonld, selectivePointers: ['/credentialSubject/name'] },
      token: TENANT_B,
      didAuth: holder.jwt,
    })
    expect(derived.status, JSON.stringify(derived.body)).toBe(200)
    const sign = async (challenge: string, domain: string) => {
      const res = await h.request('POST', '/presentations/sign', {
        json: { holder: holder.did, format: 'JSON-LD', challenge, domain, vcs: [{ jsonld: derived.body.jsonld }] },
        token: TENANT_B,
        didAuth: holder.jwt,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.presentation.jsonld as Record<string, unknown>
    }
    const query = {
      credentials: [
        {
          id: 'degree',
          format: 'ldp_vc',
          meta: { type_values: [['VerifiableCredential']] },
          claims: [{ path: ['credentialSubject', 'degree'] }],
        },
      ],
    }
    const outcome = await evaluate(request(query), { degree: [await sign(NONCE, CLIENT_ID)] })
    expect(outcome.status, JSON.stringify(outcome)).toBe('fulfilled')
    if (outcome.status === 'fulfilled')
      expect(outcome.credentials.degree[0]).toMatchObject({
        format: 'ldp_vc',
        issuer: issuer.did,
        holder: { did: holder.did },
        claims: { credentialSubject: { degree: 'BSc' } },
      })
    expect(await evaluate(request(query), { degree: [await sign('other-nonce', CLIENT_ID)] })).toMatchObject({
      error: 'verification_failed',
      checks: [{ check: 'challenge', verified: false }],
    })
    expect(await evaluate(request(query), { degree: [await sign(NONCE, 'redirect_uri:https://other.example/cb')] })).toMatchObject({
      error: 'verification_failed',
      checks: [{ check: 'domain', verified: false }],
    })
    const missing = { credentials: [{ ...query.credentials[0], claims: [{ path: ['credentialSubject', 'birthYear'] }] }] }
    const notThere = await evaluate(request(missing), { degree: [await sign(NONCE, CLIENT_ID)] })
    expect(notThere).toMatchObject({ error: 'query_not_satisfied' })
    if (notThere.status === 'failed') expect(notThere.errorDescription).toMatch(/'degree'.*birthYear/)
  })
})

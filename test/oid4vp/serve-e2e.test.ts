/**
 * `didvault serve` as an OID4VP verifier end to end (issue 34, "Tests with a real wallet"): a real process from the
 * sources, on a SQLite file and on PostgreSQL, with both its `oid4vci` issuer and its `oid4vp` verifier on (the
 * verifier's `x509` chain and key made by openssl here, SAN = the TLS terminator's host name), behind the test CA's TLS
 * terminator whose https origin is its publicUrl. Two tenants. One process per storage, shared by every case; the
 * credentials made once:
 * - an SD-JWT VC obtained from didvault's own OID4VCI issuer (pre-authorized flow, the openid4vc wallet of
 *   test/helpers/oid4vci-wallets.ts), presented by both OID4VP wallets of test/helpers/oid4vp-wallets.ts
 *   (openid4vc: `decentralized_identifier:` and `x509_san_dns:`; oid4-client: `x509_san_dns:`), `direct_post` and
 *   `direct_post.jwt`;
 * - a VC-JWT in a VP-JWT and an ecdsa-sd-2023 derived Data Integrity credential, issued through `/claims/sign`;
 * - same-device (`redirectUri`, the `response_code`);
 * - the negative cases of the specification.
 * Every result is read back through `didvault/client` (`getPresentationResult`); every refusal before a response is
 * taken changes no result.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as jose from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityError } from '../../src/errors.js'
import { SERVED_CLAIMS, SERVED_VCT, startServedIssuer, type ServedIssuer, type ServedStorage } from '../helpers/oid4vci-serve.js'
import { runWallet } from '../helpers/oid4vci-wallets.js'
import { oid4ClientWallet, openid4vcWallet, type HeldCredential, type VpWallet, type WalletTrust } from '../helpers/oid4vp-wallets.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'
import { makeTestCa, type TestCa } from '../helpers/tls.js'
import { w3cDiDocumentLoader } from '../helpers/w3c-di-vectors.js'

const STORAGES: ServedStorage[] = ['sqlite', 'postgres']
/** Every request of the served verifier lives this long (the module's `requestTtlSeconds`): the expiry case waits for it. */
const REQUEST_TTL_SECONDS = 8

type Client = ServedIssuer['client']
type Prefix = 'decentralized_identifier' | 'x509_san_dns'
type ResponseMode = 'direct_post' | 'direct_post.jwt'

/** The public JWK a did:jwk (URL) names. */
const jwkOfDidJwk = (did: string) => JSON.parse(Buffer.from(did.slice('did:jwk:'.length).split('#')[0], 'base64url').toString('utf8'))
const didJwkOf = (jwk: jose.JWK) => `did:jwk:${Buffer.from(JSON.stringify(jwk)).toString('base64url')}`

const sdJwtQuery = (claims: string[], vct = SERVED_VCT) => ({
  credentials: [{ id: 'identity', format: 'dc+sd-jwt', meta: { vct_values: [vct] }, claims: claims.map((name) => ({ path: [name] })) }],
})
const w3cQuery = (format: 'jwt_vc_json' | 'ldp_vc', claim: string) => ({
  credentials: [
    { id: 'member', format, meta: { type_values: [['VerifiableCredential']] }, claims: [{ path: ['credentialSubject', claim] }] },
  ],
})

/** The status and error type of a client call that must fail. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; type: string }> {
  try {
    await call
  } catch (err) {
    if (err instanceof IdentityError) return { status: err.statusCode, type: err.errorType }
    throw err
  }
  throw new Error('the call did not fail')
}

let ca: TestCa
let dir: string
/** The operator's certificate (self-signed, SAN DNS:localhost) and key files for `oid4vp.x509`. */
let x509: { chainFile: string; keyFile: string; pem: string }
beforeAll(() => {
  ca = makeTestCa()
  dir = mkdtempSync(join(tmpdir(), 'didvault-oid4vp-serve-'))
  const chainFile = join(dir, 'verifier-chain.pem')
  const keyFile = join(dir, 'verifier-key.pem')
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyFile, '-out', chainFile,
      '-subj', '/CN=didvault test verifier', '-days', '1', '-addext', 'subjectAltName=DNS:localhost'],
    { stdio: 'ignore' },
  ) // prettier-ignore
  chmodSync(keyFile, 0o600)
  x509 = { chainFile, keyFile, pem: readFileSync(chainFile, 'utf8') }
})
afterAll(() => {
  ca?.remove()
  rmSync(dir, { recursive: true, force: true })
})

describe.each(STORAGES)('didvault serve as an OID4VP verifier (%s)', (storage) => {
  let postgres: TestPostgres | undefined
  let served: ServedIssuer
  let trust: WalletTrust
  /** The SD-JWT VC from the served OID4VCI issuer; a VC-JWT, an ecdsa-sd-2023 derived credential, a revocable SD-JWT VC. */
  let sdJwt: HeldCredential & { format: 'dc+sd-jwt' }
  let vcJwt: HeldCredential
  let derived: HeldCredential
  let revocable: { held: HeldCredential; id: string }
  /** A request made first; it has expired by the last case (or is waited for). */
  let expiring: { id: string; uri: string; expiresAt: string }

  const wallets: Record<string, () => VpWallet> = {
    openid4vc: () => openid4vcWallet(trust),
    'oid4-client': () => oid4ClientWallet(trust),
  }

  /** A request of `client`'s tenant (default acme's): an `x509_san_dns:` one unless a DID is given. */
  async function request(
    dcqlQuery: { credentials: Record<string, unknown>[] },
    { prefix = 'x509_san_dns', responseMode = 'direct_post', client = served.client, ...more }: RequestOptions = {},
  ) {
    const clientId = prefix === 'decentralized_identifier' ? { prefix, did: served.issuingDid } : { prefix }
    const made = await client.createPresentationRequest({ dcqlQuery, clientId, responseMode, ...more })
    return { ...made, uri: made.authorizationRequest.uri }
  }
  interface RequestOptions {
    prefix?: Prefix
    responseMode?: ResponseMode
    client?: Client
    redirectUri?: string
  }
  /** Posts a form to request `id`'s response endpoint (the process's own port), as a wallet would. */
  const postResponse = (id: string, form: Record<string, string>) =>
    fetch(`${served.localUrl}/oid4vp/responses/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    })
  const result = (id: string, client: Client = served.client) => client.getPresentationResult({ id })
  /** The request object of `id` as served (GET, the process's own port). */
  const requestObject = async (id: string, init?: RequestInit) => {
    const res = await fetch(`${served.localUrl}/oid4vp/request-objects/${id}`, init)
    expect(res.status).toBe(200)
    return res.text()
  }

  beforeAll(async () => {
    if (storage === 'postgres') postgres = await startTestPostgres('oid4vp-serve')
    served = await startServedIssuer({
      storage,
      ca,
      dir,
      postgres,
      otherTenant: true,
      oid4vp: { requestTtlSeconds: REQUEST_TTL_SECONDS, x509: { chainFile: x509.chainFile, keyFile: x509.keyFile } },
    })
    trust = {
      ca: readFileSync(ca.caFile, 'utf8'),
      resolveDidKey: async (didUrl) => jwkOfDidJwk(didUrl),
      trustedCertificates: [x509.pem],
      documentLoader: w3cDiDocumentLoader(),
    }
    expiring = await request(sdJwtQuery(['given_name']))

    // Issue: the SD-JWT VC through the served OID4VCI issuer, pre-authorized, to the openid4vc wallet.
    const offer = await served.client.createCredentialOffer({ configurations: [{ id: served.configurationId, claims: SERVED_CLAIMS }] })
    const issued = await runWallet('openid4vc', offer.offerUri, { caFile: ca.caFile })
    sdJwt = { format: 'dc+sd-jwt', sdjwt: issued.credentials[0] as string, holderKey: issued.holderPrivateJwks![0] }

    // A holder outside didvault (did:jwk); the issuing DID signs a VC-JWT and an ecdsa-sd-2023 credential to it.
    const { privateKey } = await jose.generateKeyPair('ES256', { extractable: true })
    const holderKey = await jose.exportJWK(privateKey)
    const { d: _d, ...holderPublic } = holderKey
    const holderDid = didJwkOf(holderPublic)
    const holderPublicJwk = { kty: 'EC' as const, crv: 'P-256' as const, x: String(holderPublic.x), y: String(holderPublic.y) }
    const iss = served.issuingDid
    const signed = await served.client.signClaims({
      iss,
      sub: holderDid,
      format: 'JWT',
      claims: [{ id: 'urn:example:member-1', payload: { member: true, level: 'gold' } }],
    })
    vcJwt = { format: 'jwt_vc_json', jwt: (signed.vcs[0] as { jwt: string }).jwt, holderDid, holderKey }
    const base = await served.client.signClaims({
      iss,
      sub: holderDid,
      context: ['https://www.w3.org/ns/credentials/v2'],
      cryptosuite: 'ecdsa-sd-2023',
      mandatoryPointers: ['/issuer'],
      claims: [{ payload: { degree: 'BSc', name: 'Alice', birthYear: 2001 } }],
    })
    const disclosed = await served.client.deriveCredential({
      jsonld: (base.vcs[0] as { jsonld: Record<string, unknown> }).jsonld,
      selectivePointers: ['/credentialSubject/degree'],
    })
    derived = { format: 'ldp_vc', credential: disclosed.jsonld, holderDid, holderKey }
    const revocableId = 'urn:uuid:34000000-0000-4000-8000-0000000000e2'
    const withStatus = await served.client.signClaims({
      iss,
      format: 'SD-JWT',
      status: { purposes: ['revocation'] },
      claims: [
        { id: revocableId, vct: SERVED_VCT, payload: SERVED_CLAIMS, disclose: ['/given_name', '/family_name'], holderJwk: holderPublicJwk },
      ],
    })
    revocable = { held: { format: 'dc+sd-jwt', sdjwt: (withStatus.vcs[0] as { sdjwt: string }).sdjwt, holderKey }, id: revocableId }
  }, 180_000)
  afterAll(async () => {
    await served?.stop()
    await postgres?.stop()
  })

  describe('issue → present: the SD-JWT VC of the served OID4VCI issuer', () => {
    const matrix: { wallet: string; prefix: Prefix }[] = [
      { wallet: 'openid4vc', prefix: 'decentralized_identifier' },
      { wallet: 'openid4vc', prefix: 'x509_san_dns' },
      // oid4-client 5.10.0 refuses decentralized_identifier: request objects (test/helpers/oid4vp-wallets.md).
      { wallet: 'oid4-client', prefix: 'x509_san_dns' },
    ]
    for (const { wallet, prefix } of matrix)
      for (const responseMode of ['direct_post', 'direct_post.jwt'] as const)
        it(`${wallet}, ${prefix}, ${responseMode}: fulfilled with exactly the asked claims, the extra disclosure unrequested`, async () => {
          const made = await request(sdJwtQuery(['given_name']), { prefix, responseMode })
          expect((await result(made.id)).status).toBe('pending')
          const answer = await wallets[wallet]().answer(made.uri, [sdJwt], { tamper: { extraDisclose: 'family_name' } })
          expect(answer.status, JSON.stringify(answer.body)).toBe(200)
          expect(answer.request.client_id).toBe(
            prefix === 'x509_san_dns' ? 'x509_san_dns:localhost' : `decentralized_identifier:${served.issuingDid}`,
          )
          if (responseMode === 'direct_post.jwt') expect(Object.keys(answer.sent)).toEqual(['response'])
          const read = await result(made.id)
          expect(read.status, JSON.stringify(read)).toBe('fulfilled')
          const [credential] = read.credentials!.identity
          expect(credential).toMatchObject({ format: 'dc+sd-jwt', vct: SERVED_VCT, holder: { jwk: { x: sdJwt.holderKey.x } } })
          expect([served.issuingDid, served.credentialIssuer]).toContain(credential.issuer)
          expect(credential.claims).toEqual({ given_name: SERVED_CLAIMS.given_name })
          expect(credential.unrequested).toEqual([['family_name']])
          expect(credential.checks.every((c) => c.verified)).toBe(true)
        })
  })

  describe('W3C credentials issued through /claims/sign', () => {
    const cases = [
      { label: 'a VC-JWT in a VP-JWT (jwt_vc_json)', format: 'jwt_vc_json', claim: 'level', value: 'gold' },
      { label: 'an ecdsa-sd-2023 derived credential (ldp_vc)', format: 'ldp_vc', claim: 'degree', value: 'BSc' },
    ] as const
    for (const c of cases)
      for (const [wallet, responseMode] of [
        ['openid4vc', 'direct_post.jwt'],
        ['oid4-client', 'direct_post'],
      ] as const)
        it(`${wallet}, ${responseMode}: ${c.label}, fulfilled with the asked claim, the holder's DID`, async () => {
          const made = await request(w3cQuery(c.format, c.claim), { responseMode })
          const held = c.format === 'jwt_vc_json' ? vcJwt : derived
          const answer = await wallets[wallet]().answer(made.uri, [held])
          expect(answer.status, JSON.stringify(answer.body)).toBe(200)
          const read = await result(made.id)
          expect(read.status, JSON.stringify(read)).toBe('fulfilled')
          expect(read.credentials!.member[0]).toMatchObject({
            format: c.format,
            issuer: served.issuingDid,
            holder: { did: (held as { holderDid: string }).holderDid },
            claims: { credentialSubject: { [c.claim]: c.value } },
          })
        })
  })

  it('same-device: the redirect carries a response_code; the result reads once with it, 403 without', async () => {
    const made = await request(sdJwtQuery(['given_name']), { redirectUri: 'https://rp.example/done' })
    expect((await result(made.id)).status).toBe('pending')
    const answer = await wallets.openid4vc().answer(made.uri, [sdJwt])
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    const redirect = new URL(answer.redirectUri!)
    expect(redirect.origin + redirect.pathname).toBe('https://rp.example/done')
    const code = new URLSearchParams(redirect.hash.slice(1)).get('response_code')!
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(await refusal(result(made.id))).toEqual({ status: 403, type: 'FORBIDDEN' })
    expect(await refusal(served.client.getPresentationResult({ id: made.id, response_code: 'x'.repeat(43) }))).toMatchObject({
      status: 403,
    })
    const read = await served.client.getPresentationResult({ id: made.id, response_code: code })
    expect(read.status, JSON.stringify(read)).toBe('fulfilled')
    expect(read.credentials!.identity[0].claims).toEqual({ given_name: SERVED_CLAIMS.given_name })
    expect(await refusal(served.client.getPresentationResult({ id: made.id, response_code: code }))).toMatchObject({ status: 403 })
  })

  describe('negative cases of the specification', () => {
    it('a replayed vp_token: the second POST is refused, the first result kept', async () => {
      const made = await request(sdJwtQuery(['given_name']))
      const first = await wallets['oid4-client']().answer(made.uri, [sdJwt])
      expect(first.status, JSON.stringify(first.body)).toBe(200)
      const kept = await result(made.id)
      expect(kept.status).toBe('fulfilled')
      // The answered request's object is no longer served (400), so the replay is posted as the wallet sent it.
      const replayed = await postResponse(made.id, first.sent)
      expect(replayed.status).toBe(400)
      expect(await replayed.json()).toMatchObject({ error: 'invalid_request' })
      expect(await result(made.id)).toEqual(kept)
      // On another request, the same vp_token is bound to the first request's nonce: verification_failed.
      const other = await request(sdJwtQuery(['given_name']))
      await wallets.openid4vc().answer(other.uri, [sdJwt], { tamper: { replay: first.sent } })
      expect(await result(other.id)).toMatchObject({ status: 'failed', error: 'verification_failed' })
      expect(await result(made.id)).toEqual(kept)
    })

    it('another request’s nonce: verification_failed naming the nonce; the other request untouched', async () => {
      const made = await request(sdJwtQuery(['given_name']))
      const other = await request(sdJwtQuery(['given_name']))
      const otherNonce = String(jose.decodeJwt(await requestObject(other.id)).nonce)
      const answer = await wallets.openid4vc().answer(made.uri, [sdJwt], { tamper: { nonce: otherNonce } })
      // The response was taken (the request is answered): 200 `{}`; the outcome says why it failed.
      expect(answer.status).toBe(200)
      const read = await result(made.id)
      expect(read).toMatchObject({ status: 'failed', error: 'verification_failed' })
      expect(read.checks).toContainEqual(expect.objectContaining({ check: 'nonce', verified: false }))
      expect((await result(other.id)).status).toBe('pending')
    })

    it('another audience (client id): verification_failed naming aud', async () => {
      for (const [wallet, aud] of [
        ['openid4vc', 'x509_san_dns:verifier.example.com'],
        ['oid4-client', 'localhost'],
      ]) {
        const made = await request(sdJwtQuery(['given_name']))
        await wallets[wallet]().answer(made.uri, [sdJwt], { tamper: { aud } })
        const read = await result(made.id)
        expect(read).toMatchObject({ status: 'failed', error: 'verification_failed' })
        expect(read.checks).toContainEqual(expect.objectContaining({ check: 'aud', verified: false }))
      }
    })

    it('a DCQL query not satisfied: a claim left out, a credential of another vct: query_not_satisfied', async () => {
      const missing = await request(sdJwtQuery(['given_name', 'family_name']))
      await wallets.openid4vc().answer(missing.uri, [sdJwt], { tamper: { omitClaim: 'family_name' } })
      const read = await result(missing.id)
      expect(read).toMatchObject({ status: 'failed', error: 'query_not_satisfied' })
      expect(read.errorDescription).toMatch(/family_name/)
      const otherVct = await request(sdJwtQuery(['given_name'], 'https://credentials.example.com/other'))
      await expect(wallets['oid4-client']().answer(otherVct.uri, [sdJwt])).rejects.toThrow(/no credential for the credential query/)
      expect((await result(otherVct.id)).status).toBe('pending')
      await wallets['oid4-client']().answer(otherVct.uri, [sdJwt], { sendUnmatched: true, requestUriMethod: 'get' })
      const wrong = await result(otherVct.id)
      expect(wrong).toMatchObject({ status: 'failed', error: 'query_not_satisfied' })
      expect(wrong.errorDescription).toMatch(/vct/)
    })

    it('a revoked credential: fulfilled before, verification_failed naming the status check after', async () => {
      const before = await request(sdJwtQuery(['given_name']))
      await wallets.openid4vc().answer(before.uri, [revocable.held])
      expect((await result(before.id)).status).toBe('fulfilled')
      const changed = await served.client.changeStatus({ items: [{ id: revocable.id, purpose: 'revocation', value: true }] })
      expect(changed.errors).toEqual([])
      // The served process publishes its lists every second: wait until a verification sees the bit.
      const sdjwt = (revocable.held as { sdjwt: string }).sdjwt
      for (let tries = 0; tries < 50; tries++) {
        const verified = await served.client.verifyClaims({ vcs: [{ sdjwt }] })
        if (JSON.stringify(verified).includes('revoked')) break
        await new Promise((done) => setTimeout(done, 200))
      }
      const after = await request(sdJwtQuery(['given_name']))
      await wallets.openid4vc().answer(after.uri, [revocable.held])
      const read = await result(after.id)
      expect(read).toMatchObject({ status: 'failed', error: 'verification_failed' })
      expect(read.checks).toContainEqual(expect.objectContaining({ check: 'status', verified: false, reason: 'revoked' }))
    })

    it('a response encrypted to another key: 400, nothing written; the honest answer then fulfils', async () => {
      const made = await request(sdJwtQuery(['given_name']), { responseMode: 'direct_post.jwt' })
      const pending = await result(made.id)
      const other = await jose.generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true })
      const kid = String((jose.decodeJwt(await requestObject(made.id)).client_metadata as { jwks: { keys: jose.JWK[] } }).jwks.keys[0].kid)
      for (const wallet of ['openid4vc', 'oid4-client']) {
        const encryptTo = { ...(await jose.exportJWK(other.publicKey)), kid, use: 'enc', alg: 'ECDH-ES' }
        const answer = await wallets[wallet]().answer(made.uri, [sdJwt], { tamper: { encryptTo }, requestUriMethod: 'get' })
        expect(answer.status).toBe(400)
        expect(answer.body).toMatchObject({ error: 'invalid_request' })
      }
      expect(await result(made.id)).toEqual(pending)
      expect((await wallets.openid4vc().answer(made.uri, [sdJwt], { requestUriMethod: 'get' })).status).toBe(200)
      expect((await result(made.id)).status).toBe('fulfilled')
    })

    it('ids do not cross tenants: another tenant’s result is 422 both ways; its request object is its own', async () => {
      const other = served.other!
      const ours = await request(sdJwtQuery(['given_name']))
      const theirs = await request(sdJwtQuery(['given_name']), { client: other.client })
      expect(await refusal(result(ours.id, other.client))).toEqual({ status: 422, type: 'NOT_FOUND' })
      expect(await refusal(result(theirs.id))).toEqual({ status: 422, type: 'NOT_FOUND' })
      // The request object of globex's id is globex's request (its nonce, its response_uri), answered there.
      const answer = await wallets.openid4vc().answer(theirs.uri, [sdJwt])
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      expect(answer.request.response_uri).toBe(`${served.publicUrl}/oid4vp/responses/${theirs.id}`)
      expect((await result(theirs.id, other.client)).status).toBe('fulfilled')
      expect(await refusal(result(theirs.id))).toEqual({ status: 422, type: 'NOT_FOUND' })
      expect((await result(ours.id)).status).toBe('pending')
      // Its answer posted to acme's response_uri carries globex's state: refused, nothing written.
      const crossed = await wallets.openid4vc().answer(ours.uri, [sdJwt], { tamper: { replay: answer.sent } })
      expect(crossed.status).toBe(400)
      expect(crossed.body).toMatchObject({ error: 'invalid_request' })
      expect((await result(ours.id)).status).toBe('pending')
      expect((await result(theirs.id, other.client)).status).toBe('fulfilled')
    })

    it('a decentralized_identifier: request object is signed by the DID’s key (never alg none), GET and POST; a wallet that cannot verify it refuses', async () => {
      const made = await request(sdJwtQuery(['given_name']), { prefix: 'decentralized_identifier' })
      const key = await jose.importJWK(jwkOfDidJwk(served.issuingDid), 'ES256')
      const post = {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ wallet_nonce: 'n-0123456789' }).toString(),
      }
      for (const jwt of [await requestObject(made.id), await requestObject(made.id, post)]) {
        const header = jose.decodeProtectedHeader(jwt)
        expect(header).toMatchObject({ alg: 'ES256', typ: 'oauth-authz-req+jwt' })
        expect(String(header.kid).split('#')[0]).toBe(served.issuingDid)
        const { payload } = await jose.jwtVerify(jwt, key, { typ: 'oauth-authz-req+jwt' })
        expect(payload.client_id).toBe(`decentralized_identifier:${served.issuingDid}`)
      }
      const { publicKey } = await jose.generateKeyPair('ES256', { extractable: true })
      const stranger = await jose.exportJWK(publicKey)
      const fooled = openid4vcWallet({ ...trust, resolveDidKey: async () => stranger })
      const again = await request(sdJwtQuery(['given_name']), { prefix: 'decentralized_identifier' })
      await expect(fooled.answer(again.uri, [sdJwt])).rejects.toThrow()
      expect((await result(again.id)).status).toBe('pending')
    })

    // Last: the request made first has expired by now (or is waited for).
    it('an expired request: its request object and a response are refused (400), its result stays pending', async () => {
      await new Promise((done) => setTimeout(done, Math.max(0, Date.parse(expiring.expiresAt) - Date.now() + 500)))
      const before = await result(expiring.id)
      expect(before.status).toBe('pending')
      await expect(wallets.openid4vc().answer(expiring.uri, [sdJwt])).rejects.toThrow()
      const res = await fetch(`${served.localUrl}/oid4vp/request-objects/${expiring.id}`)
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ error: 'invalid_request' })
      const posted = await postResponse(expiring.id, { vp_token: JSON.stringify({ identity: ['x~'] }) })
      expect(posted.status).toBe(400)
      expect(await posted.json()).toMatchObject({ error: 'invalid_request' })
      expect(await result(expiring.id)).toEqual(before)
    }, 30_000)
  })
})

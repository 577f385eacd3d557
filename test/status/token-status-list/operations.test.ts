/**
 * The IETF Token Status List wired into the operations (issue 31 §3), through the router on loopback HTTP (a SQLite
 * file) with a driven clock: Sign Claims of an SD-JWT VC with `status` allocates an entry and signs
 * `status.status_list { idx, uri }` into it; `GET /status/:listId` serves the Status List Token as stored
 * (`application/statuslist+jwt`, ETag, Cache-Control), which `verifyStatusListToken` verifies and
 * `@sd-jwt/jwt-status-list` reads with the exact statuses set; `POST /claims/status` suspends, unsuspends and revokes
 * (final: 422, nothing written), only for the issuer's controller (403); Verify Claims reads the status (own list:
 * from storage); the token is signed again at half its lifetime. A list of another origin is read only from an
 * allowed origin and verified: a forged token or an index past the list fails the `status` check.
 */
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from '../../../src/client/create-client.js'
import { StatusVerifier } from '../../../src/status/verify-status.js'
import { encodeStatusList, signStatusListToken, verifyStatusListToken } from '../../../src/status/token-status-list/index.js'
import { snapshot, startHarness, TENANT_A, type Harness } from '../../helpers/harness.js'
import { openKeyPort, portIdentity, resolver } from '../../credentials/sd-jwt/helpers.js'
import { startListServer, type ListServer } from '../list-server.js'

const PUBLIC_URL = 'https://vault.example.com/id'
const SIZE = 64
const DAY = 86_400_000

let h: Harness
let clock = Date.now()
let issuer: { did: string; jwt: string }
let other: { did: string; jwt: string }

beforeAll(async () => {
  h = await startHarness({
    storage: 'sqlite',
    service: { publicUrl: PUBLIC_URL, statusPublishIntervalMs: 60_000, statusListSize: SIZE, now: () => clock },
  })
  issuer = await walletOf('P-256')
  other = await walletOf('Ed25519')
})
afterAll(() => h?.close())

async function walletOf(keyType: string): Promise<{ did: string; jwt: string }> {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'jwk', keyType } } })
  expect(made.status).toBe(200)
  const did: string = made.body.wallet.did
  const token = await h.request('POST', '/did-auth-jwt', { json: { iss: did } })
  return { did, jwt: token.body.jwt }
}

const decodePart = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, any>
const payloadOf = (sdjwt: string) => decodePart(sdjwt.split('~')[0].split('.')[1])

async function issueWithStatus(purposes: string[], by = issuer): Promise<{ sdjwt: string; idx: number; uri: string }> {
  const res = await h.request('POST', '/claims/sign', {
    json: {
      iss: by.did,
      format: 'SD-JWT',
      sub: other.did,
      status: { purposes },
      claims: [{ vct: 'Identity', payload: { name: 'Erika' } }],
    },
    didAuth: by.jwt,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  const sdjwt: string = res.body.vcs[0].sdjwt
  const { idx, uri } = payloadOf(sdjwt).status.status_list
  return { sdjwt, idx, uri }
}

const change = (uri: string, idx: number, purpose: string, value: boolean, didAuth = issuer.jwt) =>
  h.request('POST', '/claims/status', {
    json: { items: [{ statusListCredential: uri, statusListIndex: idx, purpose, value }] },
    didAuth,
  })

async function verify(sdjwt: string) {
  const res = await h.request('POST', '/claims/verify', { json: { vcs: [{ sdjwt }] }, didAuth: issuer.jwt })
  expect(res.status).toBe(200)
  return res.body.vcs[0] as { verified: boolean; checks: Array<Record<string, unknown>> }
}

/** The error body of the one item of a refused change (a batch: 200 with `errors`, no item done). */
function refusal(res: { status: number; body: any }) {
  expect(res.status).toBe(200)
  expect(res.body.items).toEqual([])
  return res.body.errors[0].error as Record<string, unknown>
}

const statusCheck = (result: { checks: Array<Record<string, unknown>> }) => result.checks.find((c) => c.check === 'status')
const getList = (uri: string, headers: Record<string, string> = {}) =>
  h.request('GET', uri.slice(PUBLIC_URL.length), { token: null, headers })

describe('Token Status List: sign, serve, change, verify (router on loopback, SQLite file)', () => {
  it('signs status.status_list { idx, uri } under publicUrl, and serves the Status List Token as stored', async () => {
    const { idx, uri } = await issueWithStatus(['revocation', 'suspension'])
    expect(uri).toMatch(new RegExp(`^${PUBLIC_URL}/status/[A-Za-z0-9_-]+$`))
    expect(Number.isInteger(idx) && idx >= 0 && idx < SIZE).toBe(true)
    const res = await getList(uri)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/statuslist\+jwt/)
    expect(res.headers.get('cache-control')).toBe('public, max-age=60')
    const etag = res.headers.get('etag')!
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    const token = res.body as string
    const [header, payload] = token.split('.').slice(0, 2).map(decodePart)
    expect(header).toMatchObject({ typ: 'statuslist+jwt', alg: 'ES256', kid: `${issuer.did}#0` })
    expect(payload).toMatchObject({ sub: uri, ttl: 300, status_list: { bits: 2 } })
    expect(payload.exp - payload.iat).toBe(86_400)
    const verified = await verifyStatusListToken(token, { resolver, uri, now: clock })
    expect(verified).toMatchObject({ verified: true, issuer: issuer.did, bits: 2 })
    expect(getListFromStatusListJWT(token).getStatus(idx)).toBe(0)
    expect((await getList(uri, { 'if-none-match': etag })).status).toBe(304)
    expect(await verify((await issueWithStatus(['revocation'])).sdjwt)).toMatchObject({ verified: true })
  })

  it('suspend, unsuspend, revoke: Verify Claims follows at once, the library reads the bits served once published', async () => {
    const { sdjwt, idx, uri } = await issueWithStatus(['revocation', 'suspension'])
    const served = async () => {
      clock += 61_000
      const res = await getList(uri)
      expect(res.status).toBe(200)
      return getListFromStatusListJWT(res.body as string).getStatus(idx)
    }
    expect(statusCheck(await verify(sdjwt))).toMatchObject({ verified: true, type: 'TokenStatusList', statusListIndex: String(idx) })

    const suspended = await change(uri, idx, 'suspension', true)
    expect(suspended.status).toBe(200)
    expect(suspended.body.items[0].entries[0]).toMatchObject({ statusPurpose: 'suspension', value: true, changed: true })
    expect(statusCheck(await verify(sdjwt))).toMatchObject({ verified: false, reason: 'suspended' })
    expect(await served()).toBe(2)

    expect((await change(uri, idx, 'suspension', false)).status).toBe(200)
    expect(await verify(sdjwt)).toMatchObject({ verified: true })
    expect(await served()).toBe(0)

    expect((await change(uri, idx, 'revocation', true)).status).toBe(200)
    expect(statusCheck(await verify(sdjwt))).toMatchObject({ verified: false, reason: 'revoked', value: true })
    expect(await served()).toBe(1)

    // Revocation is final: neither un-revoked nor suspended, 422 with the error body, nothing written.
    const before = await snapshot(h)
    for (const [purpose, value] of [
      ['revocation', false],
      ['suspension', true],
      ['suspension', false],
    ] as const) {
      expect(refusal(await change(uri, idx, purpose, value))).toEqual({
        statusCode: 422,
        errorType: 'VALIDATION_ERROR',
        errorMessage: expect.stringMatching(/revocation is final/),
      })
    }
    expect(await snapshot(h)).toEqual(before)
    expect(await served()).toBe(1)
  })

  it('refusals with exact bodies, nothing written: an index past the list, a purpose not issued, a caller who does not control the issuer (403)', async () => {
    const { idx, uri } = await issueWithStatus(['revocation'])
    const before = await snapshot(h)
    expect(refusal(await change(uri, SIZE, 'revocation', true))).toEqual({
      statusCode: 422,
      errorType: 'VALIDATION_ERROR',
      errorMessage: expect.stringMatching(/statusListIndex: 64 is out of range \(0 to 63\)/),
    })
    expect(refusal(await change(uri, idx, 'suspension', true))).toEqual({
      statusCode: 422,
      errorType: 'VALIDATION_ERROR',
      errorMessage: expect.stringMatching(/issued without suspension status/),
    })
    expect(refusal(await change(uri, idx, 'revocation', true, other.jwt))).toEqual({
      statusCode: 403,
      errorType: 'FORBIDDEN',
      errorMessage: expect.any(String),
    })
    expect(await snapshot(h)).toEqual(before)
  })

  it('changes an entry by the credential `id` given at sign, for each purpose it was issued with', async () => {
    const id = 'urn:uuid:6f7e1a52-tsl-by-id'
    const res = await h.request('POST', '/claims/sign', {
      json: {
        iss: issuer.did,
        format: 'SD-JWT',
        sub: other.did,
        status: { purposes: ['suspension', 'revocation'] },
        claims: [{ id, vct: 'Identity', payload: { name: 'Erika' } }],
      },
      didAuth: issuer.jwt,
    })
    expect(res.status).toBe(200)
    const sdjwt: string = res.body.vcs[0].sdjwt
    const byId = (purpose: string, value: boolean) =>
      h.request('POST', '/claims/status', { json: { items: [{ id, purpose, value }] }, didAuth: issuer.jwt })
    const suspended = await byId('suspension', true)
    expect(suspended.body.items[0].entries[0]).toMatchObject({ statusPurpose: 'suspension', changed: true })
    expect(statusCheck(await verify(sdjwt))).toMatchObject({ verified: false, reason: 'suspended' })
    const revoked = await byId('revocation', true)
    expect(revoked.body.items[0].entries[0]).toMatchObject({ statusPurpose: 'revocation', changed: true })
    expect(statusCheck(await verify(sdjwt))).toMatchObject({ verified: false, reason: 'revoked' })
  })

  it('changes the entry of a stored SD-JWT VC by its `_id` (read from the issuer-signed JWT the record keeps)', async () => {
    const { sdjwt } = await issueWithStatus(['revocation', 'suspension'])
    const stored = await h.request('POST', '/claims', { json: { claims: [{ sdjwt }] }, didAuth: issuer.jwt })
    expect(stored.status).toBe(200)
    const _id: string = stored.body.vcs[0]._id
    const byStoredId = (purpose: string, value: boolean) =>
      h.request('POST', '/claims/status', { json: { items: [{ _id, purpose, value }] }, didAuth: issuer.jwt })
    const suspended = await byStoredId('suspension', true)
    expect(suspended.status, JSON.stringify(suspended.body)).toBe(200)
    expect(suspended.body.items[0].entries[0]).toMatchObject({ statusPurpose: 'suspension', changed: true })
    expect(statusCheck(await verify(sdjwt))).toMatchObject({ verified: false, reason: 'suspended' })
    // Another wallet of the tenant, not the issuer's controller: refused, nothing written.
    const before = await snapshot(h)
    const stranger = await h.request('POST', '/claims/status', {
      json: { items: [{ _id, purpose: 'revocation', value: true }] },
      didAuth: other.jwt,
    })
    expect(refusal(stranger)).toMatchObject({ statusCode: 403, errorType: 'FORBIDDEN' })
    expect(await snapshot(h)).toEqual(before)
    const revoked = await byStoredId('revocation', true)
    expect(revoked.body.items[0].entries[0]).toMatchObject({ statusPurpose: 'revocation', changed: true })
    expect(statusCheck(await verify(sdjwt))).toMatchObject({ verified: false, reason: 'revoked' })
  })

  it('signs the token again at half its lifetime (the clock driven, no sleeping), not before', async () => {
    // A new issuer: a new list, first signed now.
    const { uri } = await issueWithStatus(['revocation'], await walletOf('secp256k1'))
    clock += 61_000
    const first = await getList(uri)
    const iat = decodePart((first.body as string).split('.')[1]).iat as number
    clock += DAY / 2 - 60_000
    const before = await getList(uri)
    expect(before.headers.get('etag')).toBe(first.headers.get('etag'))
    clock += 60_000
    const renewed = await getList(uri)
    expect(renewed.headers.get('etag')).not.toBe(first.headers.get('etag'))
    const payload = decodePart((renewed.body as string).split('.')[1])
    expect(payload.iat).toBeGreaterThanOrEqual(iat + DAY / 2000)
    expect(payload.exp - payload.iat).toBe(86_400)
    expect(await verifyStatusListToken(renewed.body, { resolver, uri, now: clock })).toMatchObject({ verified: true })
  })
})

describe('Token Status List through the embedded API and the client', () => {
  it('sign with status, suspend, the served document (embedded and through the client) and Verify Claims agree', async () => {
    const authorization = `Bearer ${TENANT_A}`
    // A fresh DID-auth token: the clock was driven past the earlier one's lifetime.
    const { jwt } = await h.service.as({ authorization }).generateToken({ iss: issuer.did })
    const as = h.service.as({ authorization, didAuth: jwt })
    const { vcs } = await as.signClaims({
      iss: issuer.did,
      format: 'SD-JWT',
      sub: other.did,
      status: { purposes: ['suspension'] },
      claims: [{ vct: 'Identity', payload: { name: 'Erika' } }],
    })
    const sdjwt = (vcs[0] as { sdjwt: string }).sdjwt
    const { idx, uri } = payloadOf(sdjwt).status.status_list as { idx: number; uri: string }
    const changed = await as.changeStatus({
      items: [{ statusListCredential: uri, statusListIndex: idx, purpose: 'suspension', value: true }],
    })
    expect(changed.items[0].entries[0]).toMatchObject({ statusPurpose: 'suspension', value: true, changed: true })
    clock += 61_000
    const served = await as.getStatusList({ listId: uri.split('/').pop()! })
    expect(served).toMatchObject({ contentType: 'application/statuslist+jwt', maxAge: 60 })
    expect(getListFromStatusListJWT(served.document as string).getStatus(idx)).toBe(2)
    // The client reads the token as served over loopback: the same document, media type and ETag.
    const fetched = await createClient({ baseUrl: h.url }).getStatusList({ listId: uri.split('/').pop()! })
    expect(fetched).toEqual(served)
    const [result] = (await as.verifyClaims({ vcs: [{ sdjwt }] })).vcs
    expect(result).toMatchObject({ verified: false })
    expect(statusCheck(result as never)).toMatchObject({ reason: 'suspended' })
  })
})

describe('Token Status List of another origin: only from an allowed origin, verified', () => {
  let server: ListServer
  let keyPort: Awaited<ReturnType<typeof openKeyPort>>
  let signer: Awaited<ReturnType<typeof portIdentity>>
  beforeAll(async () => {
    server = await startListServer()
    keyPort = await openKeyPort()
    signer = await portIdentity(keyPort.keys, 'P-256')
  })
  afterAll(async () => {
    await server?.close()
    await keyPort?.close()
  })

  async function serve(path: string, statuses: number[], tamper = false) {
    const uri = `${server.origin}${path}`
    const iat = Math.floor(Date.now() / 1000)
    const lst = encodeStatusList(Uint8Array.from(statuses), 2)
    let token = await signStatusListToken({ signer: signer.signer, kid: signer.kid, uri, bits: 2, lst, iat, exp: iat + 3_600, ttl: 300 })
    if (tamper) {
      const values = Uint8Array.from(statuses.map(() => 0))
      const [h0, , s] = token.split('.')
      const forged = Buffer.from(JSON.stringify({ sub: uri, iat, status_list: { bits: 2, lst: encodeStatusList(values, 2) } })).toString(
        'base64url',
      )
      token = `${h0}.${forged}.${s}`
    }
    server.lists.set(path, { body: token, headers: { 'content-type': 'application/statuslist+jwt' } })
    return uri
  }

  const check = async (verifier: StatusVerifier, uri: string, idx: number) =>
    verifier.forRequest()({ issuer: signer.did, credentialStatus: { status_list: { idx, uri } } }, { resolver, now: Date.now() })

  it('revoked and suspended entries fail, a valid one passes; a forged token or an index past the list fails the status check', async () => {
    const verifier = new StatusVerifier({ origins: [server.origin] })
    const uri = await serve('/lists/1', [0, 1, 2, 0])
    expect(await check(verifier, uri, 0)).toEqual([expect.objectContaining({ check: 'status', verified: true, value: false })])
    expect(await check(verifier, uri, 1)).toEqual([expect.objectContaining({ verified: false, reason: 'revoked' })])
    expect(await check(verifier, uri, 2)).toEqual([expect.objectContaining({ verified: false, reason: 'suspended' })])
    expect(await check(verifier, uri, 4)).toEqual([expect.objectContaining({ verified: false, reason: 'indexOutOfRange' })])
    const forged = await serve('/lists/forged', [1, 1, 1, 1], true)
    expect(await check(verifier, forged, 0)).toEqual([
      expect.objectContaining({ verified: false, reason: 'listNotVerified', error: expect.stringMatching(/signature/) }),
    ])
  })

  it('never fetches from an origin not allowed (the caller names the URL, the operator the origins)', async () => {
    const uri = await serve('/lists/2', [1])
    const requests = server.requests.length
    const verifier = new StatusVerifier({ origins: [] })
    expect(await check(verifier, uri, 0)).toEqual([expect.objectContaining({ verified: false, reason: 'originNotAllowed' })])
    expect(server.requests.length).toBe(requests)
  })
})

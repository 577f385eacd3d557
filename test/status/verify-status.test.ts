/**
 * Status checks of `POST /claims/verify` through the router: one `status` check per
 * `credentialStatus` entry, for VC-JWTs and JSON-LD credentials, with lists served by a
 * loopback server on an allowed origin (and others that are not). Lists and credentials are
 * made here: VC-JWTs with did-jwt-vc, JSON-LD lists with Sign Verifiable Credentials, JSON-LD
 * credentials with Add Proofs; the encoded lists are written bit by bit without the decoder
 * under test.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ES256KSigner } from 'did-jwt'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { CREDENTIALS_V1_URL, CREDENTIALS_V2_URL } from '../../src/proofs/jsonld/index.js'
import { LocalSigner, generatePrivateKey } from '../../src/keys/secp256k1.js'
import { alterPayload } from '../helpers/tokens.js'
import { startHarness, walletWithToken, type Harness } from '../helpers/harness.js'
import { encodedList, startListServer, type ListServer } from './list-server.js'

const TIMEOUT_MS = 400
const MAX_BYTES = 64 * 1024
const PUBLIC_URL = 'https://vault.example'

let h: Harness
let lists: ListServer
let elsewhere: ListServer
let deadOrigin: string
let offsetMs = 0
let caller: { did: string; _id: string; jwt: string }

beforeAll(async () => {
  lists = await startListServer()
  elsewhere = await startListServer()
  const dead = await startListServer()
  deadOrigin = dead.origin
  await dead.close()
  h = await startHarness({
    service: {
      now: () => Date.now() + offsetMs,
      publicUrl: PUBLIC_URL,
      statusListOrigins: [lists.origin, deadOrigin],
      statusLists: { timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES },
    },
  })
  caller = await walletWithToken(h)
})
afterAll(async () => {
  await h?.close()
  await lists?.close()
  await elsewhere?.close()
})
beforeEach(() => {
  lists.requests.length = 0
  elsewhere.requests.length = 0
})

const verify = (claims: unknown[]) => h.request('POST', '/claims/verify', { json: { claims }, didAuth: caller.jwt })

/** A fresh key and its did:ethr:dev DID (a DID nobody changed: the embedded registry resolves it). */
function outsider() {
  const key = generatePrivateKey()
  const signer = new LocalSigner(key)
  return { key, signer, did: `did:ethr:dev:${signer.address}` }
}
type Issuer = ReturnType<typeof outsider>

let serial = 0
/** A fresh path on the list server. */
const path = (name = 'list') => `/lists/${name}-${++serial}`

/** A VC-JWT by `by` (did-jwt-vc), with `vc` members added. */
const vcJwt = (by: Issuer, vc: Record<string, unknown>) =>
  createVerifiableCredentialJwt(
    { vc: { '@context': [CREDENTIALS_V1_URL], type: ['VerifiableCredential'], credentialSubject: { member: true }, ...vc } },
    { did: by.did, signer: didJwtSigner(by.signer), alg: 'ES256K' },
  )

/** A BitstringStatusListCredential VC-JWT by `by`. */
const bitstringListJwt = (by: Issuer, purpose: string | string[], encoded: string, id: string) =>
  vcJwt(by, {
    id,
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    credentialSubject: { id: `${id}#list`, type: 'BitstringStatusList', statusPurpose: purpose, encodedList: encoded },
  })

/** Serves `body` at `at` on the list server. */
function serve(at: string, body: string, headers: Record<string, string> = {}, server = lists) {
  server.lists.set(at, { body, headers })
  return `${server.origin}${at}`
}

const entry = (url: string, index: number, purpose = 'revocation', extra: Record<string, unknown> = {}) => ({
  id: `${url}#${index}`,
  type: 'BitstringStatusListEntry',
  statusPurpose: purpose,
  statusListIndex: String(index),
  statusListCredential: url,
  ...extra,
})

/** A credential of `by` with `credentialStatus`, verified: its body's only credential. */
async function verifyWithStatus(by: Issuer, credentialStatus: unknown) {
  const res = await verify([{ jwt: await vcJwt(by, { credentialSubject: { member: true }, credentialStatus }) }])
  expect(res.status).toBe(200)
  return res.body.vcs[0]
}
const statusChecks = (vc: { checks: any[] }): any[] => vc.checks.filter((c) => c.check === 'status')

describe('BitstringStatusListEntry in a VC-JWT', () => {
  const issuer = outsider()
  let url: string
  let suspensions: string
  beforeAll(async () => {
    const at = path()
    url = `${lists.origin}${at}`
    serve(at, await bitstringListJwt(issuer, 'revocation', encodedList([42]), url))
    const sat = path()
    suspensions = serve(sat, await bitstringListJwt(issuer, 'suspension', encodedList([3]), `${lists.origin}${sat}`))
  })

  it('a clear bit passes its named check; a set bit fails it as revoked (or suspended)', async () => {
    const clear = await verifyWithStatus(issuer, entry(url, 7))
    expect(clear.verified).toBe(true)
    expect(statusChecks(clear)).toEqual([
      {
        check: 'status',
        entry: 0,
        type: 'BitstringStatusListEntry',
        purpose: 'revocation',
        statusListCredential: url,
        statusListIndex: '7',
        verified: true,
        value: false,
      },
    ])
    const revoked = await verifyWithStatus(issuer, entry(url, 42))
    expect(revoked).toMatchObject({ verified: false, error: 'status: revoked: entry 42 of its status list is set' })
    expect(statusChecks(revoked)).toEqual([expect.objectContaining({ verified: false, value: true, reason: 'revoked' })])
    const both = await verifyWithStatus(issuer, [entry(url, 41), entry(suspensions, 3, 'suspension')])
    expect(both.verified).toBe(false)
    expect(statusChecks(both).map((c: any) => [c.entry, c.verified, c.reason])).toEqual([
      [0, true, undefined],
      [1, false, 'suspended'],
    ])
  })

  it('a list of an origin not allowed fails its check without any request; so does a redirect off the allowed origin', async () => {
    const foreign = serve(path(), await bitstringListJwt(issuer, 'revocation', encodedList([]), 'x'), {}, elsewhere)
    const vc = await verifyWithStatus(issuer, [entry(foreign, 1), entry('https://lists.example/1', 1)])
    expect(statusChecks(vc).map((c: any) => [c.verified, c.reason, c.error])).toEqual([
      [false, 'originNotAllowed', `status list origin ${elsewhere.origin} is not allowed (statusListOrigins)`],
      [false, 'originNotAllowed', 'status list origin https://lists.example is not allowed (statusListOrigins)'],
    ])
    const at = path()
    lists.lists.set(at, { body: '', status: 302, headers: { location: foreign } })
    const redirected = await verifyWithStatus(issuer, entry(`${lists.origin}${at}`, 1))
    expect(statusChecks(redirected)[0]).toMatchObject({
      reason: 'listUnavailable',
      error: 'status list: HTTP 302 (redirects are not followed)',
    })
    expect(elsewhere.requests).toEqual([])
    expect(lists.requests.map((r) => r.path)).toEqual([at])
  })

  it('an unreachable list, one answering too late, a 404 and garbage fail their checks within the timeout', async () => {
    const slow = path()
    lists.lists.set(slow, { body: await bitstringListJwt(issuer, 'revocation', encodedList([]), 'x'), delayMs: 3 * TIMEOUT_MS })
    const garbage = serve(path(), '{"not":')
    const started = Date.now()
    const vc = await verifyWithStatus(issuer, [
      entry(`${deadOrigin}/lists/1`, 1),
      entry(`${lists.origin}${slow}`, 1),
      entry(`${lists.origin}/lists/none`, 1),
      entry(garbage, 1),
    ])
    expect(Date.now() - started).toBeLessThan(2 * TIMEOUT_MS + 1_000)
    expect(statusChecks(vc).map((c: any) => [c.reason, c.error])).toEqual([
      ['listUnavailable', 'status list: unreachable'],
      ['listUnavailable', `status list: no answer within ${TIMEOUT_MS} ms`],
      ['listUnavailable', 'status list: HTTP 404'],
      ['malformedList', 'status list: neither a JWT nor a JSON object'],
    ])
  })

  it('a list over the size cap, and one that inflates past it, fail their checks', async () => {
    const big = serve(path(), JSON.stringify({ padding: 'x'.repeat(MAX_BYTES) }))
    const bomb = path()
    const bombUrl = serve(bomb, await bitstringListJwt(issuer, 'revocation', encodedList([], { length: 8 * (MAX_BYTES + 1) }), 'x'))
    const vc = await verifyWithStatus(issuer, [entry(big, 1), entry(bombUrl, 1)])
    expect(statusChecks(vc).map((c: any) => [c.reason, c.error])).toEqual([
      ['listUnavailable', `status list: the list is larger than ${MAX_BYTES} bytes`],
      ['malformedList', `status list: encodedList: decodes to more than ${MAX_BYTES} bytes`],
    ])
  })

  it('a list whose signature does not verify, of another issuer, for another purpose, or shorter than the index fails its check', async () => {
    const good = await bitstringListJwt(issuer, 'revocation', encodedList([]), 'x')
    const forged = serve(
      path(),
      alterPayload(good, (p) => ((p.vc as any).credentialSubject.encodedList = encodedList([1]))),
    )
    const other = serve(path(), await bitstringListJwt(outsider(), 'revocation', encodedList([]), 'x'))
    const vc = await verifyWithStatus(issuer, [
      entry(forged, 1),
      entry(other, 1),
      entry(url, 1, 'suspension'),
      entry(url, 131_072),
      entry(url, 131_071),
    ])
    expect(statusChecks(vc).map((c: any) => [c.verified, c.reason, c.error])).toEqual([
      [false, 'listNotVerified', expect.stringMatching(/^status list credential: signature: /)],
      [
        false,
        'issuerMismatch',
        expect.stringMatching(/^the status list’s issuer did:ethr:dev:0x\w+ is not the credential’s did:ethr:dev:/),
      ],
      [false, 'purposeMismatch', 'the status list is for revocation, not suspension'],
      [false, 'indexOutOfRange', 'statusListIndex 131072 is beyond the list’s 131072 entries'],
      [true, undefined, undefined],
    ])
  })

  it('entries of an unknown type, of statusSize 2, malformed, or too many, fail their checks without a request', async () => {
    const vc = await verifyWithStatus(issuer, [
      { ...entry(url, 1), type: 'RevocationList2020Status' },
      entry(url, 1, 'message', { statusSize: 2 }),
      entry(url, -1),
      { ...entry(url, 1), statusListCredential: 'file:///etc/passwd' },
      'revoked?',
    ])
    expect(statusChecks(vc).map((c: any) => [c.reason, c.error])).toEqual([
      ['unsupportedEntry', 'status entry type "RevocationList2020Status" is not read (BitstringStatusListEntry, StatusList2021Entry)'],
      ['statusSize', 'statusSize 2 is not supported (only 1)'],
      ['malformedEntry', 'statusListIndex: must be a non-negative integer (a string of digits)'],
      ['malformedEntry', 'statusListCredential: must be an http(s) URL'],
      ['malformedEntry', 'a status entry must be an object'],
    ])
    const many = await verifyWithStatus(
      issuer,
      Array.from({ length: 21 }, () => entry(url, 1)),
    )
    expect(statusChecks(many)).toEqual([
      { check: 'status', verified: false, reason: 'malformedEntry', error: 'more than 20 status entries' },
    ])
    expect(lists.requests).toEqual([])
  })

  it('a credential whose own checks fail gets no status check and makes no request', async () => {
    const jwt = await vcJwt(issuer, { credentialStatus: entry(url, 1) })
    const res = await verify([{ jwt: alterPayload(jwt, (p) => (p.sub = 'did:ethr:dev:0x0000000000000000000000000000000000000001')) }])
    expect(res.body.vcs[0].verified).toBe(false)
    expect(statusChecks(res.body.vcs[0])).toEqual([])
    expect(lists.requests).toEqual([])
  })

  it('a list under the service’s publicUrl is its own: not found without the publisher’s lists, and never fetched', async () => {
    const vc = await verifyWithStatus(issuer, entry(`${PUBLIC_URL}/status/abc`, 1))
    expect(statusChecks(vc)[0]).toMatchObject({ reason: 'listUnavailable', error: 'status list: not found among the service’s lists' })
  })
})

describe('caching', () => {
  const issuer = outsider()

  it('a list is fetched once within its max-age, revalidated with its ETag after, and its new content read', async () => {
    const at = path()
    const url = `${lists.origin}${at}`
    const first = await bitstringListJwt(issuer, 'revocation', encodedList([]), url)
    serve(at, first, { 'cache-control': 'max-age=60', etag: '"v1"' })
    expect((await verifyWithStatus(issuer, entry(url, 5))).verified).toBe(true)
    expect((await verifyWithStatus(issuer, entry(url, 5))).verified).toBe(true)
    expect(lists.requests).toEqual([{ path: at }])
    offsetMs += 61_000
    expect((await verifyWithStatus(issuer, entry(url, 5))).verified).toBe(true)
    expect(lists.requests).toEqual([{ path: at }, { path: at, ifNoneMatch: '"v1"' }])
    // Changed at its origin: read once the copy held is stale.
    serve(at, await bitstringListJwt(issuer, 'revocation', encodedList([5]), url), { 'cache-control': 'max-age=60', etag: '"v2"' })
    expect((await verifyWithStatus(issuer, entry(url, 5))).verified).toBe(true)
    offsetMs += 61_000
    const revoked = await verifyWithStatus(issuer, entry(url, 5))
    expect(statusChecks(revoked)[0]).toMatchObject({ verified: false, reason: 'revoked' })
    expect(lists.requests).toHaveLength(3)
  })

  it('a list without max-age is fetched for every verification', async () => {
    const at = path()
    const url = serve(at, await bitstringListJwt(issuer, 'revocation', encodedList([]), 'x'))
    await verifyWithStatus(issuer, entry(url, 5))
    await verifyWithStatus(issuer, entry(url, 5))
    expect(lists.requests).toHaveLength(2)
  })
})

describe('StatusList2021Entry (Veramo’s), made by did-jwt-vc with did-jwt’s own signer', () => {
  it('reads the list’s bits and refuses a list of the other kind', async () => {
    const issuer = outsider()
    const signer = { did: issuer.did, signer: ES256KSigner(issuer.key), alg: 'ES256K' }
    const at = path('2021')
    const url = `${lists.origin}${at}`
    const list = await createVerifiableCredentialJwt(
      {
        vc: {
          '@context': [CREDENTIALS_V1_URL, 'https://w3id.org/vc/status-list/2021/v1'],
          type: ['VerifiableCredential', 'StatusList2021Credential'],
          id: url,
          credentialSubject: {
            id: `${url}#list`,
            type: 'StatusList2021',
            statusPurpose: 'revocation',
            encodedList: encodedList([9], { multibase: false }),
          },
        },
      },
      signer,
    )
    serve(at, list)
    const entry2021 = (index: number, listUrl = url) => ({
      id: `${listUrl}#${index}`,
      type: 'StatusList2021Entry',
      statusPurpose: 'revocation',
      statusListIndex: String(index),
      statusListCredential: listUrl,
    })
    const credential = (index: number, listUrl?: string) =>
      createVerifiableCredentialJwt(
        {
          vc: {
            '@context': [CREDENTIALS_V1_URL, 'https://w3id.org/vc/status-list/2021/v1'],
            type: ['VerifiableCredential'],
            credentialSubject: { id: issuer.did, member: true },
            credentialStatus: entry2021(index, listUrl),
          },
        },
        signer,
      )
    const bitstring = serve(path(), await bitstringListJwt(issuer, 'revocation', encodedList([]), 'x'))
    const res = await verify([{ jwt: await credential(8) }, { jwt: await credential(9) }, { jwt: await credential(8, bitstring) }])
    expect(res.body.vcs.map((vc: any) => [vc.verified, statusChecks(vc)[0].reason, statusChecks(vc)[0].type])).toEqual([
      [true, undefined, 'StatusList2021Entry'],
      [false, 'revoked', 'StatusList2021Entry'],
      [false, 'malformedList', 'StatusList2021Entry'],
    ])
  })
})

describe('a JSON-LD credential (data model 2.0) of a service wallet', () => {
  it('is checked against lists the wallet signed with Sign Verifiable Credentials, JSON-LD and JWT', async () => {
    const wallet = await walletWithToken(h)
    const sign = async (format: string, id: string, purpose: string, encoded: string) => {
      const res = await h.request('POST', '/claims/sign', {
        json: {
          format,
          iss: wallet.did,
          ...(format === 'JSON-LD' && { context: CREDENTIALS_V2_URL }),
          type: 'BitstringStatusListCredential',
          claims: [{ id, payload: { type: 'BitstringStatusList', statusPurpose: purpose, encodedList: encoded } }],
        },
        didAuth: wallet.jwt,
      })
      expect(res.status).toBe(200)
      return res.body.vcs[0] as { jwt?: string; jsonld?: Record<string, unknown> }
    }
    const ldAt = path('ld')
    const ldUrl = `${lists.origin}${ldAt}`
    serve(ldAt, JSON.stringify((await sign('JSON-LD', ldUrl, 'revocation', encodedList([2]))).jsonld))
    const jwtAt = path('jwt')
    const jwtUrl = `${lists.origin}${jwtAt}`
    serve(jwtAt, (await sign('JWT', jwtUrl, 'suspension', encodedList([4]))).jwt!)
    const credential = (status: unknown[]) => ({
      '@context': [CREDENTIALS_V2_URL],
      id: wallet.did,
      type: ['VerifiableCredential'],
      issuer: wallet.did,
      validFrom: new Date().toISOString(),
      credentialSubject: { id: caller.did },
      credentialStatus: status,
    })
    const prove = async (doc: unknown) => {
      const res = await h.request('POST', '/claims/proofs', { json: { iss: wallet.did, claims: [{ jsonld: doc }] }, didAuth: wallet.jwt })
      expect(res.body.errors).toEqual([])
      return res.body.vcs[0].jsonld
    }
    const valid = await prove(credential([entry(ldUrl, 1), entry(jwtUrl, 1, 'suspension')]))
    const revoked = await prove(credential([entry(ldUrl, 2), entry(jwtUrl, 4, 'suspension')]))
    const res = await verify([{ jsonld: valid }, { jsonld: revoked }])
    expect(res.body.vcs.map((vc: any) => [vc.verified, statusChecks(vc).map((c: any) => c.reason ?? c.value)])).toEqual([
      [true, [false, false]],
      [false, ['revoked', 'suspended']],
    ])
    // The K credential above is not the wallet's: its list is of another issuer.
    const stranger = await verifyWithStatus(outsider(), entry(ldUrl, 1))
    expect(statusChecks(stranger)[0]).toMatchObject({ reason: 'issuerMismatch' })
  })
})

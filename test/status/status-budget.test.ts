/**
 * The status checks' budget per request (issue 28, finding 2), through the router against real
 * loopback origins that count every request: within one request each list URL is fetched at
 * most once (failures included), at most `statusLists.maxListsPerRequest` distinct lists of
 * other origins are read, all its status checks share `statusLists.requestDeadlineMs`, and a list
 * that could not be fetched is not asked for again for `statusLists.negativeCacheMs`. The same for
 * `POST /presentations/verify`, whose credentials share one budget.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createVerifiableCredentialJwt, createVerifiablePresentationJwt } from 'did-jwt-vc'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { CREDENTIALS_V1_URL } from '../../src/proofs/jsonld/index.js'
import { LocalSigner, generatePrivateKey } from '../../src/keys/secp256k1.js'
import { startHarness, walletWithToken, type Harness } from '../helpers/harness.js'
import { encodedList, startListServer, type ListServer } from './list-server.js'

const MAX_LISTS = 12
const NEGATIVE_MS = 30_000
const DEADLINE_MS = 300

/** An origin that accepts every request and never answers, counting them. */
async function startSilentOrigin(): Promise<{ origin: string; paths: string[]; close(): Promise<void> }> {
  const paths: string[] = []
  const server: Server = createServer((req) => void paths.push(req.url ?? '/'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

let lists: ListServer
let silent: Awaited<ReturnType<typeof startSilentOrigin>>
/** Generous deadline and timeout: nothing here waits on them. */
let h: Harness
/** A short deadline and a long timeout, against the silent origin. */
let hurried: Harness
let offsetMs = 0
let caller: { did: string; jwt: string }
let hurriedCaller: { did: string; jwt: string }

beforeAll(async () => {
  lists = await startListServer()
  silent = await startSilentOrigin()
  const statusListOrigins = [lists.origin, silent.origin]
  h = await startHarness({
    service: {
      now: () => Date.now() + offsetMs,
      statusListOrigins,
      statusLists: { maxListsPerRequest: MAX_LISTS, negativeCacheMs: NEGATIVE_MS, requestDeadlineMs: 120_000, timeoutMs: 30_000 },
    },
  })
  hurried = await startHarness({
    service: { statusListOrigins, statusLists: { requestDeadlineMs: DEADLINE_MS, timeoutMs: 120_000 } },
  })
  caller = await walletWithToken(h)
  hurriedCaller = await walletWithToken(hurried)
})
afterAll(async () => {
  await h?.close()
  await hurried?.close()
  await lists?.close()
  await silent?.close()
})
beforeEach(() => {
  lists.requests.length = 0
})

function outsider() {
  const signer = new LocalSigner(generatePrivateKey())
  return { signer, did: `did:ethr:dev:${signer.address}` }
}
type Party = ReturnType<typeof outsider>
const jwtIssuer = (by: Party) => ({ did: by.did, signer: didJwtSigner(by.signer), alg: 'ES256K' })

const vcJwt = (by: Party, vc: Record<string, unknown>) =>
  createVerifiableCredentialJwt(
    { vc: { '@context': [CREDENTIALS_V1_URL], type: ['VerifiableCredential'], credentialSubject: { member: true }, ...vc } },
    jwtIssuer(by),
  )

let serial = 0
/** A fresh revocation list of `by` served (without max-age: every request would fetch it again) at a new path; its URL. */
async function servedList(by: Party, set: number[] = []): Promise<string> {
  const at = `/budget/list-${++serial}`
  const url = `${lists.origin}${at}`
  const jwt = await vcJwt(by, {
    id: url,
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    credentialSubject: { id: `${url}#list`, type: 'BitstringStatusList', statusPurpose: 'revocation', encodedList: encodedList(set) },
  })
  lists.lists.set(at, { body: jwt })
  return url
}

const entry = (url: string, index: number) => ({
  id: `${url}#${index}`,
  type: 'BitstringStatusListEntry',
  statusPurpose: 'revocation',
  statusListIndex: String(index),
  statusListCredential: url,
})

const verify = (harness: Harness, didAuth: string, claims: unknown[]) =>
  harness.request('POST', '/claims/verify', { json: { claims }, didAuth })
const statusChecks = (vc: { checks: any[] }): any[] => vc.checks.filter((c) => c.check === 'status')
const fetchesPerPath = (paths: string[]) => {
  const counts = new Map<string, number>()
  for (const p of paths) counts.set(p, (counts.get(p) ?? 0) + 1)
  return counts
}

describe('POST /claims/verify', () => {
  it('50 copies of an outside credential with 20 status entries fetch each distinct list once', async () => {
    const issuer = outsider()
    const urls = await Promise.all(Array.from({ length: 10 }, () => servedList(issuer, [7])))
    // 20 entries, two in each list: index 7 (set in every list) only in the last one.
    const entries = urls.flatMap((url, i) => [entry(url, 2 * i + 100), entry(url, i === 9 ? 7 : 2 * i + 101)])
    const jwt = await vcJwt(issuer, { credentialStatus: entries })
    const res = await verify(
      h,
      caller.jwt,
      Array.from({ length: 50 }, () => ({ jwt })),
    )
    expect(res.status).toBe(200)
    expect(res.body.vcs).toHaveLength(50)
    for (const vc of res.body.vcs) {
      const checks = statusChecks(vc)
      expect(checks).toHaveLength(20)
      expect(checks.slice(0, 19).every((c) => c.verified)).toBe(true)
      expect(checks[19]).toMatchObject({ verified: false, reason: 'revoked' })
    }
    const counts = fetchesPerPath(lists.requests.map((r) => r.path))
    expect([...counts.keys()].sort()).toEqual(urls.map((u) => new URL(u).pathname).sort())
    expect([...counts.values()].every((n) => n === 1)).toBe(true)
  })

  it('more distinct lists than statusLists.maxListsPerRequest: the extra entries fail naming it, unfetched', async () => {
    const issuer = outsider()
    const urls = await Promise.all(Array.from({ length: MAX_LISTS + 3 }, () => servedList(issuer)))
    const jwt = await vcJwt(issuer, { credentialStatus: urls.map((url) => entry(url, 1)) })
    // A second credential naming the first list again: already read, it counts no more.
    const again = await vcJwt(issuer, { credentialStatus: [entry(urls[0], 2), entry(urls[MAX_LISTS], 2)] })
    const res = await verify(h, caller.jwt, [{ jwt }, { jwt: again }])
    const checks = statusChecks(res.body.vcs[0])
    expect(checks.slice(0, MAX_LISTS).every((c) => c.verified)).toBe(true)
    const refused = {
      verified: false,
      reason: 'tooManyLists',
      error: `status list: this request already reads ${MAX_LISTS} lists of other origins (statusLists.maxListsPerRequest)`,
    }
    expect(checks.slice(MAX_LISTS)).toEqual(Array.from({ length: 3 }, () => expect.objectContaining(refused)))
    expect(res.body.vcs[0]).toMatchObject({ verified: false, error: `status: ${refused.error}` })
    expect(statusChecks(res.body.vcs[1]).map((c) => [c.verified, c.reason])).toEqual([
      [true, undefined],
      [false, 'tooManyLists'],
    ])
    expect(lists.requests.map((r) => r.path).sort()).toEqual(
      urls
        .slice(0, MAX_LISTS)
        .map((u) => new URL(u).pathname)
        .sort(),
    )
  })

  it('a list that fails is fetched once per request and not again within statusLists.negativeCacheMs', async () => {
    const issuer = outsider()
    const at = `/budget/failing-${++serial}`
    lists.lists.set(at, { body: 'no', status: 500 })
    const url = `${lists.origin}${at}`
    const jwt = await vcJwt(issuer, { credentialStatus: [entry(url, 1), entry(url, 2)] })
    const first = await verify(h, caller.jwt, [{ jwt }, { jwt }])
    expect(first.body.vcs.flatMap(statusChecks).map((c: any) => [c.reason, c.error])).toEqual(
      Array.from({ length: 4 }, () => ['listUnavailable', 'status list: HTTP 500']),
    )
    expect(lists.requests).toEqual([{ path: at }])
    // Answering now, but the failure is the answer for statusLists.negativeCacheMs: no request.
    const list = await vcJwt(issuer, {
      id: url,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      credentialSubject: { id: `${url}#list`, type: 'BitstringStatusList', statusPurpose: 'revocation', encodedList: encodedList([]) },
    })
    lists.lists.set(at, { body: list })
    lists.requests.length = 0
    const second = await verify(h, caller.jwt, [{ jwt }])
    expect(statusChecks(second.body.vcs[0])).toEqual([
      expect.objectContaining({
        reason: 'listUnavailable',
        error: `status list: HTTP 500 (not asked again for ${NEGATIVE_MS} ms: statusLists.negativeCacheMs)`,
      }),
      expect.objectContaining({ reason: 'listUnavailable' }),
    ])
    expect(lists.requests).toEqual([])
    offsetMs += NEGATIVE_MS + 1
    const later = await verify(h, caller.jwt, [{ jwt }])
    expect(lists.requests).toEqual([{ path: at }])
    expect(statusChecks(later.body.vcs[0]).map((c) => c.verified)).toEqual([true, true])
  })

  it('an origin that never answers: the request answers at statusLists.requestDeadlineMs, every check naming it, one GET per list', async () => {
    const issuer = outsider()
    const urls = [1, 2, 3, 4].map((n) => `${silent.origin}/never/${++serial}-${n}`)
    const jwt = await vcJwt(issuer, { credentialStatus: urls.map((url) => entry(url, 1)) })
    const before = silent.paths.length
    // With timeoutMs 120 s, one entry after another would take 8 minutes per credential.
    const res = await verify(
      hurried,
      hurriedCaller.jwt,
      Array.from({ length: 50 }, () => ({ jwt })),
    )
    expect(res.status).toBe(200)
    const deadline = {
      verified: false,
      reason: 'requestDeadline',
      error: `status list: the request’s status checks took longer than ${DEADLINE_MS} ms (statusLists.requestDeadlineMs)`,
    }
    for (const vc of res.body.vcs) expect(statusChecks(vc)).toEqual(Array.from({ length: 4 }, () => expect.objectContaining(deadline)))
    // The first entry's list was asked for (its GET may still be on its way); the others, past the deadline, were not started.
    expect(silent.paths.length - before).toBeLessThanOrEqual(1)
  }, 30_000)
})

describe('POST /presentations/verify', () => {
  const holder = outsider()
  const presentation = (vcs: string[]) =>
    createVerifiablePresentationJwt(
      { vp: { '@context': [CREDENTIALS_V1_URL], type: ['VerifiablePresentation'], verifiableCredential: vcs } },
      jwtIssuer(holder),
    )
  const verifyPresentation = (harness: Harness, didAuth: string, jwt: string) =>
    harness.request('POST', '/presentations/verify', { json: { presentation: { jwt } }, didAuth })

  it('its credentials share one budget: each list fetched once, the cap counted over all of them', async () => {
    const issuer = outsider()
    const urls = await Promise.all(Array.from({ length: MAX_LISTS + 1 }, () => servedList(issuer)))
    const common = await vcJwt(issuer, { credentialStatus: urls.slice(0, 5).map((url, i) => entry(url, i)) })
    const rest = await vcJwt(issuer, { credentialStatus: urls.slice(5).map((url, i) => entry(url, i)) })
    const res = await verifyPresentation(h, caller.jwt, await presentation([...Array.from({ length: 30 }, () => common), rest]))
    expect(res.status).toBe(200)
    expect(res.body.vcs.slice(0, 30).every((vc: any) => vc.verified)).toBe(true)
    const last = statusChecks(res.body.vcs[30])
    expect(last.slice(0, MAX_LISTS - 5).every((c) => c.verified)).toBe(true)
    expect(last.slice(MAX_LISTS - 5)).toEqual([expect.objectContaining({ verified: false, reason: 'tooManyLists' })])
    expect(res.body).toMatchObject({
      verified: false,
      error: expect.stringMatching(/^credential 30: status: .*statusLists\.maxListsPerRequest/),
    })
    const counts = fetchesPerPath(lists.requests.map((r) => r.path))
    expect(counts.size).toBe(MAX_LISTS)
    expect([...counts.values()].every((n) => n === 1)).toBe(true)
  })

  it('an origin that never answers: one deadline for the whole presentation', async () => {
    const issuer = outsider()
    const vcs = await Promise.all(
      [1, 2, 3].map((n) => vcJwt(issuer, { credentialStatus: entry(`${silent.origin}/never/${++serial}-vp${n}`, 1) })),
    )
    const res = await verifyPresentation(hurried, hurriedCaller.jwt, await presentation([...vcs, ...vcs, ...vcs]))
    expect(res.status).toBe(200)
    expect(res.body.vcs.flatMap(statusChecks).map((c: any) => c.reason)).toEqual(Array.from({ length: 9 }, () => 'requestDeadline'))
  }, 30_000)
})

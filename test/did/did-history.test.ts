/**
 * DID document history on the embedded registry (DESIGN §4 "DID document history"): an
 * identity goes through a delegate, a service, the delegate's revocation, an owner change and
 * a short-lived sigAuth delegate, at times the test controls (the service's `now`); then every
 * version and times between them resolve — through `GET /1.0/identifiers/:did?versionId=…` /
 * `?versionTime=…` on a real server and through `service.resolveDid(did, { versionId,
 * versionTime })` — to the documents and metadata written out below. Malformed values are the
 * resolution error `invalidDidUrl` (400 over HTTP), never the current document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hexlify, toUtf8Bytes } from 'ethers'
import type { DIDResolutionResult } from 'did-resolver'
import type { DidRegistry, RegistryChange } from '../../src/index.js'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import { startHarness, type Harness } from '../helpers/harness.js'
import { withVersion } from '../../src/did/version.js'
import type { DidVersionQuery, IdentityService } from '../../src/index.js'

/** What the service's resolver answers for `did` with the version parameters added: the resolution result, errors included. */
const resolveWith = (service: IdentityService, did: string, version?: DidVersionQuery) =>
  service.resolver.resolve(withVersion(did, version))

/** The test's clock: seconds after T0. */
const T0 = 1_800_000_000
let clock = (T0 + 100) * 1000
const setTime = (seconds: number) => {
  clock = (T0 + seconds) * 1000
}
const iso = (seconds: number) => new Date((T0 + seconds) * 1000).toISOString().replace('.000', '')

let h: Harness
let registry: DidRegistry
const identity = new LocalSigner(generatePrivateKey())
const newOwner = new LocalSigner(generatePrivateKey())
const d1 = new LocalSigner(generatePrivateKey()).address
const d2 = new LocalSigner(generatePrivateKey()).address
const did = `did:ethr:dev:${identity.address}`
const HUB = hexlify(toUtf8Bytes('https://hub.example.com'))

async function change(seconds: number, c: RegistryChange, owner: LocalSigner, seq: number) {
  setTime(seconds)
  expect((await registry.apply(identity.address, c, owner)).versionId).toBe(String(seq))
}

beforeAll(async () => {
  h = await startHarness({ service: { now: () => clock } })
  registry = h.service.registries.forNetwork('dev')!
  await change(10, { op: 'addDelegate', delegateType: 'veriKey', delegate: d1, validity: 100 }, identity, 1)
  await change(20, { op: 'setAttribute', name: 'did/svc/HubService', value: HUB, validity: 1000 }, identity, 2)
  await change(30, { op: 'revokeDelegate', delegateType: 'veriKey', delegate: d1 }, identity, 3)
  await change(40, { op: 'changeOwner', newOwner: newOwner.address }, identity, 4)
  await change(50, { op: 'addDelegate', delegateType: 'sigAuth', delegate: d2, validity: 5 }, newOwner, 5)
  setTime(100)
})
afterAll(() => h.close())

// ---- The expected documents, written out

const CONTEXT = [
  'https://www.w3.org/ns/did/v1',
  'https://w3id.org/security/suites/secp256k1recovery-2020/v2',
  'https://w3id.org/security/v3-unstable',
]
const method = (fragment: string, address: string) => ({
  id: `${did}#${fragment}`,
  type: 'EcdsaSecp256k1RecoveryMethod2020',
  controller: did,
  blockchainAccountId: `eip155:1337:${address}`,
})
const hub = { id: `${did}#service-1`, type: 'HubService', serviceEndpoint: 'https://hub.example.com' }
const ref = (fragment: string) => `${did}#${fragment}`

function doc(owner: string, delegates: Array<[string, string]>, options: { sigAuth?: boolean; service?: boolean } = {}) {
  return {
    '@context': CONTEXT,
    id: did,
    verificationMethod: [method('controller', owner), ...delegates.map(([fragment, address]) => method(fragment, address))],
    authentication: [ref('controller'), ...(options.sigAuth ? delegates.map(([fragment]) => ref(fragment)) : [])],
    assertionMethod: [ref('controller'), ...delegates.map(([fragment]) => ref(fragment))],
    ...(options.service && { service: [hub] }),
  }
}

const DOCS = {
  initial: doc(identity.address, []),
  v1: doc(identity.address, [['delegate-1', d1]]),
  v2: doc(identity.address, [['delegate-1', d1]], { service: true }),
  // At the revocation's own time the delegate is still in: ERC-1056 sets its validTo to that
  // time, and ethr-did-resolver keeps entries with validTo ≥ the block time (numbered anew).
  v3: doc(identity.address, [['delegate-2', d1]], { service: true }),
  afterRevocation: doc(identity.address, [], { service: true }),
  v4: doc(newOwner.address, [], { service: true }),
  v5: doc(newOwner.address, [['delegate-3', d2]], { sigAuth: true, service: true }),
  afterExpiry: doc(newOwner.address, [], { service: true }),
}

const TIMES = [10, 20, 30, 40, 50]
/** didDocumentMetadata of version `n` (0–5), as ethr-did-resolver gives it for a block. */
function meta(n: number) {
  return {
    ...(n > 0 && { versionId: String(n), updated: iso(TIMES[n - 1]) }),
    ...(n < 5 && { nextVersionId: String(n + 1), nextUpdate: iso(TIMES[n]) }),
  }
}

// ---- Resolving through HTTP and the embedded API

const path = (query: string) => `/1.0/identifiers/${encodeURIComponent(did)}${query}`

/** Resolves through HTTP (raw query) and through `resolveDid` (options); both must give the same result, which is returned. */
async function resolveBoth(query: string, options: { versionId?: number | string; versionTime?: string }): Promise<DIDResolutionResult> {
  const res = await h.request('GET', path(query), { token: null })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  const { '@context': context, ...result } = res.body
  expect(context).toBe('https://w3id.org/did-resolution/v1')
  const embedded = await resolveWith(h.service, did, options)
  expect(embedded).toEqual(result)
  expect(result.didResolutionMetadata).toEqual({ contentType: 'application/did+ld+json' })
  return result
}

const atVersion = (n: number) => resolveBoth(`?versionId=${n}`, { versionId: n })
const atTime = (time: string) => resolveBoth(`?versionTime=${encodeURIComponent(time)}`, { versionTime: time })

describe('DID document history, embedded registry', () => {
  it('every versionId resolves to the document after that many changes, with ethr-did-resolver-style metadata', async () => {
    const expected = [DOCS.initial, DOCS.v1, DOCS.v2, DOCS.v3, DOCS.v4, DOCS.v5]
    for (const [n, document] of expected.entries()) {
      const result = await atVersion(n)
      expect(result.didDocument, `version ${n}`).toEqual(document)
      expect(result.didDocumentMetadata, `version ${n}`).toEqual(meta(n))
    }
  })

  it('the current document is the latest version judged now: the short-lived delegate has expired', async () => {
    const current = await resolveBoth('', {})
    expect(current.didDocument).toEqual(DOCS.afterExpiry)
    expect(current.didDocumentMetadata).toEqual(meta(5))
  })

  it('a versionTime selects the changes made by then and judges validities at that time', async () => {
    const cases: Array<[number, object, number]> = [
      [-1000, DOCS.initial, 0],
      [9, DOCS.initial, 0],
      [10, DOCS.v1, 1],
      [15, DOCS.v1, 1],
      [25, DOCS.v2, 2],
      [30, DOCS.v3, 3],
      [35, DOCS.afterRevocation, 3],
      [45, DOCS.v4, 4],
      [55, DOCS.v5, 5], // validTo = 55: still valid at 55
      [56, DOCS.afterExpiry, 5],
    ]
    for (const [seconds, document, n] of cases) {
      const result = await atTime(iso(seconds))
      expect(result.didDocument, `t0 + ${seconds}`).toEqual(document)
      expect(result.didDocumentMetadata, `t0 + ${seconds}`).toEqual(meta(n))
    }
  })

  it('a versionTime may carry an offset and a fraction of a second; a later time than now is now', async () => {
    const plus2h = new Date((T0 + 25) * 1000 + 2 * 3600_000).toISOString().replace(/\.000Z$/, '.999+02:00')
    expect((await atTime(plus2h)).didDocument).toEqual(DOCS.v2)
    // `+` unencoded in the URL is a plus sign (DID URL query), not a space
    const raw = await h.request('GET', path(`?versionTime=${plus2h}`), { token: null })
    expect(raw.status).toBe(200)
    expect(raw.body.didDocument).toEqual(DOCS.v2)
    const future = await atTime(iso(100_000))
    expect(future.didDocument).toEqual(DOCS.afterExpiry)
    expect(future.didDocumentMetadata).toEqual(meta(5))
  })

  it('a versionId beyond the latest change is notFound, as a block beyond the head is for ethr-did-resolver', async () => {
    const beyond = await h.request('GET', path('?versionId=6'), { token: null })
    expect([beyond.status, beyond.body.didResolutionMetadata.error, beyond.body.didDocument]).toEqual([404, 'notFound', null])
    const result = await resolveWith(h.service, did, { versionId: 6 })
    expect(result.didResolutionMetadata.error).toBe('notFound')
    expect(result.didDocument).toBeNull()
  })

  it('an identity that never changed: version 0 and any time are its implicit document, with no version metadata', async () => {
    const other = `did:ethr:dev:${new LocalSigner(generatePrivateKey()).address}`
    const implicit = await resolveWith(h.service, other)
    for (const version of [{ versionId: 0 }, { versionTime: iso(-1000) }, { versionTime: iso(50) }]) {
      expect(await resolveWith(h.service, other, version)).toEqual(implicit)
    }
    expect(implicit.didDocumentMetadata).toEqual({})
    expect((await resolveWith(h.service, other, { versionId: 1 })).didResolutionMetadata.error).toBe('notFound')
  })

  it("the DID URL forms: a query on the DID, and did-resolver's ;versionId= parameter", async () => {
    expect((await resolveWith(h.service, `${did}?versionId=2`)).didDocument).toEqual(DOCS.v2)
    expect((await h.service.resolver.resolve(`${did}?versionTime=${iso(35)}`)).didDocument).toEqual(DOCS.afterRevocation)
    expect((await h.service.resolver.resolve(`${did};versionId=1`)).didDocument).toEqual(DOCS.v1)
    expect((await resolveWith(h.service, `${did}?service=hub`, { versionId: 4 })).didDocument).toEqual(DOCS.v4)
  })
})

describe('malformed versionId / versionTime', () => {
  const INVALID = {
    didResolutionMetadata: { error: 'invalidDidUrl', message: expect.any(String) },
    didDocument: null,
    didDocumentMetadata: {},
  }
  const BAD_QUERIES = [
    'versionId=-1',
    'versionId=1.5',
    'versionId=abc',
    'versionId=',
    'versionId',
    'versionId=1e3',
    'versionId=0x10',
    'versionId=%201',
    'versionId=99999999999999999999',
    'versionTime=yesterday',
    'versionTime=',
    `versionTime=${T0}`,
    'versionTime=2027-02-30T00:00:00Z',
    'versionTime=2027-01-01T24:00:00Z',
    'versionTime=2027-01-01T00:00:60Z',
    'versionTime=2027-01-01T00:00:00',
    'versionTime=2027-01-01',
    'versionTime=2027-01-01T00:00Z',
    'versionTime=2027-01-01T00:00:00%2B24:00',
    'versionTime=2027-01-01T00:00:00%20',
    'versionTime=%E0%A4%A',
    `versionId=1&versionTime=${iso(15)}`,
    'versionId=1&versionId=1',
    `versionTime=${iso(15)}&versionTime=${iso(25)}`,
  ]

  it('over HTTP: 400 with the resolution result invalidDidUrl, and nothing else', async () => {
    for (const query of BAD_QUERIES) {
      const res = await h.request('GET', path(`?${query}`), { token: null })
      expect(res.status, query).toBe(400)
      expect(res.body, query).toEqual({ '@context': 'https://w3id.org/did-resolution/v1', ...INVALID })
      // The resolver's own message, or — a parameter given twice, refused by the query's schema (as HTTP carries it, two
      // values) — the schema's naming the parameter.
      expect(res.body.didResolutionMetadata.message, query).toMatch(/version(Id|Time)/)
    }
  })

  it('through the embedded API: the resolution error invalidDidUrl, with no document', async () => {
    for (const query of BAD_QUERIES) expect(await resolveWith(h.service, `${did}?${query}`), query).toEqual(INVALID)
    const options = [
      { versionId: -1 },
      { versionId: 1.5 },
      { versionId: Number.NaN },
      { versionId: '' },
      { versionTime: 'yesterday' },
      { versionTime: '' },
      { versionId: 1, versionTime: iso(15) },
    ]
    for (const version of options) expect(await resolveWith(h.service, did, version), JSON.stringify(version)).toEqual(INVALID)
    // the same parameter in the DID URL and in the options is given twice
    expect(await resolveWith(h.service, `${did}?versionId=1`, { versionId: 1 })).toEqual(INVALID)
    expect(await h.service.resolver.resolve(`${did};versionId=1?versionId=2`)).toEqual(INVALID)
  })
})

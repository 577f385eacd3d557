/**
 * JSON-LD work bounds through the router (issue 16, findings 2 and 4). Every JSON-LD input is
 * checked before any JSON-LD work — total values, array length, string length, depth — and a
 * `__proto__`, `constructor` or `prototype` key anywhere is refused: 422 naming the bound or
 * key on sign, store and add proof (nothing written), `verified: false` with the check
 * `bounds` or `keys` on verify. Canonicalization runs in the worker pool with a deadline and a
 * per-tenant cap, so a request over its deadline fails alone while other tenants are served.
 * Work is asserted by the pool's counters and by the order of answers, never by wall-clock time.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { CREDENTIALS_V1_URL } from '../../src/proofs/jsonld/contexts.js'
import type { IdentityServiceOptions } from '../../src/index.js'
import { expectError, snapshot, startHarness, TENANT_B, walletWithToken, type Harness } from '../helpers/harness.js'

/** A context that defines every term (`@vocab`), so any payload passes JSON-LD safe mode. */
const VOCAB_URL = 'https://example.com/contexts/bounds-vocab/v1'
const VOCAB = { '@context': { '@version': 1.1, '@vocab': 'https://example.com/vocab#' } }
const contexts = { [VOCAB_URL]: VOCAB }

type Wallet = { did: string; _id: string; jwt: string }

/** Requests of one harness, as `as` (a wallet with its DID-auth token) of `token`'s tenant. */
function client(h: Harness) {
  const post = (path: string, json: unknown, as: Wallet, token?: string) => h.request('POST', path, { json, didAuth: as.jwt, token })
  /** A POST of raw JSON text: a `__proto__` member stays an own property only when JSON.parse makes it. */
  const postRaw = (path: string, body: string, as: Wallet) =>
    h.request('POST', path, { body, headers: { 'content-type': 'application/json' }, didAuth: as.jwt })
  const sign = (as: Wallet, payload: unknown, token?: string) =>
    post('/claims/sign', { iss: as.did, context: VOCAB_URL, claims: [{ id: 'urn:example:bounds', payload }] }, as, token)
  async function signed(as: Wallet, payload: unknown, token?: string): Promise<Record<string, any>> {
    const res = await sign(as, payload, token)
    if (res.status !== 200) throw new Error(`sign: ${JSON.stringify(res.body).slice(0, 500)}`)
    return res.body.vcs[0].jsonld
  }
  const verify = (as: Wallet, jsonld: unknown, token?: string) => post('/claims/verify', { claims: [{ jsonld }] }, as, token)
  const store = (as: Wallet, jsonld: unknown, verifyFirst?: boolean) =>
    post('/claims', { claims: [{ jsonld }], ...(verifyFirst !== undefined && { verify: verifyFirst }) }, as)
  const addProof = (as: Wallet, jsonld: unknown) => post('/claims/proofs', { iss: as.did, claims: [{ jsonld }] }, as)
  return { post, postRaw, sign, signed, verify, store, addProof }
}

/** Every value of a JSON value, itself included (what `maxNodes` counts). */
const countNodes = (v: unknown): number =>
  typeof v === 'object' && v !== null ? 1 + Object.values(v).reduce((n: number, c) => n + countNodes(c), 0) : 1
/** Deepest nesting of objects and arrays (the value itself is level 1; what `maxDepth` bounds). */
const depthOf = (v: unknown): number => (typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0)
/**
 * `{ l6: { l5: … 1 } }`, `levels` objects deep. Each level has its own term: a chain of
 * look-alike blank nodes is what rdf-canonize's work bound refuses.
 */
const nested = (levels: number): unknown => (levels === 0 ? 1 : { [`l${levels}`]: nested(levels - 1) })

describe('default bounds', () => {
  let h: Harness
  let api: ReturnType<typeof client>
  let issuer: Wallet
  beforeAll(async () => {
    h = await startHarness({ service: { contexts } })
    api = client(h)
    issuer = await walletWithToken(h)
  })
  afterAll(() => h?.close())

  it('20,000 numbers in credentialSubject: refused before any JSON-LD work (verify false; sign, store, add proof 422)', async () => {
    const vc = await api.signed(issuer, { member: true })
    const nums = Array.from({ length: 20_000 }, (_, i) => i)
    const big = { ...vc, credentialSubject: { ...vc.credentialSubject, nums } }
    const before = await snapshot(h)
    const work = h.service.jsonldStats()

    const over = 'an array of 20000 elements (at credentialSubject.nums) is over the limit maxArrayLength = 1000'
    const checked = await api.verify(issuer, big)
    expect(checked.status).toBe(200)
    expect(checked.body.vcs[0]).toMatchObject({
      verified: false,
      issuer: issuer.did,
      checks: [{ check: 'bounds', verified: false, error: over }],
      error: `bounds: ${over}`,
    })
    const refusedSign = await api.sign(issuer, { nums })
    expectError(refusedSign, 422, 'VALIDATION_ERROR')
    expect(refusedSign.body.errorMessage).toBe(`claims.0: ${over}`)
    for (const res of [await api.store(issuer, big, true), await api.store(issuer, big), await api.addProof(issuer, big)]) {
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage).toMatch(/^claims\.0\.jsonld: an array of 20000 elements .* maxArrayLength = 1000$/)
    }

    expect(await snapshot(h)).toEqual(before)
    // Nothing reached JSON-LD processing: no task ran in the pool, nothing was canonicalized in this thread.
    expect(h.service.jsonldStats()).toMatchObject({ completed: work.completed, inline: work.inline })
  })

  it('signing and verifying a credential larger than the inline size runs in the pool; a small one is canonicalized inline', async () => {
    const before = h.service.jsonldStats()
    const vc = await api.signed(issuer, { claims: Array.from({ length: 100 }, (_, i) => ({ name: `claim ${i}`, value: i })) })
    // Another document (its proof options' hash is known from signing): one more task, and not verified.
    expect((await api.verify(issuer, { ...vc, credentialSubject: { ...vc.credentialSubject, extra: 1 } })).body.vcs[0].verified).toBe(false)
    const after = h.service.jsonldStats()
    expect(after.completed - before.completed).toBe(2)
    expect(after.inline).toBe(before.inline)
    const small = await api.signed(issuer, { member: true })
    expect(h.service.jsonldStats()).toMatchObject({ completed: after.completed, inline: after.inline + 1 })
    expect((await api.verify(issuer, small)).body.vcs[0].verified).toBe(true)
  })

  describe('keys that reach a prototype', () => {
    let vc: Record<string, any>
    beforeAll(async () => {
      vc = await api.signed(issuer, { member: true })
    })

    /** `body`'s JSON text with `member` inserted first into the object after `"credentialSubject":`. */
    const withMember = (body: unknown, member: string) =>
      JSON.stringify(body).replace('"credentialSubject":{', `"credentialSubject":{${member},`)
    const why = '__proto__, constructor and prototype are never accepted in a credential'
    const refused = (key: string, at: string) => `the key "${key}" is refused (at ${at}): ${why}`

    it.each(['__proto__', 'constructor', 'prototype'])('a signed credential with an unsigned %s member is not verified', async (key) => {
      const res = await api.postRaw('/claims/verify', withMember({ claims: [{ jsonld: vc }] }, `"${key}":{"isAdmin":true}`), issuer)
      expect(res.status).toBe(200)
      const error = refused(key, 'credentialSubject')
      expect(res.body.vcs[0]).toMatchObject({ verified: false, checks: [{ check: 'keys', verified: false, error }] })
      // The credential is echoed as given, with the member, and marked not verified.
      expect(Object.hasOwn(res.body.vcs[0].jsonld.credentialSubject, key)).toBe(true)
    })

    it('at the top level of the credential too (an object schema would drop it silently)', async () => {
      const body = JSON.stringify({ claims: [{ jsonld: vc }] }).replace('{"jsonld":{', '{"jsonld":{"__proto__":{"isAdmin":true},')
      const res = await api.postRaw('/claims/verify', body, issuer)
      expect(res.body.vcs[0]).toMatchObject({ verified: false, checks: [{ check: 'keys', error: refused('__proto__', 'the top level') }] })
    })

    it('store (with and without verify), add proof and sign refuse it with 422, and nothing is stored', async () => {
      const before = await snapshot(h)
      for (const verifyFirst of [true, false]) {
        const body = withMember({ claims: [{ jsonld: vc }], verify: verifyFirst }, '"__proto__":{"isAdmin":true}')
        const res = await api.postRaw('/claims', body, issuer)
        expectError(res, 422, 'VALIDATION_ERROR')
        expect(res.body.errorMessage).toBe(`claims.0.jsonld: ${refused('__proto__', 'credentialSubject')}`)
      }
      const withConstructor = withMember({ iss: issuer.did, claims: [{ jsonld: vc }] }, '"constructor":{"x":1}')
      const proofs = await api.postRaw('/claims/proofs', withConstructor, issuer)
      expectError(proofs, 422, 'VALIDATION_ERROR')
      for (const format of ['JSON-LD', 'JWT']) {
        const context = format === 'JSON-LD' ? { context: VOCAB_URL } : {}
        const body = JSON.stringify({ iss: issuer.did, format, ...context, claims: [{ payload: { member: true } }] })
        const res = await api.postRaw('/claims/sign', body.replace('"payload":{', '"payload":{"__proto__":{"isAdmin":true},'), issuer)
        expectError(res, 422, 'VALIDATION_ERROR')
        expect(res.body.errorMessage).toMatch(/the key "__proto__" is refused/)
        const deep = JSON.parse(body.replace('"payload":{', '"payload":{"deep":{"prototype":1},'))
        expectError(await api.post('/claims/sign', deep, issuer), 422, 'VALIDATION_ERROR')
      }
      expect(await snapshot(h)).toEqual(before)
    })
  })
})

describe('each bound, configured', () => {
  const LIMITS = { maxNodes: 400, maxArrayLength: 50, maxStringLength: 2_000, maxDepth: 8 }
  let h: Harness
  let api: ReturnType<typeof client>
  let issuer: Wallet
  beforeAll(async () => {
    h = await startHarness({ service: { contexts, limits: { jsonld: LIMITS } } })
    api = client(h)
    issuer = await walletWithToken(h)
  })
  afterAll(() => h?.close())

  type Credential = Record<string, any>
  /**
   * Signs `atLimit` (200) and verifies the credential (true); then one over the bound, each
   * naming it: signing `overLimit` 422, verifying `over(credential)` false, storing it 422.
   */
  async function atAndOver(
    limit: keyof typeof LIMITS,
    atLimit: unknown,
    overLimit: unknown,
    measure: (vc: Credential) => number,
    over: (vc: Credential) => Credential,
  ) {
    const vc = await api.signed(issuer, atLimit)
    expect(measure(vc)).toBe(LIMITS[limit])
    expect((await api.verify(issuer, vc)).body.vcs[0]).toMatchObject({ verified: true })

    const named = new RegExp(`is over the limit ${limit} = ${LIMITS[limit]}$`)
    const before = await snapshot(h)
    const refused = await api.sign(issuer, overLimit)
    expectError(refused, 422, 'VALIDATION_ERROR')
    expect(refused.body.errorMessage).toMatch(named)
    const overVc = over(vc)
    expect(measure(overVc)).toBe(LIMITS[limit] + 1)
    const checked = (await api.verify(issuer, overVc)).body.vcs[0]
    expect(checked).toMatchObject({ verified: false, checks: [{ check: 'bounds', verified: false }] })
    expect(checked.error).toMatch(named)
    const stored = await api.store(issuer, overVc)
    expectError(stored, 422, 'VALIDATION_ERROR')
    expect(stored.body.errorMessage).toMatch(named)
    expect(await snapshot(h)).toEqual(before)
  }

  it('maxArrayLength', async () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => i)
    const over = (vc: Credential) => ({ ...vc, credentialSubject: { ...vc.credentialSubject, list: list(51) } })
    await atAndOver('maxArrayLength', { list: list(50) }, { list: list(51) }, (vc) => vc.credentialSubject.list.length, over)
  })

  it('maxStringLength, for values and for keys', async () => {
    const text = (n: number) => 'x'.repeat(n)
    const over = (vc: Credential) => ({ ...vc, credentialSubject: { ...vc.credentialSubject, text: text(2_001) } })
    await atAndOver('maxStringLength', { text: text(2_000) }, { text: text(2_001) }, (vc) => vc.credentialSubject.text.length, over)
    const longKey = await api.sign(issuer, { ['k'.repeat(2_001)]: 1 })
    expectError(longKey, 422, 'VALIDATION_ERROR')
    const message = 'claims.0: a key of 2001 characters (at credentialSubject) is over the limit maxStringLength = 2000'
    expect(longKey.body.errorMessage).toBe(message)
  })

  it('maxDepth', async () => {
    // The credential is level 1, credentialSubject level 2, its member `a` 3: 6 objects deep reaches 8.
    const over = (vc: Credential) => ({ ...vc, credentialSubject: { ...vc.credentialSubject, a: nested(7) } })
    await atAndOver('maxDepth', { a: nested(6) }, { a: nested(7) }, depthOf, over)
  })

  it('maxNodes (the signed credential, proof included, exactly at the bound)', async () => {
    const probe = await api.signed(issuer, { k0: 0 })
    const members = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))
    // Each member adds one value; a signed credential has its proof (6 values) more than the one signing checks.
    const atLimit = LIMITS.maxNodes - countNodes(probe) + 1
    const over = (vc: Credential) => ({ ...vc, credentialSubject: { ...vc.credentialSubject, extra: 1 } })
    await atAndOver('maxNodes', members(atLimit), members(atLimit + 7), countNodes, over)
  })
})

describe('the worker pool: deadline and per-tenant cap', () => {
  // Bounds raised so that one credential costs seconds: 30 arrays of 1,000 values merged into one
  // property of one node (jsonld de-duplicates a property's values pairwise). The deadline stops it.
  const LIMITS = { maxNodes: 40_000 }
  const DEADLINE_MS = 300
  let h: Harness
  let api: ReturnType<typeof client>
  let a: Wallet
  let b: Wallet
  let small: Record<string, any>
  // A fresh pool for each test, both workers started and warm: tenants A and B each sign once, at the same time.
  beforeEach(async () => {
    const jsonldWorkers = { threads: 2, perTenant: 1, deadlineMs: DEADLINE_MS, inlineMaxNodes: 0 }
    h = await startHarness({ service: { contexts, limits: { jsonld: LIMITS }, jsonldWorkers } })
    api = client(h)
    a = await walletWithToken(h)
    b = await walletWithToken(h, TENANT_B)
    ;[, small] = await Promise.all([api.signed(a, { member: true }), api.signed(b, { member: true }, TENANT_B)])
  })
  afterEach(() => h?.close())

  const heavyPayload = () => ({
    items: Array.from({ length: 30 }, (_, k) => ({
      id: 'did:example:heavy',
      nums: Array.from({ length: 1_000 }, (_, i) => k * 1_000 + i),
    })),
  })
  const heavyCredential = () => ({
    '@context': [CREDENTIALS_V1_URL, VOCAB_URL],
    type: ['VerifiableCredential'],
    issuer: a.did,
    issuanceDate: new Date().toISOString(),
    credentialSubject: { id: 'did:example:subject', ...heavyPayload() },
    proof: {
      type: 'EcdsaKoblitzSignature2016',
      creator: `${a.did}#controller`,
      created: new Date().toISOString(),
      nonce: 'n',
      signatureValue: '00'.repeat(64),
    },
  })
  /** B's small credential with a new nonce: its proof options are not cached, so verifying it is one task. */
  let nonce = 0
  const smallAgain = () => ({ ...small, proof: { ...small.proof, nonce: `fresh-${++nonce}` } })

  /** Resolves once `predicate` holds of the pool's counters (polled; no time is asserted). */
  async function until(predicate: (stats: ReturnType<Harness['service']['jsonldStats']>) => boolean): Promise<void> {
    while (!predicate(h.service.jsonldStats())) await new Promise((resolve) => setTimeout(resolve, 5))
  }

  it('a credential over the deadline fails alone: another tenant’s small request is answered first; the worker is replaced', async () => {
    const stats = h.service.jsonldStats()
    const order: string[] = []
    const heavy = api.verify(a, heavyCredential()).then((res) => (order.push('heavy'), res))
    await until((s) => s.running === 1)
    const quick = await api.verify(b, smallAgain(), TENANT_B).then((res) => (order.push('small'), res))
    expect(quick.body.vcs[0].checks[0]).toMatchObject({ check: 'proof', verified: false })
    const slow = await heavy
    expect(order).toEqual(['small', 'heavy'])
    expect(slow.status).toBe(200)
    const error =
      `JSON-LD canonicalization did not finish within the deadline of ${DEADLINE_MS} ms (jsonldWorkers.deadlineMs): ` +
      'the document costs too much to process'
    expect(slow.body.vcs[0]).toMatchObject({ verified: false, checks: [{ check: 'deadline', verified: false, error }] })
    expect(h.service.jsonldStats()).toMatchObject({ timedOut: stats.timedOut + 1, completed: stats.completed + 2, running: 0, waiting: 0 })
    // Served as before: a new credential signs and verifies.
    const again = await api.signed(b, { member: true, n: 2 }, TENANT_B)
    expect((await api.verify(b, { ...again, credentialSubject: { ...again.credentialSubject } }, TENANT_B)).body.vcs[0].verified).toBe(true)

    // Signing over the deadline: 422 naming it, nothing written.
    const before = await snapshot(h)
    const res = await api.post('/claims/sign', { iss: a.did, context: VOCAB_URL, claims: [{ payload: heavyPayload() }] }, a)
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(new RegExp(`deadline of ${DEADLINE_MS} ms`))
    expect(await snapshot(h)).toEqual(before)
  })

  it('one tenant’s tasks run one at a time: its second waits while a worker is free, and that worker serves another tenant', async () => {
    const order: string[] = []
    const first = api.verify(a, heavyCredential()).then(() => order.push('a1'))
    await until((s) => s.running === 1)
    const second = api.verify(a, heavyCredential()).then(() => order.push('a2'))
    // A's second task waits in A's queue although a worker is free (perTenant 1).
    await until((s) => s.waiting === 1)
    expect(h.service.jsonldStats()).toMatchObject({ running: 1, waiting: 1 })
    const quick = api.verify(b, smallAgain(), TENANT_B).then(() => order.push('b'))
    await Promise.all([first, second, quick])
    expect(order).toEqual(['b', 'a1', 'a2'])
    expect(h.service.jsonldStats()).toMatchObject({ peakRunningPerTenant: 1, timedOut: 2 })
  })
})

describe('options', () => {
  it('bounds and pool options out of range stop IdentityService.create, naming them', async () => {
    const refused = (service: Partial<IdentityServiceOptions>) => expect(startHarness({ service })).rejects
    await refused({ limits: { jsonld: { maxNodes: 0 } } }).toThrow(/limits\.jsonld\.maxNodes must be an integer from 1/)
    await refused({ jsonldWorkers: { threads: 0 } }).toThrow(/jsonldWorkers\.threads must be an integer from 1/)
    await refused({ jsonldWorkers: { threads: 2, perTenant: 3 } }).toThrow(/jsonldWorkers\.perTenant must be an integer from 1 to 2/)
    await refused({ jsonldWorkers: { inlineMaxNodes: 1_000 } }).toThrow(/jsonldWorkers\.inlineMaxNodes must be an integer from 0 to 256/)
  })
})

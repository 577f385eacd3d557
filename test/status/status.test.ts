/**
 * Status lists through the router, on every storage of the harness: issuing with status
 * (`POST /claims/sign`), changing it (`POST /claims/status`), publishing (`GET /status/:listId`).
 * Every refusal is the error body (or a per-item error) with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeJWT } from 'did-jwt'
import { CREDENTIALS_V1_URL, CREDENTIALS_V2_URL } from '../../src/proofs/jsonld/index.js'
import { decodeList } from '../../src/status/bitstring.js'
import { HARNESS_STORAGES, TENANT_B, expectError, snapshot, startHarness, walletWithToken, type Harness } from '../helpers/harness.js'

const PUBLIC_URL = 'https://status.example.com/identity'

describe.each(HARNESS_STORAGES)('status lists (%s)', (_label, storage) => {
  let h: Harness
  let issuer: { did: string; _id: string; jwt: string }
  let other: { did: string; _id: string; jwt: string }
  let clock = Date.now()
  beforeAll(async () => {
    h = await startHarness({ storage, service: { publicUrl: PUBLIC_URL, statusPublishIntervalMs: 60_000, now: () => clock } })
    issuer = await walletWithToken(h)
    other = await walletWithToken(h)
  }, 120_000)
  afterAll(() => h?.close())

  const sign = (json: unknown, didAuth = issuer.jwt) => h.request('POST', '/claims/sign', { json, didAuth })
  const change = (items: unknown[], didAuth = issuer.jwt, token?: string) =>
    h.request('POST', '/claims/status', { json: { items }, didAuth, token })
  const get = (listId: string, headers: Record<string, string> = {}) => h.request('GET', `/status/${listId}`, { token: null, headers })
  const jwtWithStatus = async (purposes: string[]) => {
    const res = await sign({ iss: issuer.did, format: 'JWT', status: { purposes }, claims: [{ payload: { member: true } }] })
    expect(res.status).toBe(200)
    return res.body.vcs[0] as { id: string; jwt: string }
  }
  const statusOf = (jwt: string) => {
    const status = (decodeJWT(jwt).payload as { vc: { credentialStatus: unknown } }).vc.credentialStatus
    return [status].flat() as Array<Record<string, string>>
  }
  const listIdOf = (url: string) => url.split('/').pop()!

  it('issues a JWT credential with one BitstringStatusListEntry per purpose under the public URL', async () => {
    const vc = await jwtWithStatus(['revocation', 'suspension'])
    const entries = statusOf(vc.jwt)
    expect(entries).toHaveLength(2)
    for (const [i, purpose] of ['revocation', 'suspension'].entries()) {
      const entry = entries[i]
      expect(Object.keys(entry).sort()).toEqual(['id', 'statusListCredential', 'statusListIndex', 'statusPurpose', 'type'])
      expect(entry).toMatchObject({ type: 'BitstringStatusListEntry', statusPurpose: purpose })
      expect(entry.statusListCredential).toMatch(new RegExp(`^${PUBLIC_URL}/status/[A-Za-z0-9_-]+$`))
      expect(entry.statusListIndex).toMatch(/^\d+$/)
      expect(Number(entry.statusListIndex)).toBeLessThan(131_072)
      expect(entry.id).toBe(`${entry.statusListCredential}#${entry.statusListIndex}`)
    }
    expect(entries[0].statusListCredential).not.toBe(entries[1].statusListCredential)
  })

  it('issues JSON-LD with status in data model 2.0 (named, or no context named); explicit v1 with status is 422 naming the rule, nothing written', async () => {
    const claims = [{ id: 'urn:uuid:0b7e4e4e-9c1e-4c55-9d8b-0d2c0d7b6f11', payload: { name: 'x' } }]
    const ok = await sign({ iss: issuer.did, context: CREDENTIALS_V2_URL, status: { purposes: ['revocation'] }, claims })
    expect(ok.status).toBe(200)
    const { jsonld } = ok.body.vcs[0]
    expect(jsonld['@context'][0]).toBe(CREDENTIALS_V2_URL)
    expect(jsonld.credentialStatus).toMatchObject({ type: 'BitstringStatusListEntry', statusPurpose: 'revocation' })
    const unnamed = await sign({ iss: issuer.did, status: { purposes: ['revocation'] }, claims: [{ payload: { name: 'y' } }] })
    expect(unnamed.status).toBe(200)
    expect(unnamed.body.vcs[0].jsonld['@context'][0]).toBe(CREDENTIALS_V2_URL)
    const before = await snapshot(h)
    const v1 = await sign({ iss: issuer.did, context: CREDENTIALS_V1_URL, status: { purposes: ['revocation'] }, claims })
    expectError(v1, 422, 'VALIDATION_ERROR')
    expect(v1.body.errorMessage).toContain('data model 2.0')
    expect(v1.body.errorMessage).toContain(CREDENTIALS_V2_URL)
    expect(await snapshot(h)).toEqual(before)
  })

  it('refuses an unknown purpose, a repeated purpose, an empty or extra status field: 422, nothing written', async () => {
    const before = await snapshot(h)
    for (const status of [
      { purposes: ['expiry'] },
      { purposes: ['revocation', 'revocation'] },
      { purposes: [] },
      { purposes: ['revocation'], x: 1 },
    ]) {
      const res = await sign({ iss: issuer.did, format: 'JWT', status, claims: [{ payload: { a: 1 } }] })
      expectError(res, 422, 'VALIDATION_ERROR')
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('a request refused after allocation (a later claim fails) gives its entries back', async () => {
    const before = await snapshot(h)
    // The second claim's JWT has no claims: refused while planning, before any allocation.
    const refused = await sign({
      iss: issuer.did,
      format: 'JWT',
      status: { purposes: ['revocation'] },
      claims: [{ payload: { a: 1 } }, { payload: {} }],
    })
    expectError(refused, 422, 'VALIDATION_ERROR')
    // An alias taken: refused when the claim wallets are stored, after the entries were allocated.
    const taken = await sign({ iss: issuer.did, format: 'JWT', claims: [{ alias: 'status-taken', payload: { a: 1 } }] })
    expect(taken.status).toBe(200)
    const mid = await snapshot(h)
    const conflict = await sign({
      iss: issuer.did,
      format: 'JWT',
      status: { purposes: ['revocation'] },
      claims: [{ alias: 'status-taken', payload: { a: 1 } }],
    })
    expectError(conflict, 422, 'CONFLICT')
    const after = await snapshot(h)
    expect(after.status_entries).toBe(mid.status_entries)
    expect(before.status_entries).toBe(mid.status_entries)
  })

  it('revokes, suspends and unsuspends; publishes the signed list with the set bits only; logs each change', async () => {
    const vc = await jwtWithStatus(['revocation', 'suspension'])
    const [revocation, suspension] = statusOf(vc.jwt)
    const changed = await change([
      {
        statusListCredential: revocation.statusListCredential,
        statusListIndex: revocation.statusListIndex,
        purpose: 'revocation',
        value: true,
      },
      { id: vc.id, purpose: 'suspension', value: true },
    ])
    expect(changed.status).toBe(200)
    expect(changed.body.errors).toEqual([])
    expect(changed.body.items.map((i: any) => i.entries[0].changed)).toEqual([true, true])
    await h.service.publishStatusLists()
    for (const entry of [revocation, suspension]) {
      const res = await get(listIdOf(entry.statusListCredential))
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^application\/vc\+jwt/)
      expect(res.headers.get('cache-control')).toBe('public, max-age=60')
      const etag = res.headers.get('etag')!
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
      const { payload } = decodeJWT(res.body as string)
      const subject = (payload as any).vc.credentialSubject
      expect(subject).toMatchObject({ type: 'BitstringStatusList', statusPurpose: entry.statusPurpose })
      expect(payload.sub).toBe(`${entry.statusListCredential}#list`)
      expect(payload.iss).toBe(issuer.did)
      const bits = await decodeList(subject.encodedList)
      expect(bits.length).toBeGreaterThanOrEqual(131_072)
      expect(bits.get(Number(entry.statusListIndex))).toBe(true)
      const notModified = await get(listIdOf(entry.statusListCredential), { 'if-none-match': etag })
      expect(notModified.status).toBe(304)
      const stored = await h.storage.collection('status_lists').get(listIdOf(entry.statusListCredential))
      expect({ credential: stored?.credential, etag: stored?.etag }).toEqual({ credential: res.body, etag })
    }
    // Unsuspend toggles back; unrevoke is refused with nothing written.
    const lift = await change([{ id: vc.id, purpose: 'suspension', value: false }])
    expect(lift.body.items[0].entries[0]).toMatchObject({ value: false, changed: true })
    const before = await snapshot(h)
    const unrevoke = await change([{ id: vc.id, purpose: 'revocation', value: false }])
    expect(unrevoke.status).toBe(200)
    expect(unrevoke.body.items).toEqual([])
    expect(unrevoke.body.errors[0].index).toBe(0)
    expectError({ status: unrevoke.body.errors[0].error.statusCode, body: unrevoke.body.errors[0].error }, 422, 'VALIDATION_ERROR')
    expect(unrevoke.body.errors[0].error.errorMessage).toContain('revocation is final')
    expect(await snapshot(h)).toEqual(before)
    const log = await h.storage
      .collection('status_changes')
      .find({ field: 'listId', op: 'eq', value: listIdOf(suspension.statusListCredential) })
    // Both changes (the test's clock stands still: same createdAt, so no order between them).
    expect(log.items.map((c: any) => c.value).sort()).toEqual([false, true])
    expect(log.items[0]).toMatchObject({
      byDids: [expect.any(String)],
      byKeys: [expect.any(String)],
      index: Number(suspension.statusListIndex),
    })
  })

  it('changes the status of a stored credential by _id; a stored credential without status is 422', async () => {
    const vc = await jwtWithStatus(['suspension'])
    const plain = await sign({ iss: issuer.did, format: 'JWT', claims: [{ payload: { a: 1 } }] })
    const stored = await h.request('POST', '/claims', {
      json: { claims: [{ jwt: vc.jwt }, { jwt: plain.body.vcs[0].jwt }] },
      didAuth: issuer.jwt,
    })
    expect(stored.status).toBe(200)
    const [withStatus, without] = stored.body.vcs.map((v: any) => v._id)
    const before = await snapshot(h)
    const refused = await change([{ _id: without, purpose: 'suspension', value: true }])
    expect(refused.body.errors[0].error).toMatchObject({ statusCode: 422, errorType: 'VALIDATION_ERROR' })
    expect(await snapshot(h)).toEqual(before)
    const ok = await change([{ _id: withStatus, purpose: 'suspension', value: true }])
    expect(ok.body.items[0].entries).toHaveLength(1)
  })

  it('nobody but the issuer’s controller changes status: another wallet, another tenant — refused, nothing written', async () => {
    const vc = await jwtWithStatus(['revocation'])
    const [entry] = statusOf(vc.jwt)
    const item = {
      statusListCredential: entry.statusListCredential,
      statusListIndex: entry.statusListIndex,
      purpose: 'revocation',
      value: true,
    }
    const before = await snapshot(h)
    const byOther = await change([item], other.jwt)
    expect(byOther.body.errors[0].error).toMatchObject({ statusCode: 403, errorType: 'FORBIDDEN' })
    const foreign = await walletWithToken(h, TENANT_B)
    const mark = await snapshot(h)
    const byTenantB = await change([item], foreign.jwt, TENANT_B)
    expect(byTenantB.body.errors[0].error).toMatchObject({ statusCode: 422, errorType: 'NOT_FOUND' })
    expect(await snapshot(h)).toEqual(mark)
    expect(before.status_entries).toBe(mark.status_entries)
  })

  it('an index out of range, not allocated, a wrong purpose or a foreign URL: per-item 422, nothing written', async () => {
    const vc = await jwtWithStatus(['revocation'])
    const [entry] = statusOf(vc.jwt)
    const url = entry.statusListCredential
    const free = (Number(entry.statusListIndex) + 1) % 131_072
    const before = await snapshot(h)
    const res = await change([
      { statusListCredential: url, statusListIndex: '131072', purpose: 'revocation', value: true },
      { statusListCredential: url, statusListIndex: String(free), purpose: 'revocation', value: true },
      { statusListCredential: url, statusListIndex: entry.statusListIndex, purpose: 'suspension', value: true },
      {
        statusListCredential: url.replace('status.example.com', 'evil.example'),
        statusListIndex: entry.statusListIndex,
        purpose: 'revocation',
        value: true,
      },
      { id: 'urn:uuid:never-issued', purpose: 'revocation', value: true },
    ])
    expect(res.status).toBe(200)
    expect(res.body.items).toEqual([])
    expect(res.body.errors.map((e: any) => [e.index, e.error.errorType])).toEqual([
      [0, 'VALIDATION_ERROR'],
      [1, 'VALIDATION_ERROR'],
      [2, 'VALIDATION_ERROR'],
      [3, 'NOT_FOUND'],
      [4, 'NOT_FOUND'],
    ])
    expect(await snapshot(h)).toEqual(before)
  })

  it('one request: each item sees the values earlier items set; the changes are written together, each logged', async () => {
    const vc = await jwtWithStatus(['revocation', 'suspension'])
    const [revocation, suspension] = statusOf(vc.jwt).map((e) => ({
      statusListCredential: e.statusListCredential,
      statusListIndex: e.statusListIndex,
    }))
    const lists = h.storage.collection('status_lists')
    const versions = async () =>
      Promise.all([revocation, suspension].map(async (e) => (await lists.get(listIdOf(e.statusListCredential)))!.version as number))
    const [revocationVersion, suspensionVersion] = await versions()
    const res = await change([
      { ...suspension, purpose: 'suspension', value: true },
      { ...suspension, purpose: 'suspension', value: false },
      { ...revocation, purpose: 'revocation', value: true },
      { ...revocation, purpose: 'revocation', value: false },
      { ...suspension, purpose: 'suspension', value: false },
    ])
    expect(res.status).toBe(200)
    expect(res.body.items.map((i: any) => [i.index, i.entries[0].value, i.entries[0].changed])).toEqual([
      [0, true, true],
      [1, false, true],
      [2, true, true],
      [4, false, false],
    ])
    expect(res.body.errors.map((e: any) => [e.index, e.error.errorType])).toEqual([[3, 'VALIDATION_ERROR']])
    expect(res.body.errors[0].error.errorMessage).toContain('revocation is final')
    const entries = await h.storage.collection('status_entries').find({ field: 'credentialId', op: 'eq', value: vc.id })
    expect(Object.fromEntries(entries.items.map((e: any) => [e.purpose, e.value]))).toEqual({ revocation: true, suspension: false })
    expect(await versions()).toEqual([revocationVersion + 1, suspensionVersion + 2])
    for (const [entry, values] of [
      [revocation, [true]],
      [suspension, [false, true]],
    ] as const) {
      const log = await h.storage.collection('status_changes').find({
        and: [
          { field: 'listId', op: 'eq', value: listIdOf(entry.statusListCredential) },
          { field: 'index', op: 'eq', value: Number(entry.statusListIndex) },
        ],
      })
      expect(log.items.map((c: any) => c.value).sort()).toEqual(values)
    }
  })

  it('bad requests: missing, mistyped, extra fields, over the batch limit, no DID-auth — 422/403, nothing written', async () => {
    const before = await snapshot(h)
    expectError(await change([]), 422, 'VALIDATION_ERROR')
    expectError(await change([{ id: 'urn:x', purpose: 'revocation' }]), 422, 'VALIDATION_ERROR')
    expectError(await change([{ id: 'urn:x', purpose: 'revocation', value: 'yes' }]), 422, 'VALIDATION_ERROR')
    expectError(await change([{ id: 'urn:x', purpose: 'revocation', value: true, extra: 1 }]), 422, 'VALIDATION_ERROR')
    expectError(await change([{ id: 'urn:x', purpose: 'expiry', value: true }]), 422, 'VALIDATION_ERROR')
    const many = Array.from({ length: 1_001 }, () => ({ id: 'urn:x', purpose: 'revocation', value: true }))
    expectError(await change(many), 422, 'VALIDATION_ERROR')
    expectError(await h.request('POST', '/claims/status', { json: { items: [] } }), 403, 'UNAUTHENTICATED')
    expectError(await change([{ id: 'urn:x', purpose: 'revocation', value: true }], 'not-a-jwt'), 403, 'UNAUTHENTICATED')
    expect(await snapshot(h)).toEqual(before)
  })

  it('GET /status/:listId: 404 for an unknown list, 422 for a malformed id; a dirty list is signed on demand past the interval', async () => {
    expectError(await get('no-such-list'), 404, 'NOT_FOUND')
    expectError(await get('bad!id'), 422, 'VALIDATION_ERROR')
    const vc = await jwtWithStatus(['suspension'])
    const [entry] = statusOf(vc.jwt)
    const listId = listIdOf(entry.statusListCredential)
    const first = await get(listId)
    expect(first.status).toBe(200)
    await change([{ id: vc.id, purpose: 'suspension', value: true }])
    // Within the interval: the stored (older) list is served.
    const within = await get(listId)
    expect(within.headers.get('etag')).toBe(first.headers.get('etag'))
    clock += 61_000
    const past = await get(listId)
    expect(past.headers.get('etag')).not.toBe(first.headers.get('etag'))
    const subject = (decodeJWT(past.body as string).payload as any).vc.credentialSubject
    expect((await decodeList(subject.encodedList)).get(Number(entry.statusListIndex))).toBe(true)
  })
})

describe('issuing with status without publicUrl', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness()
  })
  afterAll(() => h?.close())

  it('is 422 naming the setting, nothing written', async () => {
    const issuer = await walletWithToken(h)
    const before = await snapshot(h)
    const res = await h.request('POST', '/claims/sign', {
      json: { iss: issuer.did, format: 'JWT', status: { purposes: ['revocation'] }, claims: [{ payload: { a: 1 } }] },
      didAuth: issuer.jwt,
    })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toContain('publicUrl')
    expect(await snapshot(h)).toEqual(before)
  })
})

/**
 * Status lists of an MPC issuer: its quorum signs them, so they are signed by the requests that
 * bring approvals — the credential signature that opens a list signs it at once, a status change
 * signs the list with its changes before writing them together —, never by the publisher or a GET.
 * Without the quorum nothing is changed, signed or written; the published list always shows
 * exactly the stored entries.
 */
import { decodeJWT } from 'did-jwt'
import { verifyCredential } from 'did-jwt-vc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import { decodeList } from '../../src/status/bitstring.js'
import { STATUS_ENTRIES, STATUS_LISTS } from '../../src/status/records.js'
import { collectionOf } from '../../src/storage/declaration.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { TENANT_A, expectError, snapshot, startHarness, walletWithToken, type Harness } from '../helpers/harness.js'
import { approvals, member, mpcVaultBody, type Member } from '../helpers/mpc.js'

const PUBLIC_URL = 'https://status.example.com'

let h: Harness
let members: Member[]
let issuer: { did: string }
let clock = Date.now()
const masterKey = randomMasterKey()

beforeAll(async () => {
  const service = { masterKey, publicUrl: PUBLIC_URL, statusPublishIntervalMs: 60_000, now: () => clock }
  h = await startHarness({ storage: 'sqlite', service })
  members = await Promise.all([member(), member(), member()])
  const created = await h.request('POST', '/vaults', { json: mpcVaultBody(members) })
  const vaultId = created.body.vault.id
  const init = await h.request('POST', `/vaults/${vaultId}/initialize`, { json: {}, didAuth: await approvals(members[0], members[1]) })
  expect(init.status, JSON.stringify(init.body)).toBe(200)
  const wallet = await h.request('POST', `/vaults/${vaultId}/wallet`, { json: {}, didAuth: await approvals(members[1], members[2]) })
  expect(wallet.status, JSON.stringify(wallet.body)).toBe(200)
  issuer = wallet.body.wallet
}, 120_000)
afterAll(() => h?.close())

const quorum = () => approvals(members[0], members[2])
const sign = async (didAuth: string, format = 'JWT') =>
  h.request('POST', '/claims/sign', {
    json: { iss: issuer.did, format, status: { purposes: ['revocation', 'suspension'] }, claims: [{ payload: { member: true } }] },
    didAuth,
  })
const change = async (items: unknown[], didAuth: string) => h.request('POST', '/claims/status', { json: { items }, didAuth })
const entriesOf = (jwt: string) =>
  [(decodeJWT(jwt).payload as { vc: { credentialStatus: unknown } }).vc.credentialStatus].flat() as Array<Record<string, string>>
const listIdOf = (url: string) => url.split('/').pop()!
/** The published list's bit at the entry, and the list credential as served. */
async function published(entry: Record<string, string>) {
  const res = await h.request('GET', `/status/${listIdOf(entry.statusListCredential)}`, { token: null })
  expect(res.status).toBe(200)
  const jwt = res.body as string
  const { credentialSubject } = (decodeJWT(jwt).payload as { vc: { credentialSubject: { encodedList: string } } }).vc
  return { jwt, etag: res.headers.get('etag')!, bit: (await decodeList(credentialSubject.encodedList)).get(Number(entry.statusListIndex)) }
}

describe('status lists of an MPC issuer', () => {
  it('issuing with status opens lists signed at once with the quorum of the request; they verify in did-jwt-vc', async () => {
    const signed = await sign(await quorum())
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const entries = entriesOf(signed.body.vcs[0].jwt)
    expect(entries.map((e) => e.statusPurpose)).toEqual(['revocation', 'suspension'])
    for (const entry of entries) {
      const list = await published(entry)
      expect(list.bit).toBe(false)
      await expect(verifyCredential(list.jwt, h.service.resolver)).resolves.toMatchObject({ verified: true, issuer: issuer.did })
    }
  })

  it('without the quorum, issuing with status is 403 naming the missing approvals, nothing written', async () => {
    const before = await snapshot(h)
    const refused = await sign(await approvals(members[1]))
    expectError(refused, 403, 'FORBIDDEN')
    expect(refused.body.errorMessage).toMatch(/1 more approval/)
    expect(await snapshot(h)).toEqual(before)
  })

  it('a change with the quorum is signed before it is written and published at once, in the same state as the entries', async () => {
    const vc = (await sign(await quorum())).body.vcs[0]
    const [revocation, suspension] = entriesOf(vc.jwt)
    const before = await published(suspension)
    const suspended = await change([{ id: vc.id, purpose: 'suspension', value: true }], await quorum())
    expect(suspended.status, JSON.stringify(suspended.body)).toBe(200)
    expect(suspended.body.errors).toEqual([])
    // No publication interval to wait for, no GET signs it: the stored list already reflects the change.
    const after = await published(suspension)
    expect(after.bit).toBe(true)
    expect(after.etag).not.toBe(before.etag)
    await expect(verifyCredential(after.jwt, h.service.resolver)).resolves.toMatchObject({ verified: true })
    // Verification reads the list: suspended.
    const verified = await h.request('POST', '/claims/verify', {
      json: { claims: [{ jwt: vc.jwt }] },
      didAuth: await approvals(members[0]),
    })
    expect(verified.body.vcs[0].verified).toBe(false)
    expect(JSON.stringify(verified.body.vcs[0].checks)).toContain('suspension')

    const revoked = await change(
      [
        { id: vc.id, purpose: 'suspension', value: false },
        { id: vc.id, purpose: 'revocation', value: true },
      ],
      await quorum(),
    )
    expect(revoked.body.errors).toEqual([])
    expect((await published(suspension)).bit).toBe(false)
    expect((await published(revocation)).bit).toBe(true)
  })

  it('a change without the quorum — one member, an outsider, an outsider beside one member — is 403 per item, nothing written', async () => {
    const vc = (await sign(await quorum())).body.vcs[0]
    const [, suspension] = entriesOf(vc.jwt)
    const outsider = await walletWithToken(h)
    const listBefore = await published(suspension)
    const before = await snapshot(h)
    for (const didAuth of [await approvals(members[1]), outsider.jwt, `${await approvals(members[0])},${outsider.jwt}`]) {
      const { statusListCredential, statusListIndex } = suspension
      const items = [
        { statusListCredential, statusListIndex, purpose: 'suspension', value: true },
        { id: vc.id, purpose: 'suspension', value: true },
      ]
      const res = await change(items, didAuth)
      expect(res.status).toBe(200)
      expect(res.body.items).toEqual([])
      expect(res.body.errors).toHaveLength(2)
      expect(res.body.errors[0]).toMatchObject({ index: 0, error: { statusCode: 403, errorType: 'FORBIDDEN' } })
      // By `id`: resolved among the credentials whose status this request may change — none (issue 28, finding 6).
      expect(res.body.errors[1]).toMatchObject({ index: 1, error: { statusCode: 422, errorType: 'NOT_FOUND' } })
    }
    expect(await snapshot(h)).toEqual(before)
    const listAfter = await published(suspension)
    expect(listAfter.etag).toBe(listBefore.etag)
    expect(listAfter.bit).toBe(false)
  })

  it('GET never signs an MPC issuer’s list: past the interval it serves the stored signature', async () => {
    const vc = (await sign(await quorum())).body.vcs[0]
    const [, suspension] = entriesOf(vc.jwt)
    const first = await published(suspension)
    clock += 120_000
    const again = await published(suspension)
    expect(again.etag).toBe(first.etag)
    expect(again.jwt).toBe(first.jwt)
  })

  it('concurrent quorum changes of one list all land in the signed list (each re-signed when another committed first)', async () => {
    const vcs = await Promise.all([0, 1, 2, 3].map(async () => (await sign(await quorum())).body.vcs[0]))
    const results = await Promise.all(vcs.map(async (vc) => change([{ id: vc.id, purpose: 'suspension', value: true }], await quorum())))
    for (const res of results) expect(res.body.errors, JSON.stringify(res.body)).toEqual([])
    for (const vc of vcs) expect((await published(entriesOf(vc.jwt)[1])).bit).toBe(true)
  })

  it('JSON-LD credentials of an MPC issuer get a signed JSON-LD list too', async () => {
    const res = await h.request('POST', '/claims/sign', {
      json: {
        iss: issuer.did,
        context: 'https://www.w3.org/ns/credentials/v2',
        status: { purposes: ['revocation'] },
        claims: [{ id: 'urn:uuid:7d0c1a2e-0000-4000-8000-000000000009', payload: { name: 'x' } }],
      },
      didAuth: await quorum(),
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const url = res.body.vcs[0].jsonld.credentialStatus.statusListCredential as string
    const list = await h.request('GET', `/status/${listIdOf(url)}`, { token: null })
    expect(list.status).toBe(200)
    const verified = await h.request('POST', '/claims/verify', {
      json: { claims: [{ jsonld: list.body }] },
      didAuth: await approvals(members[0]),
    })
    expect(verified.body.vcs[0]).toMatchObject({ verified: true, issuer: issuer.did })
  })

  it('a change another process commits between this change’s signature and its write makes it sign again: the list shows both', async () => {
    const [mine, theirs] = await Promise.all([0, 1].map(async () => (await sign(await quorum())).body.vcs[0]))
    const [, myEntry] = entriesOf(mine.jwt)
    const [, theirEntry] = entriesOf(theirs.jwt)
    expect(theirEntry.statusListCredential).toBe(myEntry.statusListCredential)
    // A second instance on the same file, whose first transaction is preceded by another process's commit of the same list.
    let interfere: (() => Promise<void>) | undefined = async () => {
      const entry = await collectionOf(h.storage, STATUS_ENTRIES).findOne({
        and: [
          { field: 'listId', op: 'eq', value: listIdOf(theirEntry.statusListCredential) },
          { field: 'index', op: 'eq', value: Number(theirEntry.statusListIndex) },
        ],
      })
      await collectionOf(h.storage, STATUS_ENTRIES).update(entry!.id, { value: true })
      await collectionOf(h.storage, STATUS_LISTS).increment(listIdOf(theirEntry.statusListCredential), 'version', 1)
    }
    const raw = createSqliteStorage({ path: h.dbPath! })
    const storage = new Proxy(raw, {
      get(target, property, receiver) {
        if (property === 'transaction')
          return async (fn: Parameters<StorageAdapter['transaction']>[0]) => {
            const before = interfere
            interfere = undefined
            await before?.()
            return target.transaction(fn)
          }
        const value: unknown = Reflect.get(target, property, receiver)
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
      },
    })
    const second = await IdentityService.create({
      storage,
      masterKey,
      tenants: staticTenants({ [TENANT_A]: 'tenant-a' }),
      publicUrl: PUBLIC_URL,
      statusPublishIntervalMs: 60_000,
    })
    try {
      const result = await second
        .as({ authorization: `Bearer ${TENANT_A}`, didAuth: await quorum() })
        .changeStatus({ items: [{ id: mine.id, purpose: 'suspension', value: true }] })
      expect(result.errors).toEqual([])
      expect(interfere).toBeUndefined()
    } finally {
      await second.close()
    }
    expect((await published(myEntry)).bit).toBe(true)
    expect((await published(theirEntry)).bit).toBe(true)
  })
})

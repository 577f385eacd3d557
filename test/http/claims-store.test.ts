/**
 * Store, Fetch and Delete Verifiable Credentials through the router (memory and SQLite): `POST /claims`,
 * `GET /claims`, `DELETE /claims` (Access Token JWT). Read access is computed by the query (the
 * read rule compiled to a storage filter); a test checks Fetch, filters included, against the
 * same rule compiled to the decision `canReadCredential` over each credential's own facts. The
 * two compilations are held together for generated callers and credentials in
 * test/credentials/read-rule.property.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CallerFacts } from '../../src/roles/caller-facts.js'
import { credentialDidFacts } from '../../src/credentials/facts.js'
import { canReadCredential } from '../../src/credentials/policy.js'
import { readerFactsAbout } from '../../src/credentials/reader-facts.js'
import type { CredentialRecord } from '../../src/credentials/records.js'
import { generatePrivateKey } from '../../src/keys/secp256k1.js'
import {
  expectError,
  snapshot,
  startHarness,
  TENANT_A,
  TENANT_B,
  tokenFor,
  walletWithToken,
  type Harness,
  REAL_STORAGES,
} from '../helpers/harness.js'
import { mintToken } from '../helpers/tokens.js'

/** A context that defines every term (`@vocab`), so test payloads pass JSON-LD safe mode. */
const VOCAB_URL = 'https://example.com/contexts/vocab/v1'
const VOCAB = { '@context': { '@version': 1.1, '@vocab': 'https://example.com/vocab#' } }

describe.each(REAL_STORAGES)('%s', (storage) => {
  let h: Harness
  let issuer: { did: string; _id: string; jwt: string }
  let subject: { did: string; _id: string; jwt: string }
  let stranger: { did: string; _id: string; jwt: string }
  let holder: { did: string; _id: string; jwt: string }
  let heir: { did: string; _id: string; jwt: string }
  beforeAll(async () => {
    h = await startHarness({ storage, service: { contexts: { [VOCAB_URL]: VOCAB } } })
    issuer = await walletWithToken(h)
    subject = await walletWithToken(h)
    stranger = await walletWithToken(h)
    holder = await walletWithToken(h)
    heir = await walletWithToken(h)
  })
  afterAll(() => h?.close())

  const store = (json: unknown, didAuth = issuer.jwt, token?: string) => h.request('POST', '/claims', { json, didAuth, token })
  const fetchAs = (query: string, didAuth: string) => h.request('GET', `/claims${query}`, { didAuth })
  const remove = (ids: string[], accessToken: string) => h.request('DELETE', '/claims', { json: { ids }, token: accessToken })

  /** A DELETE /claims whose every item is refused with `errorType`: a 200 of errors only, and nothing written anywhere. */
  async function expectDeleteRefused(ids: string[], accessToken: string, errorType: 'FORBIDDEN' | 'NOT_FOUND') {
    const before = await snapshot(h)
    const res = await remove(ids, accessToken)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.vcs).toEqual([])
    const error = { statusCode: errorType === 'FORBIDDEN' ? 403 : 422, errorType, errorMessage: expect.any(String) }
    expect(res.body.errors).toEqual(ids.map((_id) => ({ _id, error })))
    expect(await snapshot(h)).toEqual(before)
  }

  /** Every record of a collection, by id. */
  async function recordsOf(collection: string): Promise<Map<string, unknown>> {
    const page = await h.storage.collection(collection).find({ and: [] }, { limit: 1_000 })
    expect(page.nextCursor).toBeUndefined()
    return new Map(page.items.map((record) => [record.id, record]))
  }

  async function signed(format: 'JSON-LD' | 'JWT', payload: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const res = await h.request('POST', '/claims/sign', {
      json: {
        iss: issuer.did,
        sub: subject.did,
        format,
        ...(format === 'JSON-LD' && { context: VOCAB_URL }),
        type: 'ExampleCredential',
        claims: [{ payload, ...extra }],
      },
      didAuth: issuer.jwt,
    })
    if (res.status !== 200) throw new Error(JSON.stringify(res.body))
    return res.body.vcs[0] as { id: string; jsonld?: Record<string, unknown>; jwt?: string }
  }

  describe('POST /claims', () => {
    it('stores JSON-LD and JWT credentials with their index fields; bad items are per-item errors; re-storing returns the same record', async () => {
      const ld = await signed('JSON-LD', { a: 1 })
      const jwt = await signed('JWT', { b: 2 })
      const res = await store({
        claims: [
          { jsonld: ld.jsonld },
          { jwt: jwt.jwt, isPublicAccess: true },
          { jsonld: { type: ['VerifiableCredential'] } },
          { jwt: 'not.a.jwt' },
        ],
      })
      expect(res.status).toBe(200)
      expect(res.body.resolver).toBe('default')
      expect(res.body.vcs).toHaveLength(2)
      expect(res.body.errors.map((e: any) => [e.claim, e.error.statusCode, e.error.errorType])).toEqual([
        [2, 422, 'VALIDATION_ERROR'],
        [3, 422, 'VALIDATION_ERROR'],
      ])
      const [a, b] = res.body.vcs
      expect(a).toMatchObject({
        id: ld.id,
        jsonld: ld.jsonld,
        isPublicAccess: false,
        roles: [],
        issuer: issuer.did,
        subject: subject.did,
        storedBy: [issuer.did],
        type: ['VerifiableCredential', 'ExampleCredential'],
      })
      expect(b).toMatchObject({ id: jwt.id, jwt: jwt.jwt, isPublicAccess: true, issuer: issuer.did, subject: subject.did })

      const before = await snapshot(h)
      const again = await store({ claims: [{ jsonld: { ...ld.jsonld } }, { jwt: jwt.jwt }] })
      expect(again.body.vcs.map((v: any) => v._id)).toEqual([a._id, b._id])
      // Keys in another order: the same content.
      const reordered = Object.fromEntries(Object.entries(ld.jsonld!).reverse())
      expect((await store({ claims: [{ jsonld: reordered }] })).body.vcs[0]._id).toBe(a._id)
      expect(await snapshot(h)).toEqual(before)
    })

    it('the same new content twice in one batch is one record', async () => {
      const ld = await signed('JSON-LD', { twice: true })
      const res = await store({ claims: [{ jsonld: ld.jsonld }, { jsonld: ld.jsonld }] })
      expect(res.body.vcs).toHaveLength(2)
      expect(res.body.vcs[0]._id).toBe(res.body.vcs[1]._id)
      expect(await h.storage.collection('credentials').count({ field: 'vcId', op: 'eq', value: ld.id })).toBe(1)
    })

    it('verify: true makes an invalid credential an element of errors; a valid one is stored', async () => {
      const ld = await signed('JSON-LD', { c: 3 })
      const tampered = { ...ld.jsonld, credentialSubject: { id: subject.did, c: 4 } }
      const res = await store({ verify: true, claims: [{ jsonld: tampered }, { jsonld: ld.jsonld }] })
      expect(res.status).toBe(200)
      expect(res.body.errors).toHaveLength(1)
      expect(res.body.errors[0]).toMatchObject({ claim: 0, error: { statusCode: 422, errorType: 'VALIDATION_ERROR' } })
      expect(res.body.vcs).toHaveLength(1)
    })

    it('refuses, writing nothing: unknown roles, roles of another tenant, roles the caller does not manage, bad input', async () => {
      const ld = await signed('JSON-LD', { d: 4 })
      const role = await h.request('POST', '/roles', { json: { description: 'Readers', permissions: ['Read'] }, didAuth: issuer.jwt })
      expect(role.status).toBe(200)
      const b = await walletWithToken(h, TENANT_B)
      const before = await snapshot(h)
      expectError(
        await store({ roles: ['did:ethr:dev:0x000000000000000000000000000000000000dEaD'], claims: [{ jsonld: ld.jsonld }] }),
        422,
        'NOT_FOUND',
      )
      expectError(await store({ claims: [{ jsonld: ld.jsonld, roles: [role.body.role.did] }] }, stranger.jwt), 403, 'FORBIDDEN')
      expectError(await store({ roles: [role.body.role.did], claims: [{ jsonld: ld.jsonld }] }, b.jwt, TENANT_B), 422, 'NOT_FOUND')
      expectError(await store({ claims: [] }), 422, 'VALIDATION_ERROR')
      expectError(await store({ claims: [{ jsonld: ld.jsonld, jwt: 'x.y.z' }] }), 422, 'VALIDATION_ERROR')
      expectError(await store({ claims: [{ jsonld: ld.jsonld }] }, undefined, 'nope'), 403, 'UNAUTHENTICATED')
      expect(await snapshot(h)).toEqual(before)
    })
  })

  describe('GET /claims', () => {
    let roleDid: string
    let viaRole: { _id: string; id: string }
    beforeAll(async () => {
      const role = await h.request('POST', '/roles', { json: { description: 'Auditors', permissions: ['Read'] }, didAuth: issuer.jwt })
      roleDid = role.body.role.did
      const assigned = await h.request('POST', '/roles/assignmnets', {
        json: { assignments: [{ role: roleDid, did: holder.did }] },
        didAuth: issuer.jwt,
      })
      expect(assigned.body.errors).toEqual([])
      const ld = await signed('JSON-LD', { audited: true })
      const res = await store({ roles: [roleDid], claims: [{ jsonld: ld.jsonld }] })
      viaRole = res.body.vcs[0]
    })

    const ids = (res: { body: { vcs: Array<{ _id: string }> } }) => res.body.vcs.map((v) => v._id)

    it('returns only what the caller may read: issuer and subject all, a stranger the public ones, a role holder those of its role', async () => {
      const all = await fetchAs('', issuer.jwt)
      expect(all.status).toBe(200)
      expect(all.body.vcs.length).toBeGreaterThanOrEqual(4)
      expect(ids(await fetchAs('', subject.jwt)).sort()).toEqual(ids(all).sort())
      const publicOnly = await fetchAs('', stranger.jwt)
      expect(publicOnly.body.vcs.length).toBeGreaterThan(0)
      expect(publicOnly.body.vcs.every((v: any) => v.isPublicAccess)).toBe(true)
      const held = ids(await fetchAs('', holder.jwt))
      expect(held).toContain(viaRole._id)
      expect(ids(await fetchAs('', stranger.jwt))).not.toContain(viaRole._id)
      // The role reaches the record through its own `roles`: the issuer holds no key of the claim
      // DID (it owns itself), so the role does not govern that DID — no assignment to it.
      const assignments = await h.request('GET', `/roles/assignmnets?role=${roleDid}`, { didAuth: issuer.jwt })
      expect(assignments.body.assignments.map((a: any) => a.did)).toEqual([holder.did])
    })

    it('filters subject, issuer, ids, type; pages with nextCursor, never truncating silently', async () => {
      const all = ids(await fetchAs('', issuer.jwt))
      expect(ids(await fetchAs(`?issuer=${issuer.did}`, issuer.jwt))).toEqual(all)
      expect(ids(await fetchAs(`?subject=${stranger.did}`, issuer.jwt))).toEqual([])
      expect(ids(await fetchAs(`?ids=${viaRole.id}`, issuer.jwt))).toEqual([viaRole._id])
      expect(ids(await fetchAs('?type=ExampleCredential', issuer.jwt))).toEqual(all)
      expect(ids(await fetchAs('?type=Other', issuer.jwt))).toEqual([])
      const first = await fetchAs('?limit=2', issuer.jwt)
      expect(first.body.vcs).toHaveLength(2)
      expect(first.body.nextCursor).toEqual(expect.any(String))
      const pages = [...ids(first)]
      let cursor = first.body.nextCursor
      while (cursor) {
        const next = await fetchAs(`?limit=2&cursor=${encodeURIComponent(cursor)}`, issuer.jwt)
        pages.push(...ids(next))
        cursor = next.body.nextCursor
      }
      expect(pages).toEqual(all)
      expectError(await fetchAs('?cursor=garbage', issuer.jwt), 422, 'VALIDATION_ERROR')
      expectError(await fetchAs('?issuer=nope', issuer.jwt), 422, 'VALIDATION_ERROR')
      expectError(await fetchAs('?resolver=unknown', issuer.jwt), 422, 'VALIDATION_ERROR')
    })

    it('another tenant sees none of them', async () => {
      const b = await walletWithToken(h, TENANT_B)
      const res = await h.request('GET', '/claims', { didAuth: b.jwt, token: TENANT_B })
      expect(res.status).toBe(200)
      expect(res.body.vcs).toEqual([])
    })

    it('a credential whose DID was handed to a caller’s key is listed for that caller (the owner ground)', async () => {
      // A claim DID whose walletConfig hands it to the heir: neither issuer, subject nor storer.
      const ld = await signed('JSON-LD', { h: 8 }, { walletConfig: { txsInput: [{ newOwner: heir.did }] } })
      const stored = (await store({ claims: [{ jsonld: ld.jsonld }] })).body.vcs[0]
      const doc = (await h.service.resolveDid({ did: ld.id })).didDocument!
      expect(doc.verificationMethod!.find((m) => m.id.endsWith('#controller'))!.blockchainAccountId).toContain(heir.did.split(':').pop()!)
      expect(ids(await fetchAs('', heir.jwt))).toContain(stored._id)
      expect(ids(await fetchAs(`?ids=${ld.id}`, heir.jwt))).toEqual([stored._id])
      expect(ids(await fetchAs('', stranger.jwt))).not.toContain(stored._id)
    })

    it('Fetch and the decision canReadCredential agree, for every caller and credential', async () => {
      const facts = new CallerFacts(h.service.resolver, h.storage)
      const ctx = { callers: facts, storage: h.storage }
      const records = (
        await h.storage
          .collection<CredentialRecord>('credentials')
          .find({ field: 'tenantId', op: 'eq', value: 'tenant-a' }, { limit: 1000 })
      ).items
      expect(records.some((r) => r.issuer === issuer.did) && records.some((r) => r.subject === subject.did)).toBe(true)
      for (const who of [issuer, subject, stranger, holder, heir]) {
        const caller = { tenantId: 'tenant-a', dids: [who.did], addresses: [who.did.split(':').pop()!] }
        const holding = await facts.holding(caller)
        const expected: string[] = []
        for (const r of records) {
          const did = r.did === undefined ? undefined : await credentialDidFacts(ctx, r.tenantId, r.did)
          if (canReadCredential(readerFactsAbout(holding, did), r)) expected.push(r.id)
        }
        expect(ids(await fetchAs('', who.jwt)).sort()).toEqual(expected.sort())
        // By issuer and by subject, the caller's own DID (the `or` left out: its ground holds) and the others'.
        for (const named of [issuer, subject, stranger, holder]) {
          for (const field of ['issuer', 'subject'] as const) {
            const matching = records.filter((r) => r[field] === named.did && expected.includes(r.id)).map((r) => r.id)
            expect(ids(await fetchAs(`?${field}=${named.did}`, who.jwt)).sort()).toEqual(matching.sort())
          }
        }
      }
    })

    it('a stored credential’s DID is a role-assignment target for whoever has rights over it', async () => {
      const { did: ownedId, jwt: ownerJwt } = await mintToken({ signerKey: generatePrivateKey() })
      const ld = await signed('JSON-LD', { e: 5 }, { id: ownedId })
      expect((await store({ claims: [{ jsonld: ld.jsonld }] })).status).toBe(200)
      // The role's manager alone has no rights over that DID: the item is refused, nothing written.
      const before = await snapshot(h)
      const refused = await h.request('POST', '/roles/assignmnets', {
        json: { assignments: [{ role: roleDid, did: ownedId }] },
        didAuth: issuer.jwt,
      })
      expect(refused.status).toBe(200)
      expect(refused.body.errors).toEqual([
        { assignment: { role: roleDid, did: ownedId }, error: expect.objectContaining({ statusCode: 403, errorType: 'FORBIDDEN' }) },
      ])
      expect(await snapshot(h)).toEqual(before)
      expect(ids(await fetchAs(`?ids=${ownedId}`, holder.jwt))).toEqual([])
      // With the DID's owner key as well (its token beside the manager's): granted, governing the DID.
      const res = await h.request('POST', '/roles/assignmnets', {
        json: { assignments: [{ role: roleDid, did: ownedId }] },
        didAuth: `${issuer.jwt},${ownerJwt}`,
      })
      expect(res.body.errors).toEqual([])
      expect(res.body.assignments).toEqual([expect.objectContaining({ role: roleDid, did: ownedId, governsCredentials: true })])
      expect(ids(await fetchAs(`?ids=${ownedId}`, holder.jwt))).toHaveLength(1)
    })
  })

  describe('DELETE /claims', () => {
    it('deletes what the rule allows, removing its role assignments and nothing else; others are per-item errors', async () => {
      const role = await h.request('POST', '/roles', { json: { description: 'Writers', permissions: ['Write'] }, didAuth: issuer.jwt })
      const ld = await signed('JSON-LD', { f: 6 })
      const kept = await signed('JSON-LD', { g: 7 })
      // Stored by the issuer holding the claim DIDs' keys too: the role governs both DIDs.
      const owners = `${issuer.jwt},${await tokenFor(h, ld.id)},${await tokenFor(h, kept.id)}`
      const stored = await store({ roles: [role.body.role.did], claims: [{ jsonld: ld.jsonld }, { jsonld: kept.jsonld }] }, owners)
      const [target, other] = stored.body.vcs
      const keptBefore = await h.storage.collection('credentials').get(other._id)

      // A stranger: neither owner, nor role holder, nor storer.
      await expectDeleteRefused([target._id], stranger.jwt, 'FORBIDDEN')

      const before = await snapshot(h)
      const [credentialsBefore, assignmentsBefore] = [await recordsOf('credentials'), await recordsOf('roleAssignments')]
      const targetAssignments = [...assignmentsBefore.values()].filter((a) => (a as { did: string }).did === target.id)
      expect(targetAssignments).toHaveLength(1)
      // The storer, on a credential whose claim DID owns itself (exception b); an unknown id is NOT_FOUND.
      const res = await remove([target._id, 'no-such-id'], issuer.jwt)
      expect(res.status).toBe(200)
      expect(res.body.vcs.map((v: { _id: string }) => v._id)).toEqual([target._id])
      const notFound = { statusCode: 422, errorType: 'NOT_FOUND', errorMessage: expect.any(String) }
      expect(res.body.errors).toEqual([{ _id: 'no-such-id', error: notFound }])
      // Exactly the credential and its role assignments are gone; every other record of every collection is unchanged.
      const after = await snapshot(h)
      for (const name of Object.keys(before))
        if (name !== 'credentials' && name !== 'roleAssignments') expect(after[name], name).toBe(before[name])
      credentialsBefore.delete(target._id)
      expect(await recordsOf('credentials')).toEqual(credentialsBefore)
      for (const removed of targetAssignments) assignmentsBefore.delete((removed as { id: string }).id)
      expect(await recordsOf('roleAssignments')).toEqual(assignmentsBefore)
      expect(await h.storage.collection('credentials').get(other._id)).toEqual(keptBefore)

      // Deleting again: NOT_FOUND, nothing written; another tenant's Access Token: NOT_FOUND.
      const b = await walletWithToken(h, TENANT_B)
      await expectDeleteRefused([target._id], issuer.jwt, 'NOT_FOUND')
      await expectDeleteRefused([other._id], b.jwt, 'NOT_FOUND')
      const snap = await snapshot(h)
      expectError(await remove([other._id], 'garbage'), 403, 'UNAUTHENTICATED')
      expectError(await h.request('DELETE', '/claims', { json: { ids: [] }, token: issuer.jwt }), 422, 'VALIDATION_ERROR')
      expect(await snapshot(h)).toEqual(snap)
    })

    it('a holder of a Write role assigned to the credential may delete it; a Read role is not enough', async () => {
      const writers = await h.request('POST', '/roles', { json: { description: 'W', permissions: ['Write'] }, didAuth: issuer.jwt })
      const readers = await h.request('POST', '/roles', { json: { description: 'R', permissions: ['Read'] }, didAuth: issuer.jwt })
      await h.request('POST', '/roles/assignmnets', {
        json: { assignments: [{ role: writers.body.role.did, did: holder.did }] },
        didAuth: issuer.jwt,
      })
      await h.request('POST', '/roles/assignmnets', {
        json: { assignments: [{ role: readers.body.role.did, did: stranger.did }] },
        didAuth: issuer.jwt,
      })
      const ld = await signed('JSON-LD', { h: 8 })
      const stored = await store({ roles: [writers.body.role.did, readers.body.role.did], claims: [{ jsonld: ld.jsonld }] })
      const id = stored.body.vcs[0]._id
      await expectDeleteRefused([id], stranger.jwt, 'FORBIDDEN')
      expect((await remove([id], holder.jwt)).body.vcs.map((v: { _id: string }) => v._id)).toEqual([id])
    })
  })

  describe('deletion rule: the owner of the credential’s DID, and the two exceptions', () => {
    it('a DID handed to the subject (not self-owned): the storer may not delete, the owner may; a credential without DID: its storer may', async () => {
      const handed = await signed('JSON-LD', { i: 9 }, { walletConfig: { txsInput: [{ newOwner: subject.did }] } })
      const urn = await signed('JSON-LD', { j: 10 }, { id: 'urn:uuid:5b0f4a8e-2f51-4a8e-9c1e-3f3b3a2f0e01' })
      const res = await store({ claims: [{ jsonld: handed.jsonld }, { jsonld: urn.jsonld }] })
      const [a, b] = res.body.vcs
      expect(b.id).toBe('urn:uuid:5b0f4a8e-2f51-4a8e-9c1e-3f3b3a2f0e01')
      await expectDeleteRefused([a._id], issuer.jwt, 'FORBIDDEN')
      await expectDeleteRefused([b._id], stranger.jwt, 'FORBIDDEN')
      const byStorer = await remove([b._id], issuer.jwt)
      expect(byStorer.body.vcs.map((v: any) => v._id)).toEqual([b._id])
      const done = await remove([a._id, b._id], subject.jwt)
      expect(done.body.vcs.map((v: any) => v._id)).toEqual([a._id])
      expect(done.body.errors[0]).toMatchObject({ _id: b._id, error: { errorType: 'NOT_FOUND' } })
    })

    it('the owner of the credential’s DID (a claim DID’s own key) deletes a credential someone else stored', async () => {
      const ld = await signed('JSON-LD', { k: 11 })
      const stored = await store({ claims: [{ jsonld: ld.jsonld }] })
      const owner = await tokenFor(h, ld.id)
      expect((await remove([stored.body.vcs[0]._id], owner)).body.vcs).toHaveLength(1)
    })
  })

  describe('embedded API', () => {
    it('stores, fetches and deletes with the same semantics as the router', async () => {
      const api = h.service.as({ authorization: TENANT_A, didAuth: issuer.jwt })
      const ld = await signed('JSON-LD', { l: 12 })
      const stored = await api.storeClaims({ claims: [{ jsonld: ld.jsonld! }] })
      expect(stored.vcs[0].id).toBe(ld.id)
      const fetched = await api.getClaims({ ids: [ld.id] })
      expect(fetched.vcs.map((v) => v._id)).toEqual([stored.vcs[0]._id])
      await expect(api.storeClaims({ resolver: 'nowhere', claims: [{ jsonld: ld.jsonld! }] })).rejects.toMatchObject({ statusCode: 422 })
      const deleted = await h.service.as({ authorization: `Bearer ${issuer.jwt}` }).deleteClaims({ ids: [stored.vcs[0]._id] })
      expect(deleted.vcs).toHaveLength(1)
    })
  })
})

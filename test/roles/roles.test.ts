/**
 * Roles and role assignments through the real router, on memory and SQLite: create (a role
 * wallet, walletConfig on the role DID's document), get (visibility, `permissions` filter,
 * paging), update, delete (with assignments and wallet), assign / unassign (Access Token
 * JWT, both path spellings, idempotent) and the assignment listing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, snapshot, startHarness, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'

for (const storage of ['memory', 'sqlite'] as const) {
  describe(`roles (${storage})`, () => {
    let h: Harness
    /** The creator of the roles, an assignee, a bystander. */
    let creator: { did: string; jwt: string }
    let holder: { did: string; jwt: string }
    let other: { did: string; jwt: string }

    const createRole = (json: unknown, didAuth = creator.jwt) => h.request('POST', '/roles', { json, didAuth })
    const assign = (assignments: unknown[], didAuth = creator.jwt, path = '/roles/assignmnets') =>
      h.request('POST', path, { json: { assignments }, didAuth })
    const unassign = (assignments: unknown[], accessToken: string, path = '/roles/assignmnets') =>
      h.request('DELETE', path, { json: { assignments }, token: accessToken })
    const roleDids = (res: { body: { roles: Array<{ did: string }> } }) => res.body.roles.map((r) => r.did)

    beforeAll(async () => {
      h = await startHarness({ storage })
      creator = await walletWithToken(h)
      holder = await walletWithToken(h)
      other = await walletWithToken(h)
    })
    afterAll(() => h.close())

    it('Create Role: a role backed by a new wallet; permissions case-insensitive in, canonical out; creator is the caller', async () => {
      const res = await createRole({
        description: 'Auditors',
        permissions: ['write', 'READ', 'Read'],
        wallet: { alias: `auditors-${storage}` },
      })
      expect(res.status).toBe(200)
      const role = res.body.role
      expect(Object.keys(role).sort()).toEqual(['_id', 'createdAt', 'creator', 'description', 'did', 'permissions', 'updatedAt'])
      expect(role).toMatchObject({ creator: creator.did, permissions: ['Read', 'Write'], description: 'Auditors' })
      expect(role.did).toMatch(/^did:ethr:dev:0x[0-9a-fA-F]{40}$/)
      expect(role.createdAt).toBe(role.updatedAt)
      expect(Math.abs(role.createdAt - Date.now())).toBeLessThan(60_000)
      // The role DID is a wallet of the tenant, listed like any wallet, with role: true
      const wallets = await h.request('GET', `/wallets?did=${encodeURIComponent(role.did)}`)
      expect(wallets.body.wallets).toEqual([
        expect.objectContaining({ did: role.did, alias: `auditors-${storage}`, role: true, isHDWallet: false }),
      ])
      expect(wallets.body.wallets[0].vaultId).toBeUndefined()
      // defaults: empty description, no permissions, alias = DID
      const bare = await createRole({})
      expect(bare.body.role).toMatchObject({ description: '', permissions: [] })
      expect((await h.request('GET', `/wallets?did=${encodeURIComponent(bare.body.role.did)}`)).body.wallets[0].alias).toBe(
        bare.body.role.did,
      )
    })

    it('Create Role applies walletConfig to the role DID’s document through the registry', async () => {
      const res = await createRole({
        permissions: ['Read'],
        walletConfig: {
          apiUrl: 'local',
          txsInput: [{ service: { name: 'RoleHub', value: 'https://roles.example.com', validity: 3_600_000 } }],
        },
      })
      expect(res.status).toBe(200)
      expect(res.body.role.registry).toMatchObject({
        apiUrl: 'local',
        errors: [],
        transactions: [expect.objectContaining({ index: 0, op: 'setAttribute' })],
      })
      const doc = (await h.request('GET', `/1.0/identifiers/${encodeURIComponent(res.body.role.did)}`, { token: null })).body.didDocument
      expect(doc.service).toEqual([expect.objectContaining({ type: 'RoleHub', serviceEndpoint: 'https://roles.example.com' })])
    })

    it('a newOwner in walletConfig hands the role DID to that DID: its key manages the role, the role wallet’s own key no longer does', async () => {
      const res = await createRole({ permissions: ['Read'], walletConfig: { txsInput: [{ newOwner: other.did }] } })
      expect(res.body.role.registry.errors).toEqual([])
      const role = res.body.role.did
      // the other wallet's own token (its key now owns the role DID) may update the role
      const updated = await h.request('PUT', '/roles', { json: { did: role, description: 'moved' }, didAuth: other.jwt })
      expect(updated.body).toMatchObject({ roles: [{ did: role, description: 'moved' }], errors: [] })
    })

    it('Get Roles: the roles the caller created, owns or holds; others are not listed', async () => {
      const a = (await createRole({ permissions: ['Read'] })).body.role.did
      const b = (await createRole({ permissions: ['Write'] })).body.role.did
      const mine = (await createRole({ permissions: ['Read'] }, other.jwt)).body.role.did
      expect((await assign([{ role: a, did: holder.did }])).body.errors).toEqual([])
      const byCreator = roleDids(await h.request('GET', '/roles', { didAuth: creator.jwt }))
      expect(byCreator).toEqual(expect.arrayContaining([a, b]))
      expect(byCreator).not.toContain(mine)
      expect(roleDids(await h.request('GET', '/roles', { didAuth: holder.jwt }))).toEqual([a])
      // the role DID's own token (the service holds its key: it owns the DID)
      expect(roleDids(await h.request('GET', '/roles', { didAuth: await tokenFor(h, b) }))).toEqual([b])
      // several tokens: the union
      expect(roleDids(await h.request('GET', '/roles', { didAuth: `${holder.jwt},${other.jwt}` }))).toEqual(
        expect.arrayContaining([a, mine]),
      )
    })

    it('Get Roles filters by permissions (case-insensitive; Write implies Read) and pages', async () => {
      const c = await walletWithToken(h)
      const read = (await createRole({ permissions: ['Read'] }, c.jwt)).body.role.did
      const write = (await createRole({ permissions: ['Write'] }, c.jwt)).body.role.did
      const none = (await createRole({}, c.jwt)).body.role.did
      expect(roleDids(await h.request('GET', '/roles', { didAuth: c.jwt }))).toEqual([read, write, none])
      expect(roleDids(await h.request('GET', '/roles?permissions=read', { didAuth: c.jwt }))).toEqual([read, write])
      expect(roleDids(await h.request('GET', '/roles?permissions=Write', { didAuth: c.jwt }))).toEqual([write])
      expect(roleDids(await h.request('GET', '/roles?permissions=Read,WRITE', { didAuth: c.jwt }))).toEqual([write])
      const first = await h.request('GET', '/roles?limit=2', { didAuth: c.jwt })
      expect(roleDids(first)).toEqual([read, write])
      const second = await h.request('GET', `/roles?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`, { didAuth: c.jwt })
      expect(second.body).toEqual({ roles: [expect.objectContaining({ did: none })] })
      expectError(await h.request('GET', '/roles?permissions=Admin', { didAuth: c.jwt }), 422, 'VALIDATION_ERROR')
      expectError(await h.request('GET', '/roles?permissions=', { didAuth: c.jwt }), 422, 'VALIDATION_ERROR')
    })

    it('Get Roles pages across its parts (created, then held) with one cursor; a foreign or edited cursor is 422', async () => {
      const c = await walletWithToken(h)
      const own = [(await createRole({}, c.jwt)).body.role.did, (await createRole({}, c.jwt)).body.role.did]
      const held = (await createRole({ permissions: ['Read'] })).body.role.did
      expect((await assign([{ role: held, did: c.did }])).body.errors).toEqual([])
      const all = [...own, held]
      expect(roleDids(await h.request('GET', '/roles', { didAuth: c.jwt }))).toEqual(all)
      for (const limit of [1, 2, 3]) {
        const seen: string[] = []
        let cursor: string | undefined
        do {
          const res = await h.request('GET', `/roles?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
            didAuth: c.jwt,
          })
          expect(res.status).toBe(200)
          expect(res.body.roles.length).toBeGreaterThan(0)
          seen.push(...roleDids(res))
          cursor = res.body.nextCursor
        } while (cursor !== undefined)
        expect(seen).toEqual(all)
      }
      const first = await h.request('GET', '/roles?limit=1', { didAuth: c.jwt })
      const walletCursor = (await h.request('GET', '/wallets?limit=1')).body.nextCursor
      for (const bad of [walletCursor, first.body.nextCursor.slice(0, -2), Buffer.from('{"k":"nope"}').toString('base64url')]) {
        expectError(await h.request('GET', `/roles?limit=1&cursor=${encodeURIComponent(bad)}`, { didAuth: c.jwt }), 422, 'VALIDATION_ERROR')
      }
    })

    it('Update Roles: single body or { roles }, each item updated or in errors with roleDid and message', async () => {
      const r1 = (await createRole({ permissions: ['Read'] })).body.role
      const r2 = (await createRole({ permissions: ['Read'], description: 'keep' })).body.role
      const single = await h.request('PUT', '/roles', { json: { did: r1.did, permissions: ['WRITE'] }, didAuth: creator.jwt })
      expect(single.body.errors).toEqual([])
      expect(single.body.roles[0]).toMatchObject({ did: r1.did, permissions: ['Write'], description: '', createdAt: r1.createdAt })
      expect(single.body.roles[0].updatedAt).toBeGreaterThanOrEqual(r1.updatedAt)
      const unknown = 'did:ethr:dev:0x000000000000000000000000000000000000dEaD'
      const batch = await h.request('PUT', '/roles', {
        json: {
          roles: [
            { did: r2.did, description: 'new' },
            { did: unknown, description: 'x' },
          ],
        },
        didAuth: creator.jwt,
      })
      expect(batch.body.roles).toEqual([expect.objectContaining({ did: r2.did, description: 'new', permissions: ['Read'] })])
      expect(batch.body.errors).toEqual([
        {
          roleDid: unknown,
          message: `no role ${unknown}`,
          error: { statusCode: 422, errorType: 'NOT_FOUND', errorMessage: `no role ${unknown}` },
        },
      ])
      // the change is stored
      const listed = (await h.request('GET', '/roles', { didAuth: creator.jwt })).body.roles.find((r: { did: string }) => r.did === r2.did)
      expect(listed.description).toBe('new')
    })

    it('assign (both spellings), idempotent; list by role and by did; unassign with the Access Token JWT', async () => {
      const role = (await createRole({ permissions: ['Read'] })).body.role.did
      const first = await assign([{ role, did: holder.did }])
      expect(first.body).toEqual({
        assignments: [{ role, did: holder.did, governsCredentials: false, createdAt: expect.any(Number) }],
        errors: [],
      })
      // again, through the other spelling: the same assignment, not a copy
      const again = await assign([{ role, did: holder.did.toLowerCase() }], creator.jwt, '/roles/assignments')
      expect(again.body).toEqual(first.body)
      expect((await assign([{ role, did: other.did }])).body.errors).toEqual([])
      const byRole = await h.request('GET', `/roles/assignmnets?role=${encodeURIComponent(role)}`, { didAuth: creator.jwt })
      expect(byRole.body.assignments.map((a: { did: string }) => a.did)).toEqual([holder.did, other.did].sort())
      const byDid = await h.request('GET', `/roles/assignments?did=${encodeURIComponent(holder.did)}`, { didAuth: holder.jwt })
      expect(byDid.body.assignments).toContainEqual(first.body.assignments[0])
      // paging of the listing
      const page1 = await h.request('GET', `/roles/assignmnets?role=${encodeURIComponent(role)}&limit=1`, { didAuth: creator.jwt })
      const page2 = await h.request(
        'GET',
        `/roles/assignmnets?role=${encodeURIComponent(role)}&limit=1&cursor=${encodeURIComponent(page1.body.nextCursor)}`,
        { didAuth: creator.jwt },
      )
      expect([...page1.body.assignments, ...page2.body.assignments]).toEqual(byRole.body.assignments)
      expect(page2.body.nextCursor).toBeUndefined()

      const removed = await unassign([{ role, did: holder.did }], creator.jwt)
      expect(removed.body).toEqual({ assignments: first.body.assignments, errors: [] })
      // removing it again: a NOT_FOUND item, the batch still 200
      const gone = await unassign(
        [
          { role, did: holder.did },
          { role, did: other.did },
        ],
        creator.jwt,
        '/roles/assignments',
      )
      expect(gone.status).toBe(200)
      expect(gone.body.assignments.map((a: { did: string }) => a.did)).toEqual([other.did])
      expect(gone.body.errors).toEqual([
        { assignment: { role, did: holder.did }, error: expect.objectContaining({ statusCode: 422, errorType: 'NOT_FOUND' }) },
      ])
      expect(
        (await h.request('GET', `/roles/assignmnets?role=${encodeURIComponent(role)}`, { didAuth: creator.jwt })).body.assignments,
      ).toEqual([])
    })

    it('assignment targets: wallet DIDs of the tenant (role wallets included); any other DID is a NOT_FOUND item', async () => {
      const role = (await createRole({ permissions: ['Read'] })).body.role.did
      const another = (await createRole({})).body.role.did
      const outside = 'did:ethr:dev:0x1111111111111111111111111111111111111111'
      const res = await assign([
        { role, did: outside },
        { role, did: another },
        { role, did: 'did:web:example.com' },
      ])
      expect(res.body.assignments.map((a: { did: string }) => a.did)).toEqual([another])
      expect(res.body.errors.map((e: { assignment: { did: string } }) => e.assignment.did)).toEqual([outside, 'did:web:example.com'])
      for (const e of res.body.errors) expect(e.error).toMatchObject({ statusCode: 422, errorType: 'NOT_FOUND' })
    })

    it('Delete Roles: by dids (array or comma-separated) or ids; the assignments and the role wallet go too', async () => {
      const r1 = (await createRole({ permissions: ['Read'] })).body.role
      const r2 = (await createRole({ permissions: ['Read'] })).body.role
      const r3 = (await createRole({ permissions: ['Read'] })).body.role
      await assign([
        { role: r1.did, did: holder.did },
        { role: r2.did, did: holder.did },
      ])
      const byString = await h.request('DELETE', '/roles', { json: { dids: `${r1.did}, ${r2.did}` }, didAuth: creator.jwt })
      expect(byString.body).toEqual({ roles: [r1, r2].map(({ registry: _r, ...role }) => role), errors: [] })
      const byIds = await h.request('DELETE', '/roles', { json: { ids: [r3._id] }, didAuth: creator.jwt })
      expect(byIds.body.roles.map((r: { did: string }) => r.did)).toEqual([r3.did])
      for (const r of [r1, r2, r3]) expect((await h.request('GET', `/wallets?did=${encodeURIComponent(r.did)}`)).body.wallets).toEqual([])
      const held = (
        await h.request('GET', `/roles/assignmnets?did=${encodeURIComponent(holder.did)}`, { didAuth: holder.jwt })
      ).body.assignments.map((a: { role: string }) => a.role)
      expect(held).not.toContain(r1.did)
      expect(held).not.toContain(r2.did)
      // deleting again: reported per item, the batch is not failed
      const again = await h.request('DELETE', '/roles', { json: { dids: [r1.did] }, didAuth: creator.jwt })
      expect(again.body).toEqual({
        roles: [],
        errors: [{ roleDid: r1.did, message: `no role ${r1.did}`, error: expect.objectContaining({ errorType: 'NOT_FOUND' }) }],
      })
    })

    it('a role wallet is deleted with its role only; deleting a wallet removes the roles assigned to it', async () => {
      const role = (await createRole({ permissions: ['Read'] })).body.role.did
      const roleToken = await tokenFor(h, role)
      const before = await snapshot(h)
      const refused = await h.request('DELETE', '/wallet', { json: { ids: [role] }, didAuth: roleToken })
      expect(refused.body.errors).toEqual([{ did: role, error: expect.objectContaining({ statusCode: 422, errorType: 'CONFLICT' }) }])
      expect(await snapshot(h)).toEqual(before)
      const w = await walletWithToken(h)
      await assign([{ role, did: w.did }])
      expect((await h.request('DELETE', '/wallet', { json: { ids: [w.did] }, didAuth: w.jwt })).body.errors).toEqual([])
      expect(
        (await h.request('GET', `/roles/assignmnets?role=${encodeURIComponent(role)}`, { didAuth: creator.jwt })).body.assignments,
      ).toEqual([])
    })

    it('deleting a vault removes the roles assigned to its wallets', async () => {
      const role = (await createRole({ permissions: ['Read'] })).body.role.did
      const vault = (await h.request('POST', '/vaults', { json: { name: `with a role holder ${storage}` } })).body.vault
      const member = vault.wallets[0].did
      const bystander = await walletWithToken(h)
      expect(
        (
          await assign([
            { role, did: member },
            { role, did: bystander.did },
          ])
        ).body.errors,
      ).toEqual([])
      expect((await h.request('DELETE', '/vaults', { json: { _id: vault.id }, didAuth: await tokenFor(h, member) })).status).toBe(200)
      const left = (await h.request('GET', `/roles/assignmnets?role=${encodeURIComponent(role)}`, { didAuth: creator.jwt })).body
        .assignments
      expect(left.map((a: { did: string }) => a.did)).toEqual([bystander.did])
    })

    it('the service methods are the same operations (embedded)', async () => {
      const api = h.service.as({ authorization: 'Bearer token-tenant-a-0123456789', didAuth: creator.jwt })
      const { role } = await api.createRole({ permissions: ['Read'] })
      expect(await api.createRoleAssignments({ assignments: [{ role: role.did, did: holder.did }] })).toMatchObject({
        errors: [],
        assignments: [{ role: role.did, did: holder.did }],
      })
      expect((await api.getRoleAssignments({ role: role.did })).assignments).toHaveLength(1)
      const removed = await h.service.deleteRoleAssignments(
        { assignments: [{ role: role.did, did: holder.did }] },
        { authorization: `Bearer ${creator.jwt}` },
      )
      expect(removed.errors).toEqual([])
    })
  })
}

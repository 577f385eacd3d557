/**
 * Role assignment racing role deletion, on every real backend (PostgreSQL's transactions run
 * concurrently on their own connections): whichever commits first, no assignment of a deleted
 * role is left behind. The assignment checks the role inside its transaction and the deletion
 * removes the role's assignments inside its own; on PostgreSQL both are SERIALIZABLE, so a
 * write skew between them (each reading before the other writes) aborts and retries one.
 * Without the assignment's in-transaction role check, PostgreSQL leaves assignments of the
 * deleted role (seen: 3 of 5 in the first round); with it, none. The same race found a failed
 * COMMIT followed by a second release of its connection in the PostgreSQL adapter (fixed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REAL_STORAGES, startHarness, walletWithToken, type Harness } from '../helpers/harness.js'

const ROUNDS = 20
const TARGETS = 5
const STEP_MS = 2

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

for (const storage of REAL_STORAGES) {
  describe(`role assignment racing role deletion (${storage})`, () => {
    let h: Harness
    let creator: { did: string; jwt: string }
    /** Wallets of the tenant: what a role may be assigned to. */
    let targets: string[]
    beforeAll(async () => {
      h = await startHarness({ storage })
      creator = await walletWithToken(h)
      targets = []
      for (let i = 0; i < TARGETS; i++) targets.push((await h.request('POST', '/wallet', { json: {} })).body.wallet.did)
    }, 120_000)
    afterAll(() => h.close())

    it(`${ROUNDS} rounds: the role is gone and so are all its assignments, whichever request committed first`, async () => {
      const outcomes = new Set<string>()
      for (let round = 0; round < ROUNDS; round++) {
        const role = (await h.request('POST', '/roles', { json: { permissions: ['Read'] }, didAuth: creator.jwt })).body.role
        const assignments = targets.map((did) => ({ role: role.did, did }))
        const [assigned, deleted] = await Promise.all([
          h.request('POST', '/roles/assignments', { json: { assignments }, didAuth: creator.jwt }),
          // Sent later each round, so the deletion meets the assignments at every stage of their work.
          delay(round * STEP_MS).then(() => h.request('DELETE', '/roles', { json: { dids: [role.did] }, didAuth: creator.jwt })),
        ])
        expect(assigned.status, JSON.stringify(assigned.body)).toBe(200)
        expect(deleted.status, JSON.stringify(deleted.body)).toBe(200)
        expect(deleted.body.errors).toEqual([])
        // Each assignment either landed before the deletion (and went with it) or found no role (422 NOT_FOUND).
        for (const { error } of assigned.body.errors) {
          expect(error).toMatchObject({ statusCode: 422, errorType: 'NOT_FOUND', errorMessage: expect.stringMatching(/^no role /) })
        }
        const refused = assigned.body.errors.length
        outcomes.add(refused === 0 ? 'assigned first' : refused === TARGETS ? 'deleted first' : 'interleaved')
        const left = await h.storage.collection('roleAssignments').count({ field: 'role', op: 'eq', value: role.did })
        expect(left, `round ${round}: assignments of the deleted role ${role.did}`).toBe(0)
        expect(await h.storage.collection('roles').count({ field: 'did', op: 'eq', value: role.did })).toBe(0)
      }
      console.log(`[race] ${storage}: ${[...outcomes].join(', ')}`)
    }, 120_000)
  })
}

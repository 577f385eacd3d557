/**
 * Issue 28, finding 4: every use of a wallet's key and every refusal reaches the audit trail with
 * its target, through HTTP on SQLite. A same-tenant user refused a status change or a role update
 * is recorded against what she tried to change; signing a presentation (granted or refused) and
 * minting a DID-auth token are recorded; the status-list publisher's signature is recorded once per
 * list version with actor `{ system: "publisher" }`, however often the list is fetched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHarness, tokenFor, type Harness } from '../helpers/harness.js'
import type { AuditEntry } from '../../src/audit/schemas.js'

let h: Harness
let alice: string
let aliceToken: string
let mallory: string
let malloryToken: string
/** A VC-JWT Alice issued (the presentations hold it). */
let aliceVc: string

beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { publicUrl: 'https://vault.example', statusPublishIntervalMs: 60_000 } })
  const wallet = async () => (await h.request('POST', '/wallet', { json: {} })).body.wallet.did as string
  alice = await wallet()
  mallory = await wallet()
  aliceToken = await tokenFor(h, alice)
  malloryToken = await tokenFor(h, mallory)
})
afterAll(() => h?.close())

/** The tenant's records, through GET /audit. */
async function trail(query = ''): Promise<AuditEntry[]> {
  const res = await h.request('GET', `/audit${query}`)
  expect(res.status).toBe(200)
  return res.body.records as AuditEntry[]
}

describe('every signature with a wallet’s key and every refusal is recorded with its target (HTTP, SQLite)', () => {
  it('minting a DID-auth token (API key alone) is token.generate on the wallet', async () => {
    const records = await trail('?action=token.generate')
    expect(records.map((r) => r.target)).toEqual([
      { type: 'wallet', id: alice },
      { type: 'wallet', id: mallory },
    ])
    expect(records[0]).toMatchObject({ outcome: 'ok', actor: { dids: [] } })
  })

  it('a refused status-change item is recorded against the credential it named (by list and index; by id another issuer’s credential is not found, as if never issued)', async () => {
    const id = 'urn:uuid:4c1e8a8e-6d0e-4c53-9a0e-0d5c3f1b7a10'
    const signed = await h.request('POST', '/claims/sign', {
      didAuth: aliceToken,
      json: { iss: alice, format: 'JWT', status: { purposes: ['revocation'] }, claims: [{ id, payload: { member: true } }] },
    })
    expect(signed.status).toBe(200)
    aliceVc = signed.body.vcs[0].jwt
    const vc = JSON.parse(Buffer.from(signed.body.vcs[0].jwt.split('.')[1], 'base64url').toString()).vc
    const { statusListCredential, statusListIndex } = vc.credentialStatus
    const res = await h.request('POST', '/claims/status', {
      didAuth: malloryToken,
      json: {
        items: [
          { id, purpose: 'revocation', value: true },
          { statusListCredential, statusListIndex, purpose: 'revocation', value: true },
        ],
      },
    })
    expect(res.status).toBe(200)
    expect(res.body.errors.map((e: { error: { errorType: string } }) => e.error.errorType)).toEqual(['NOT_FOUND', 'FORBIDDEN'])
    const refused = (await trail('?action=credential.status')).filter((r) => r.outcome === 'refused')
    expect(refused.map((r) => r.target)).toEqual([{ type: 'credential', id: `${statusListCredential}#${statusListIndex}` }])
    expect(refused[0]).toMatchObject({ error: 'FORBIDDEN', actor: { dids: [mallory] } })
    // The target filter finds them by what they named.
    expect((await trail(`?target=${encodeURIComponent(id)}`)).map((r) => [r.action, r.outcome])).toEqual([['credential.sign', 'ok']])
    expect(
      (await trail(`?target=${encodeURIComponent(`${statusListCredential}#${statusListIndex}`)}`)).map((r) => [r.action, r.outcome]),
    ).toEqual([['credential.status', 'refused']])
  })

  it('a refused role-update item is recorded against the role', async () => {
    const role = (await h.request('POST', '/roles', { didAuth: aliceToken, json: { permissions: ['Read'], description: 'r' } })).body.role
      .did as string
    const res = await h.request('PUT', '/roles', { didAuth: malloryToken, json: { roles: [{ did: role, description: 'mine' }] } })
    expect(res.status).toBe(200)
    expect(res.body.errors[0].error.errorType).toBe('FORBIDDEN')
    const [refused] = (await trail('?action=role.update')).filter((r) => r.outcome === 'refused')
    expect(refused).toMatchObject({ target: { type: 'role', id: role }, error: 'FORBIDDEN', actor: { dids: [mallory] } })
  })

  it('signing a presentation is presentation.sign on the holder, granted or refused', async () => {
    const vp = { holder: alice, format: 'JWT', nonce: 'n-1', vcs: [{ jwt: aliceVc }] }
    expect((await h.request('POST', '/presentations/sign', { didAuth: aliceToken, json: vp })).status).toBe(200)
    const refused = await h.request('POST', '/presentations/sign', { didAuth: malloryToken, json: vp })
    expect(refused.status).toBe(403)
    expect(refused.body.errorType).toBe('FORBIDDEN')
    const records = await trail('?action=presentation.sign')
    expect(records.map((r) => [r.target, r.outcome, r.actor.dids])).toEqual([
      [{ type: 'wallet', id: alice }, 'ok', [alice]],
      [{ type: 'wallet', id: alice }, 'refused', [mallory]],
    ])
  })

  it('the publisher’s signature of a list: once per list version, actor { system: "publisher" }, not per fetch', async () => {
    const issued = await h.request('POST', '/claims/sign', {
      didAuth: aliceToken,
      json: { iss: alice, format: 'JWT', status: { purposes: ['suspension'] }, claims: [{ id: 'urn:x:s', payload: { a: 1 } }] },
    })
    const vc = JSON.parse(Buffer.from(issued.body.vcs[0].jwt.split('.')[1], 'base64url').toString()).vc
    const listId = new URL(vc.credentialStatus.statusListCredential).pathname.split('/').pop()!
    for (let i = 0; i < 3; i++) expect((await h.request('GET', `/status/${listId}`, { token: null })).status).toBe(200)
    const records = await trail('?action=statusList.sign')
    expect(records.filter((r) => r.target.id === listId)).toEqual([
      expect.objectContaining({ target: { type: 'statusList', id: listId }, outcome: 'ok', actor: { dids: [], system: 'publisher' } }),
    ])
  })

  it('the chain verifies with the publisher’s records in it', async () => {
    const { verifyChains } = await import('../../src/audit/verify-chain.js')
    for (const report of await verifyChains(h.storage)) expect(report.break).toBeUndefined()
  })
})

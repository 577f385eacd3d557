/**
 * The audit trail records every security-relevant act exactly once, with its actor (the API
 * key's id and the DIDs proved), target and outcome: a table of acts run in order through the
 * embedded API on SQLite, each followed by a look at the records it added (through GET /audit for
 * the tenant, and the system chain for the operator's acts). Then the chain verifies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHarness, type Harness } from '../helpers/harness.js'
import { approvals, member, mpcVaultBody, type Member } from '../helpers/mpc.js'
import { randomMasterKey } from '../../src/index.js'
import { verifyChains } from '../../src/audit/verify-chain.js'
import { collectionOf } from '../../src/storage/declaration.js'
import { AUDIT_RECORDS, SYSTEM_CHAIN } from '../../src/audit/records.js'
import type { AuditEntry } from '../../src/audit/schemas.js'
import { entryOf } from '../../src/audit/hash.js'

let h: Harness
let key: { id: string; key: string }
let members: Member[]

beforeAll(async () => {
  // No `tenants` option: API keys, so records name the key's id.
  h = await startHarness({
    storage: 'sqlite',
    service: { tenants: undefined, publicUrl: 'https://vault.example', statusPublishIntervalMs: 60_000 },
  })
  key = await h.service.apiKeys!.create('tenant-a')
  members = [await member(), await member(), await member()]
})
afterAll(() => h?.close())

/** The API as the tenant's key, with DID-auth tokens. */
const api = (didAuth?: string) => h.service.as({ authorization: `Bearer ${key.key}`, didAuth })
/** A DID-auth token minted with the API key: recorded as token.generate on the wallet (issue 28). */
const tokenOf = async (did: string) =>
  (
    await expectRecorded(
      'tenant-a',
      () => api().generateToken({ iss: did }),
      () => [{ action: 'token.generate', target: { type: 'wallet', id: did }, actor: { apiKeyId: key.id, dids: [] } }],
    )
  ).jwt
/** As an Access Token JWT (Delete VCs, Delete Role Assignments). */
const access = (jwt: string) => h.service.as({ authorization: `Bearer ${jwt}` })

/** The records of `chain` after `seq`. */
async function recordsAfter(chain: string, seq: number): Promise<AuditEntry[]> {
  await h.service.chainAuditRecords()
  const page = await collectionOf(h.storage, AUDIT_RECORDS).find(
    {
      and: [
        { field: 'tenantId', op: 'eq', value: chain },
        { field: 'seq', op: 'gt', value: seq },
      ],
    },
    { orderBy: { field: 'seq' } },
  )
  return page.items.map(entryOf)
}

const seen = new Map<string, number>()
/** Runs `act`, then expects exactly the records `expected` returns (given the act's result) in the chain. */
async function expectRecorded<R>(
  chain: string,
  act: () => Promise<R>,
  expected: (result: R) => Array<Pick<AuditEntry, 'action' | 'target'> & Partial<AuditEntry>>,
): Promise<R> {
  const from = seen.get(chain) ?? 0
  const result = await act()
  const added = await recordsAfter(chain, from)
  const want = expected(result)
  expect(added.map((r) => ({ action: r.action, target: r.target }))).toEqual(want.map((w) => ({ action: w.action, target: w.target })))
  for (const [i, w] of want.entries()) expect(added[i]).toMatchObject({ outcome: 'ok', ...w })
  seen.set(chain, from + added.length)
  return result
}

describe('every act is recorded once, with actor, target and outcome (SQLite, embedded API)', () => {
  const state: Record<string, string> = {}
  const byKey = () => ({ actor: { apiKeyId: key.id, dids: [] } })

  it('the API key created for the tenant: apiKey.create on the system chain', async () => {
    const [first] = await recordsAfter(SYSTEM_CHAIN, 0)
    expect(first).toMatchObject({ action: 'apiKey.create', target: { type: 'apiKey', id: key.id }, actor: { dids: [] }, outcome: 'ok' })
    expect(first.actor.apiKeyId).toBeUndefined()
    seen.set(SYSTEM_CHAIN, 1)
  })

  it('wallet.create (Generate Identity Wallet)', async () => {
    const { wallet } = await expectRecorded(
      'tenant-a',
      () => api().generateWallet({}),
      (r) => [{ action: 'wallet.create', target: { type: 'wallet', id: r.wallet.did }, ...byKey() }],
    )
    state.wallet = wallet.did
    state.walletToken = await tokenOf(wallet.did)
  })

  it('vault.create, then wallet.create in it', async () => {
    const { vault } = await expectRecorded(
      'tenant-a',
      () => api().createVault({ name: 'v', hierarchy: 'BIP44', keyManagement: 'ECS' }),
      // An ECS vault comes with its first wallet: two acts.
      (r) => [
        { action: 'vault.create', target: { type: 'vault', id: r.vault.id }, ...byKey() },
        { action: 'wallet.create', target: { type: 'wallet', id: r.vault.wallets[0].did }, ...byKey() },
      ],
    )
    state.vault = vault.id
    const rootToken = await tokenOf(vault.wallets[0].did)
    const root = vault.wallets[0].did
    await expectRecorded(
      'tenant-a',
      () => api(rootToken).createVaultWallet({ vaultID: vault.id }),
      (r) => [{ action: 'wallet.create', target: { type: 'wallet', id: r.wallet.did }, actor: { apiKeyId: key.id, dids: [root] } }],
    )
    state.rootToken = rootToken
  })

  it('did.update (Configure Identity Wallet), one record per applied change', async () => {
    const txsInput = [{ service: { name: 'hub', value: 'https://hub.example', validity: 60_000 } }, { delegate: { validity: 60_000 } }]
    await expectRecorded(
      'tenant-a',
      () => api(state.walletToken).configureWallet({ wallet: { did: state.wallet }, walletConfig: { txsInput } }),
      () => [
        { action: 'did.update', target: { type: 'did', id: state.wallet }, actor: { apiKeyId: key.id, dids: [state.wallet] } },
        { action: 'did.update', target: { type: 'did', id: state.wallet } },
      ],
    )
  })

  it('role.create, role.update, assignment.grant, assignment.revoke', async () => {
    const { role } = await expectRecorded(
      'tenant-a',
      () => api(state.walletToken).createRole({ permissions: ['Write'], description: 'writers' }),
      (r) => [{ action: 'role.create', target: { type: 'role', id: r.role.did }, actor: { apiKeyId: key.id, dids: [state.wallet] } }],
    )
    state.role = role.did
    await expectRecorded(
      'tenant-a',
      () => api(state.walletToken).updateRoles({ roles: [{ did: role.did, description: 'editors' }] }),
      () => [{ action: 'role.update', target: { type: 'role', id: role.did } }],
    )
    const other = (await api().generateWallet({})).wallet.did
    seen.set('tenant-a', (seen.get('tenant-a') ?? 0) + 1)
    const assignment = { type: 'assignment', id: other, role: role.did }
    await expectRecorded(
      'tenant-a',
      () => api(state.walletToken).createRoleAssignments({ assignments: [{ role: role.did, did: other }] }),
      () => [{ action: 'assignment.grant', target: assignment }],
    )
    // Assigned already: nothing changes, nothing is recorded.
    await expectRecorded(
      'tenant-a',
      () => api(state.walletToken).createRoleAssignments({ assignments: [{ role: role.did, did: other }] }),
      () => [],
    )
    // An Access Token JWT: the actor is its DID, no API key.
    await expectRecorded(
      'tenant-a',
      () => access(state.walletToken).deleteRoleAssignments({ assignments: [{ role: role.did, did: other }] }),
      () => [{ action: 'assignment.revoke', target: assignment, actor: { dids: [state.wallet] } }],
    )
  })

  it('credential.sign, credential.store, credential.addProof, credential.removeProof, credential.status, credential.delete', async () => {
    const signed = await expectRecorded(
      'tenant-a',
      () =>
        api(state.walletToken).signClaims({
          iss: state.wallet,
          format: 'JSON-LD',
          context: 'https://www.w3.org/ns/credentials/v2',
          status: { purposes: ['suspension'] },
          claims: [{ payload: { member: true } }],
        }),
      // A claim without `id` gets a DID of its own: a wallet of the tenant.
      (r) => [
        { action: 'wallet.create', target: { type: 'wallet', id: r.vcs[0].id! } },
        { action: 'credential.sign', target: { type: 'credential', id: r.vcs[0].id! } },
      ],
    )
    const claimDid = signed.vcs[0].id!
    // Rule 5: the owner of the credential's DID changes its proofs and deletes it.
    const claimToken = await tokenOf(claimDid)
    const jsonld = (signed.vcs[0] as { jsonld: Record<string, unknown> }).jsonld
    const stored = await expectRecorded(
      'tenant-a',
      () => api(state.walletToken).storeClaims({ claims: [{ jsonld }] }),
      (r) => [{ action: 'credential.store', target: { type: 'credential', id: r.vcs[0]._id } }],
    )
    const _id = stored.vcs[0]._id
    await expectRecorded(
      'tenant-a',
      () => api(claimToken).addProofs({ operation: 'addProof', claims: [{ _id }] }),
      () => [{ action: 'credential.addProof', target: { type: 'credential', id: _id } }],
    )
    await expectRecorded(
      'tenant-a',
      () => api(claimToken).removeProofs({ operation: 'removeProof', claims: [{ _id }] }),
      () => [{ action: 'credential.removeProof', target: { type: 'credential', id: _id } }],
    )
    await expectRecorded(
      'tenant-a',
      () => api(state.walletToken).changeStatus({ items: [{ _id, purpose: 'suspension', value: true }] }),
      () => [{ action: 'credential.status', target: { type: 'credential', id: claimDid } }],
    )
    await expectRecorded(
      'tenant-a',
      () => access(state.walletToken).deleteClaims({ ids: [_id] }),
      () => [{ action: 'credential.delete', target: { type: 'credential', id: _id }, actor: { dids: [state.wallet] } }],
    )
  })

  it('role.delete, wallet.delete, vault.delete', async () => {
    await expectRecorded(
      'tenant-a',
      () => api(state.walletToken).deleteRoles({ dids: [state.role] }),
      () => [{ action: 'role.delete', target: { type: 'role', id: state.role } }],
    )
    await expectRecorded(
      'tenant-a',
      () => api(state.walletToken).deleteWallets({ ids: [state.wallet] }),
      () => [{ action: 'wallet.delete', target: { type: 'wallet', id: state.wallet } }],
    )
    await expectRecorded(
      'tenant-a',
      () => api(state.rootToken).deleteVault({ _id: state.vault }),
      () => [{ action: 'vault.delete', target: { type: 'vault', id: state.vault } }],
    )
  })

  it('MPC: vault.create, mpc.initialize and each quorum-approved signature (mpc.sign) with the approving members', async () => {
    const { vault } = await expectRecorded(
      'tenant-a',
      () => api().createVault(mpcVaultBody(members)),
      (r) => [{ action: 'vault.create', target: { type: 'vault', id: r.vault.id } }],
    )
    const quorum = await approvals(members[0], members[1])
    const approving = [members[0].did, members[1].did]
    await expectRecorded(
      'tenant-a',
      () => api(quorum).initializeVault({ vaultID: vault.id }),
      () => [{ action: 'mpc.initialize', target: { type: 'vault', id: vault.id }, approvals: approving }],
    )
    const { wallet } = await expectRecorded(
      'tenant-a',
      () => api(quorum).createVaultWallet({ vaultID: vault.id }),
      (r) => [{ action: 'wallet.create', target: { type: 'wallet', id: r.wallet.did } }],
    )
    // A DID-auth token of the MPC wallet: two signatures (its JSON-LD proof and its JWT), each approved by the quorum.
    const signature = { action: 'mpc.sign' as const, target: { type: 'wallet', id: wallet.did }, approvals: approving }
    await expectRecorded(
      'tenant-a',
      () => api(quorum).generateToken({ iss: wallet.did }),
      () => [signature, signature, { action: 'token.generate', target: { type: 'wallet', id: wallet.did } }],
    )
  })

  it('a refused act (403 FORBIDDEN) is recorded with outcome refused', async () => {
    const { vault } = (await api().createVault({ name: 'w', hierarchy: 'NONE', keyManagement: 'ECS' })) as { vault: { id: string } }
    seen.set('tenant-a', (seen.get('tenant-a') ?? 0) + 2)
    const stranger = (await api().generateWallet({})).wallet.did
    seen.set('tenant-a', (seen.get('tenant-a') ?? 0) + 1)
    const strangerToken = await tokenOf(stranger)
    const from = seen.get('tenant-a')!
    await expect(api(strangerToken).deleteVault({ _id: vault.id })).rejects.toMatchObject({ errorType: 'FORBIDDEN' })
    const [refused, ...more] = await recordsAfter('tenant-a', from)
    expect(more).toEqual([])
    expect(refused).toMatchObject({
      action: 'vault.delete',
      target: { type: 'vault', id: vault.id },
      outcome: 'refused',
      error: 'FORBIDDEN',
      actor: { apiKeyId: key.id, dids: [stranger] },
    })
    seen.set('tenant-a', from + 1)
  })

  it('a refused batch item (FORBIDDEN among the errors of a 200) is recorded as refused, after the items done', async () => {
    const mine = (await api().generateWallet({})).wallet.did
    const other = (await api().generateWallet({})).wallet.did
    seen.set('tenant-a', seen.get('tenant-a')! + 2)
    const otherToken = await tokenOf(other)
    const res = await expectRecorded(
      'tenant-a',
      () => api(otherToken).deleteWallets({ ids: [mine, other] }),
      () => [
        { action: 'wallet.delete', target: { type: 'wallet', id: other }, outcome: 'ok' },
        {
          action: 'wallet.delete',
          target: { type: 'wallet', id: mine },
          outcome: 'refused',
          error: 'FORBIDDEN',
          actor: { apiKeyId: key.id, dids: [other] },
        },
      ],
    )
    expect(res.ids).toEqual([other])
    expect(res.errors.map((e) => e.error.errorType)).toEqual(['FORBIDDEN'])
  })

  it('apiKey.create, apiKey.revoke and masterKey.rotate go to the system chain', async () => {
    const from = seen.get(SYSTEM_CHAIN)!
    const other = await h.service.apiKeys!.create('tenant-b')
    expect(await h.service.apiKeys!.revoke(other.id)).toBe(true)
    await h.service.rotateMasterKey(randomMasterKey())
    const added = await recordsAfter(SYSTEM_CHAIN, from)
    expect(added.map((r) => [r.action, r.target.type, r.target.id === other.id])).toEqual([
      ['apiKey.create', 'apiKey', true],
      ['apiKey.revoke', 'apiKey', true],
      ['masterKey.rotate', 'masterKey', false],
    ])
    for (const r of added) expect(r).toMatchObject({ actor: { dids: [] }, outcome: 'ok', tenant: SYSTEM_CHAIN })
    expect(added[2].target.id).toMatch(/^[0-9a-f]+$/)
  })

  it('every chain verifies; every record has a request id', async () => {
    const reports = await verifyChains(h.storage)
    expect(reports.map((r) => r.tenant).sort()).toEqual([SYSTEM_CHAIN, 'tenant-a'].sort())
    for (const report of reports) expect(report.break).toBeUndefined()
    for (const r of await recordsAfter('tenant-a', 0)) expect(r.requestId).toMatch(/\S/)
  })

  it('GET /audit filters by the API key id of the actor', async () => {
    const mine = await api().getAuditRecords({ actor: key.id })
    expect(mine.records.length).toBeGreaterThan(10)
    expect(mine.records.every((r) => r.actor.apiKeyId === key.id)).toBe(true)
    // The Access Token JWT acts (assignment.revoke, credential.delete) had no API key.
    const all = await api().getAuditRecords({})
    expect(all.records.filter((r) => r.actor.apiKeyId === undefined).map((r) => r.action)).toEqual([
      'assignment.revoke',
      'credential.delete',
    ])
    expect((await api().getAuditRecords({ actor: 'key_none0000' })).records).toEqual([])
  })
})

/**
 * MPC vaults through HTTP: the NOT_INITIALIZED → INITIALIZED lifecycle, quorum approvals
 * (2-of-3 with 1, 2 and 3 members), MPC wallets signing DID-auth tokens and DID-document
 * changes, the Get Identity Vaults filters, and the bad-input list (error body, nothing written).
 */
import { createPublicKey } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeAddress } from 'ethers'
import { expectError, snapshot, startHarness, TENANT_B, type Harness } from '../helpers/harness.js'
import { approvals, member, mpcVaultBody as vaultBody, type Member } from '../helpers/mpc.js'
import { verifyDidAuthToken } from '../../src/auth/did-auth.js'
import type { ApprovalRequest } from '../../src/mpc/approvals.js'

let h: Harness
let members: Member[]
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
  members = await Promise.all([member(), member(), member()])
})
afterAll(() => h.close())

const tokens = approvals
const mpcVaultBody = (extra: Record<string, unknown> = {}) => vaultBody(members, extra)

async function initializedVault(extra: Record<string, unknown> = {}) {
  const created = await h.request('POST', '/vaults', { json: mpcVaultBody(extra) })
  expect(created.status, JSON.stringify(created.body)).toBe(200)
  const init = await h.request('POST', `/vaults/${created.body.vault.id}/initialize`, {
    json: {},
    didAuth: await tokens(members[0], members[1]),
  })
  expect(init.status, JSON.stringify(init.body)).toBe(200)
  return init.body.vault
}

async function mpcWallet(vaultId: string, json: Record<string, unknown> = {}) {
  const res = await h.request('POST', `/vaults/${vaultId}/wallet`, { json, didAuth: await tokens(members[0], members[2]) })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.wallet
}

/** The uncompressed public key (hex) a DER SubjectPublicKeyInfo holds, read by node's own parser. */
function keyOfDer(derHex: string): string {
  const jwk = createPublicKey({ key: Buffer.from(derHex, 'hex'), format: 'der', type: 'spki' }).export({ format: 'jwk' })
  expect(jwk.crv).toBe('secp256k1')
  return '04' + Buffer.from(jwk.x!, 'base64url').toString('hex') + Buffer.from(jwk.y!, 'base64url').toString('hex')
}

describe('MPC vault lifecycle', () => {
  it('create → NOT_INITIALIZED; wallet before initialize → 409; initialize → INITIALIZED; wallets at indexes 0, 1 with publicKeyDER and no privateKeyHex', async () => {
    const created = await h.request('POST', '/vaults', { json: mpcVaultBody() })
    expect(created.status).toBe(200)
    const vault = created.body.vault
    expect(vault).toMatchObject({
      keyManagement: 'MPC',
      hierarchy: 'BIP44',
      status: 'NOT_INITIALIZED',
      wallets: [],
      mpcAccountID: 'acct-1',
    })
    expect(vault.mpcVault.id).toEqual(expect.any(String))
    expect(vault).not.toHaveProperty('mnemonic')

    const quorum = await tokens(members[0], members[1])
    expectError(await h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: quorum }), 409, 'VAULT_NOT_INITIALIZED')

    const short = await h.request('POST', `/vaults/${vault.id}/initialize`, { json: {}, didAuth: await tokens(members[0]) })
    expectError(short, 403, 'FORBIDDEN')
    expect(short.body.errorMessage).toMatch(/1 more approval needed from members of group "signers"/)

    const init = await h.request('POST', `/vaults/${vault.id}/initialize`, { json: {}, didAuth: quorum })
    expect(init.status).toBe(200)
    expect(init.body.vault).toMatchObject({ id: vault.id, status: 'INITIALIZED', wallets: [], mpcVault: vault.mpcVault })

    const first = await mpcWallet(vault.id)
    const second = await mpcWallet(vault.id, { wallet: { alias: 'second' } })
    expect([first.index, second.index]).toEqual([0, 1])
    for (const w of [first, second]) {
      expect(w).toMatchObject({ vaultId: vault.id, isHDWallet: true, didMethod: 'ethr' })
      expect(w).not.toHaveProperty('privateKeyHex')
      expect(keyOfDer(w.publicKeyDER)).toBe(w.publicKeyHex)
      expect(w.ethereumAddress).toBe(computeAddress('0x' + w.publicKeyHex))
      expect(w.did).toBe(`did:ethr:dev:${w.ethereumAddress}`)
    }
    expect(second.alias).toBe('second')
    expect(first.ethereumAddress).not.toBe(second.ethereumAddress)

    // Initializing again is idempotent: same vault, same key (the wallets keep deriving from it).
    const again = await h.request('POST', `/vaults/${vault.id}/initialize`, { json: {}, didAuth: quorum })
    expect(again.status).toBe(200)
    expect(again.body.vault.wallets.map((w: { did: string }) => w.did)).toEqual([first.did, second.did])
    expect((await mpcWallet(vault.id)).index).toBe(2)

    const fetched = (await h.request('GET', `/vaults?id=${vault.id}`)).body.vaults
    expect(fetched).toHaveLength(1)
    expect(fetched[0].wallets).toHaveLength(3)
    for (const w of fetched[0].wallets) {
      expect(w).not.toHaveProperty('privateKeyHex')
      expect(keyOfDer(w.publicKeyDER)).toBe(w.publicKeyHex)
    }
  })

  it('a NONE vault holds one MPC wallet (not HD); a second is 422', async () => {
    const vault = await initializedVault({ hierarchy: 'NONE' })
    const wallet = await mpcWallet(vault.id)
    expect(wallet.isHDWallet).toBe(false)
    expect(wallet).not.toHaveProperty('index')
    const token = await h.request('POST', '/did-auth-jwt', { json: { iss: wallet.did }, didAuth: await tokens(members[1], members[2]) })
    expect(token.status, JSON.stringify(token.body)).toBe(200)
    expect(await verifyDidAuthToken(token.body.jwt, h.service.didAuthOptions)).toBe(wallet.did)
    const before = await snapshot(h)
    expectError(
      await h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: await tokens(members[0], members[1]) }),
      422,
      'VALIDATION_ERROR',
    )
    expect(await snapshot(h)).toEqual(before)
  })

  it('governing the vault takes the quorum: wallet creation and deletion with one member are 403; delete with two removes wallets, key and shares', async () => {
    const vault = await initializedVault()
    const wallet = await mpcWallet(vault.id)
    const before = await snapshot(h)
    expectError(await h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: await tokens(members[0]) }), 403, 'FORBIDDEN')
    expectError(await h.request('DELETE', '/vaults', { json: { _id: vault.id }, didAuth: await tokens(members[2]) }), 403, 'FORBIDDEN')
    expect(await snapshot(h)).toEqual(before)

    const shares = () => h.storage.collection('mpcShares').count({ field: 'vaultId', op: 'eq', value: vault.id })
    expect(await shares()).toBe(3)
    expect(await h.storage.collection('mpcKeys').get(vault.id)).toBeDefined()
    const deleted = await h.request('DELETE', '/vaults', { json: { _id: vault.id }, didAuth: await tokens(members[1], members[2]) })
    expect(deleted.status).toBe(200)
    expect(deleted.body.wallets.map((w: { did: string }) => w.did)).toEqual([wallet.did])
    expect(await shares()).toBe(0)
    expect(await h.storage.collection('mpcKeys').get(vault.id)).toBeUndefined()
    expectError(
      await h.request('POST', '/did-auth-jwt', { json: { iss: wallet.did }, didAuth: await tokens(members[0], members[1]) }),
      422,
      'NOT_FOUND',
    )
  })
})

describe('2-of-3 signing: DID-auth tokens of an MPC wallet (POST /did-auth-jwt)', () => {
  let wallet: { did: string }
  beforeAll(async () => {
    wallet = await mpcWallet((await initializedVault()).id)
  })
  const sign = (didAuth?: string) =>
    h.request('POST', '/did-auth-jwt', { json: { iss: wallet.did }, ...(didAuth !== undefined && { didAuth }) })

  it('no approval or 1 approval: 403 FORBIDDEN naming how many are missing', async () => {
    const none = await sign()
    expectError(none, 403, 'FORBIDDEN')
    expect(none.body.errorMessage).toContain('2 more approvals needed')
    const one = await sign(await tokens(members[1]))
    expectError(one, 403, 'FORBIDDEN')
    expect(one.body.errorMessage).toContain('1 more approval needed')
  })

  it.each([
    ['2 approvals', [0, 1]],
    ['2 other approvals', [1, 2]],
    ['3 approvals', [0, 1, 2]],
  ])('%s: a token that verifies as the MPC wallet DID', async (_name, which) => {
    const res = await sign(await tokens(...which.map((i) => members[i])))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.jsonld.issuer).toBe(wallet.did)
    expect(await verifyDidAuthToken(res.body.jwt, h.service.didAuthOptions)).toBe(wallet.did)
  })

  it('the same member twice counts once; a non-member or an expired token does not count', async () => {
    const again = [await members[0].token(), await members[0].token({ iatIn: -5 })].join(',')
    expectError(await sign(again), 403, 'FORBIDDEN')
    const outsider = await member()
    expectError(await sign(await tokens(members[0], outsider)), 403, 'FORBIDDEN')
    const expired = await members[1].token({ iatIn: -3_600, expIn: -600 })
    const res = await sign([await members[0].token(), expired].join(','))
    expectError(res, 403, 'FORBIDDEN')
    expect(res.body.errorMessage).toContain('1 more approval needed')
  })
})

describe('MPC wallets change their DID documents (embedded registry)', () => {
  it('the vault walletConfig template applies to MPC wallets, signed with the approvals of the request', async () => {
    const walletConfig = { txsInput: [{ service: { name: 'hub', value: 'https://hub.example.com/mpc', validity: 86_400_000 } }] }
    const vault = await initializedVault({ walletConfig })
    const wallet = await mpcWallet(vault.id)
    expect(wallet.registry.errors).toEqual([])
    expect(wallet.registry.transactions).toHaveLength(1)
    const { didDocument } = await h.service.resolveDid({ did: wallet.did })
    expect(didDocument?.service).toEqual([expect.objectContaining({ type: 'hub', serviceEndpoint: 'https://hub.example.com/mpc' })])
  })

  it('Configure Identity Wallet on an MPC wallet: with the quorum the delegate is added; without it the change is reported FORBIDDEN and not applied', async () => {
    const wallet = await mpcWallet((await initializedVault()).id)
    const own = await h.request('POST', '/did-auth-jwt', { json: { iss: wallet.did }, didAuth: await tokens(members[0], members[1]) })
    expect(own.status).toBe(200)
    const delegate = '0x' + '11'.repeat(20)
    const body = { wallet: { did: wallet.did }, walletConfig: { txsInput: [{ delegate: { address: delegate, validity: 3_600_000 } }] } }

    const refused = await h.request('POST', '/wallet/configure', {
      json: body,
      didAuth: [own.body.jwt, await members[2].token()].join(','),
    })
    expect(refused.status).toBe(200)
    expect(refused.body.wallet.registry.transactions).toEqual([])
    expect(refused.body.wallet.registry.errors[0].error).toMatchObject({ statusCode: 403, errorType: 'FORBIDDEN' })
    const unchanged = (await h.service.resolveDid({ did: wallet.did })).didDocument!
    expect(JSON.stringify(unchanged).toLowerCase()).not.toContain(delegate)

    const applied = await h.request('POST', '/wallet/configure', {
      json: body,
      didAuth: [own.body.jwt, await tokens(members[1], members[2])].join(','),
    })
    expect(applied.status).toBe(200)
    expect(applied.body.wallet.registry.errors).toEqual([])
    const changed = (await h.service.resolveDid({ did: wallet.did })).didDocument!
    expect(JSON.stringify(changed).toLowerCase()).toContain(delegate.slice(2))
  })
})

describe('Get Identity Vaults: mpcAccountID, mpcVaultID and the parentID rule', () => {
  it('filters MPC vaults by account and vault id; by parentID, MPC children only with their mpcAccountID', async () => {
    const parent = (await h.request('POST', '/vaults', { json: { name: 'parent' } })).body.vault
    const ecsChild = (await h.request('POST', '/vaults', { json: { name: 'ecs-child', parentID: parent.id } })).body.vault
    const mpcChild = (
      await h.request('POST', '/vaults', {
        json: mpcVaultBody({ parentID: parent.id, mpcAccountID: 'acct-filter', mpcVaultID: 'custom-vault-id' }),
      })
    ).body.vault
    const other = (await h.request('POST', '/vaults', { json: mpcVaultBody({ parentID: parent.id, mpcAccountID: 'acct-other' }) })).body
      .vault
    expect(mpcChild.mpcVault).toEqual({ id: 'custom-vault-id' })
    expect(mpcChild.parentID).toBe(parent.id)

    const ids = async (query: string) => (await h.request('GET', `/vaults?${query}`)).body.vaults.map((v: { id: string }) => v.id)
    expect(await ids('mpcAccountID=acct-filter')).toEqual([mpcChild.id])
    expect(await ids('mpcVaultID=custom-vault-id')).toEqual([mpcChild.id])
    expect(await ids(`mpcVaultID=${other.mpcVault.id}`)).toEqual([other.id])
    expect(await ids(`parentID=${parent.id}`)).toEqual([ecsChild.id])
    expect(await ids(`parentID=${parent.id}&mpcAccountID=acct-filter`)).toEqual([ecsChild.id, mpcChild.id])
    expect(await ids(`parentID=${parent.id}&mpcAccountID=acct-other`)).toEqual([ecsChild.id, other.id])
    // Another tenant sees none of them.
    expect((await h.request('GET', '/vaults?mpcAccountID=acct-filter', { token: TENANT_B })).body.vaults).toEqual([])
  })

  it('by id with any other filter (was a 500): the vault when it passes them all, as the listing without id says', async () => {
    const parent = (await h.request('POST', '/vaults', { json: { name: 'id-parent' } })).body.vault
    const ecsChild = (await h.request('POST', '/vaults', { json: { name: 'id-ecs-child', parentID: parent.id } })).body.vault
    const childBody = mpcVaultBody({ parentID: parent.id, mpcAccountID: 'acct-id', mpcVaultID: 'id-vault' })
    const mpcChild = (await h.request('POST', '/vaults', { json: childBody })).body.vault
    const mpcRoot = (await h.request('POST', '/vaults', { json: mpcVaultBody({ mpcAccountID: 'acct-id' }) })).body.vault
    const listed = async (query: URLSearchParams) => {
      const res = await h.request('GET', `/vaults?${query.toString()}`)
      expect(res.status, `${query.toString()}: ${JSON.stringify(res.body)}`).toBe(200)
      return res.body.vaults.map((v: { id: string }) => v.id)
    }
    // The exact request of the report.
    expect(await listed(new URLSearchParams({ id: mpcRoot.id, mpcAccountID: 'acct-id' }))).toEqual([mpcRoot.id])
    expect(await listed(new URLSearchParams({ id: ecsChild.id, mpcAccountID: 'acct-id' }))).toEqual([])
    expect(await listed(new URLSearchParams({ id: mpcChild.id, parentID: parent.id }))).toEqual([])
    expect(await listed(new URLSearchParams({ id: mpcChild.id, parentID: parent.id, mpcAccountID: 'acct-id' }))).toEqual([mpcChild.id])

    const filters = { parentID: [parent.id], mpcAccountID: ['acct-id', 'acct-none'], mpcVaultID: ['id-vault'] }
    for (const id of [parent.id, ecsChild.id, mpcChild.id, mpcRoot.id, 'no-such-vault']) {
      for (const others of filterCombinations(filters)) {
        const withoutId = (await listed(new URLSearchParams(others))).filter((found: string) => found === id)
        expect(await listed(new URLSearchParams({ ...others, id })), JSON.stringify({ id, ...others })).toEqual(withoutId)
      }
    }
    // A listing by id is one page: a cursor with it is the caller's mistake.
    expectError(await h.request('GET', `/vaults?id=${mpcRoot.id}&cursor=abc`), 422, 'VALIDATION_ERROR')
  })
})

/** Every combination of the filters: each absent or one of its values. */
function filterCombinations(filters: Record<string, string[]>): Array<Record<string, string>> {
  let combinations: Array<Record<string, string>> = [{}]
  for (const [name, values] of Object.entries(filters)) {
    combinations = combinations.flatMap((c) => [c, ...values.map((value) => ({ ...c, [name]: value }))])
  }
  return combinations
}

describe('bad input: error body, nothing written', () => {
  const group = (g: Record<string, unknown>) => ({
    name: 'g',
    requiredApprovals: 1,
    members: [{ id: 'did:ethr:dev:0x' + '22'.repeat(20) }],
    ...g,
  })
  const twoMembers = () => [{ id: members[0].did }, { id: members[1].did }]

  it.each([
    ['requiredApprovals 0', () => mpcVaultBody({ mpcGroups: [group({ requiredApprovals: 0 })] })],
    ['requiredApprovals negative', () => mpcVaultBody({ mpcGroups: [group({ requiredApprovals: -1 })] })],
    ['requiredApprovals fractional', () => mpcVaultBody({ mpcGroups: [group({ requiredApprovals: 1.5, members: twoMembers() })] })],
    [
      'requiredApprovals above the member count',
      () => mpcVaultBody({ mpcGroups: [group({ requiredApprovals: 3, members: twoMembers() })] }),
    ],
    ['duplicate member ids', () => mpcVaultBody({ mpcGroups: [group({ members: [{ id: members[0].did }, { id: members[0].did }] })] })],
    [
      'duplicate member ids in another spelling',
      () => mpcVaultBody({ mpcGroups: [group({ members: [{ id: members[0].did }, { id: members[0].did.toLowerCase() }] })] }),
    ],
    ['a member that is not a DID', () => mpcVaultBody({ mpcGroups: [group({ members: [{ id: 'alice' }] })] })],
    ['mpcGroups missing', () => mpcVaultBody({ mpcGroups: undefined })],
    ['mpcGroups empty', () => mpcVaultBody({ mpcGroups: [] })],
    ['mpcAccountID missing', () => mpcVaultBody({ mpcAccountID: undefined })],
    ['MPC fields on an ECS vault (refused, not ignored)', () => ({ name: 'ecs', mpcAccountID: 'a', mpcGroups: [group({})] })],
    ['mpcVaultID on an ECS vault', () => ({ name: 'ecs', mpcVaultID: 'v' })],
    ['a group mpcAccountID that differs from the vault’s', () => mpcVaultBody({ mpcGroups: [group({ mpcAccountID: 'other' })] })],
  ])('Create Identity Vault with %s: 422', async (_name, body) => {
    const before = await snapshot(h)
    expectError(await h.request('POST', '/vaults', { json: body() }), 422, 'VALIDATION_ERROR')
    expect(await snapshot(h)).toEqual(before)
  })

  it('initialize an ECS vault: 422; another tenant’s vault: 422 NOT_FOUND; an unknown one: 422 NOT_FOUND', async () => {
    const ecs = (await h.request('POST', '/vaults', { json: { name: 'ecs' } })).body.vault
    const mpc = (await h.request('POST', '/vaults', { json: mpcVaultBody() })).body.vault
    const quorum = await tokens(members[0], members[1])
    const before = await snapshot(h)
    expectError(await h.request('POST', `/vaults/${ecs.id}/initialize`, { json: {}, didAuth: quorum }), 422, 'VALIDATION_ERROR')
    expectError(await h.request('POST', `/vaults/${mpc.id}/initialize`, { json: {}, didAuth: quorum, token: TENANT_B }), 422, 'NOT_FOUND')
    expectError(await h.request('POST', '/vaults/nope/initialize', { json: {}, didAuth: quorum }), 422, 'NOT_FOUND')
    expect(await snapshot(h)).toEqual(before)
  })

  it('initialize without x-did-auth: 403 UNAUTHENTICATED', async () => {
    const mpc = (await h.request('POST', '/vaults', { json: mpcVaultBody() })).body.vault
    expectError(await h.request('POST', `/vaults/${mpc.id}/initialize`, { json: {} }), 403, 'UNAUTHENTICATED')
  })
})

describe('the embedded API: approvals through the mpc.approve callback', () => {
  it('tops up the request’s own approvals; non-members it names do not count; it is not asked when the tokens suffice', async () => {
    const asked: ApprovalRequest[] = []
    let answer: string[] = []
    const e = await startHarness({ service: { mpc: { approve: (request) => (asked.push(request), answer) } } })
    try {
      const auth = { authorization: 'Bearer token-tenant-a-0123456789' }
      const { vault } = await e.service.createVault(mpcVaultBody(), auth)
      answer = [members[1].did]
      await e.service.initializeVault({ vaultID: vault.id }, { ...auth, didAuth: await tokens(members[0]) })
      expect(asked).toHaveLength(1)
      expect(asked[0]).toMatchObject({
        action: 'initialize',
        tenantId: 'tenant-a',
        vaultId: vault.id,
        mpcVaultID: vault.mpcVault!.id,
        approvedBy: [members[0].did],
      })

      answer = [members[0].did, members[2].did]
      // An outsider's valid token satisfies the DID-auth requirement but approves nothing: the callback's two members do.
      const { wallet } = await e.service.createVaultWallet({ vaultID: vault.id }, { ...auth, didAuth: await tokens(await member()) })
      expect(asked[1]).toMatchObject({ action: 'createWallet', approvedBy: [] })

      answer = [members[1].did]
      const token = await e.service.generateToken({ iss: wallet.did }, { ...auth, didAuth: await tokens(members[0]) })
      expect(await verifyDidAuthToken(token.jwt, e.service.didAuthOptions)).toBe(wallet.did)
      expect(asked[2]).toMatchObject({
        action: 'sign',
        wallet: { did: wallet.did, address: wallet.ethereumAddress },
        approvedBy: [members[0].did],
      })
      expect(asked[2].digestHex).toMatch(/^[0-9a-f]{64}$/)
      // The token is signed twice (its JWT and its JSON-LD proof): each signature asks for its own approval.
      expect(asked).toHaveLength(4)
      expect(asked[3]).toMatchObject({ action: 'sign', wallet: { did: wallet.did } })
      expect(asked[3].digestHex).not.toBe(asked[2].digestHex)

      answer = ['did:ethr:dev:0x' + '44'.repeat(20), members[1].did]
      await expect(e.service.generateToken({ iss: wallet.did }, auth)).rejects.toMatchObject({ statusCode: 403, errorType: 'FORBIDDEN' })
      expect(asked).toHaveLength(5)

      await e.service.generateToken({ iss: wallet.did }, { ...auth, didAuth: await tokens(members[0], members[2]) })
      expect(asked).toHaveLength(5)
    } finally {
      await e.close()
    }
  })
})

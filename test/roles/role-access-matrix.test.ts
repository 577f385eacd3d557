/**
 * The access matrix of roles, as data: caller kind × action → outcome, every row run through
 * the real HTTP router with a fresh role. Each row asserts the status, the error body (of the
 * request, or of the batch item) and, for every refusal, that nothing was written.
 *
 * The resource of every row is a role T created by the creator and assigned to the row's
 * assignee (T has `Read` for "assignee with Read" rows, `Write` for "assignee with Write"
 * rows) and to a second wallet; "role wallet" is T's backing wallet. The credential columns
 * of the same callers are decided in test/unit/access-policy.test.ts and run through the
 * credential routes in test/http/claims-store.test.ts; grants over credentials are the second
 * matrix below.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accountNodeOf, deriveWalletKey } from '../../src/keys/hd.js'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import type { RoleAssignmentRecord, RoleRecord } from '../../src/roles/records.js'
import type { WalletRecord } from '../../src/wallets/records.js'
import { expectError, snapshot, startHarness, TENANT_B, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'
import { mintToken } from '../helpers/tokens.js'

type Caller =
  'creator' | 'roleOwner' | 'assigneeRead' | 'assigneeWrite' | 'delegateKey' | 'otherDid' | 'otherTenantDid' | 'noToken' | 'expiredToken'
type Action = 'create' | 'see' | 'update' | 'delete' | 'assign' | 'unassign' | 'listAssignments' | 'renameRoleWallet'
/**
 * `allowed`: done (batch: 200, no errors, the effect stored). `FORBIDDEN` / `NOT_FOUND`: the
 * batch item fails with that error (200). `UNAUTHENTICATED`: the request fails with 403.
 * `listed` / `not listed`: whether Get Roles shows T. `all` / `own` / `none`: which of T's
 * assignments its listing shows (both, the caller's own, none).
 */
type Outcome = 'allowed' | 'FORBIDDEN' | 'NOT_FOUND' | 'UNAUTHENTICATED' | 'listed' | 'not listed' | 'all' | 'own' | 'none'

const ACTIONS: Action[] = ['create', 'see', 'update', 'delete', 'assign', 'unassign', 'listAssignments', 'renameRoleWallet']
const UNAUTHENTICATED: Outcome[] = ACTIONS.map(() => 'UNAUTHENTICATED')

// prettier-ignore
const MATRIX: Record<Caller, Outcome[]> = {
  //                create        see           update        delete        assign        unassign      listAssignments  renameRoleWallet
  creator:        ['allowed',    'listed',     'allowed',    'allowed',    'allowed',    'allowed',    'all',           'FORBIDDEN'],
  roleOwner:      ['allowed',    'listed',     'allowed',    'allowed',    'allowed',    'allowed',    'all',           'allowed'],
  assigneeRead:   ['allowed',    'listed',     'FORBIDDEN',  'FORBIDDEN',  'FORBIDDEN',  'FORBIDDEN',  'own',           'FORBIDDEN'],
  assigneeWrite:  ['allowed',    'listed',     'FORBIDDEN',  'FORBIDDEN',  'FORBIDDEN',  'FORBIDDEN',  'own',           'FORBIDDEN'],
  delegateKey:    ['FORBIDDEN',  'not listed', 'FORBIDDEN',  'FORBIDDEN',  'FORBIDDEN',  'FORBIDDEN',  'none',          'FORBIDDEN'],
  otherDid:       ['allowed',    'not listed', 'FORBIDDEN',  'FORBIDDEN',  'FORBIDDEN',  'FORBIDDEN',  'none',          'FORBIDDEN'],
  // Its valid token rides on tenant A's Base Auth Token, but a request never acts through another tenant's wallet;
  // as an Access Token it selects its own tenant B, where T does not exist.
  otherTenantDid: ['FORBIDDEN',  'not listed', 'FORBIDDEN',  'FORBIDDEN',  'FORBIDDEN',  'NOT_FOUND',  'none',          'FORBIDDEN'],
  noToken:        UNAUTHENTICATED,
  expiredToken:   UNAUTHENTICATED,
}

const ROWS = (Object.entries(MATRIX) as Array<[Caller, Outcome[]]>).flatMap(([caller, outcomes]) =>
  ACTIONS.map((action, i) => ({ caller, action, outcome: outcomes[i] })),
)

let h: Harness
let creator: { did: string; jwt: string; expired: string; byDelegate: string }
let assigneeRead: { did: string; jwt: string }
let assigneeWrite: { did: string; jwt: string }
let other: { did: string; jwt: string }
let second: { did: string; jwt: string }
let otherTenant: { did: string; jwt: string }

beforeAll(async () => {
  h = await startHarness()
  // The creator is a BIP44 vault's first wallet: its key derives from the mnemonic, so the test can sign an expired token with it.
  const vault = (await h.request('POST', '/vaults', { json: { name: 'creator', hierarchy: 'BIP44' } })).body.vault
  const creatorKey = deriveWalletKey(accountNodeOf(vault.mnemonic), 0)
  const did = vault.wallets[0].did
  expect(new LocalSigner(creatorKey).address).toBe(vault.wallets[0].ethereumAddress)
  // the same key's unexpired token is accepted: the expired row fails on its expiry alone
  expect((await h.request('GET', '/roles', { didAuth: (await mintToken({ iss: did, signerKey: creatorKey })).jwt })).status).toBe(200)
  const jwt = await tokenFor(h, did)
  const delegateKey = generatePrivateKey()
  const delegated = await h.request('POST', '/wallet/configure', {
    json: {
      wallet: { did },
      walletConfig: { txsInput: [{ delegate: { address: new LocalSigner(delegateKey).address, validity: 3_600_000 } }] },
    },
    didAuth: jwt,
  })
  expect(delegated.body.wallet.registry.errors).toEqual([])
  creator = {
    did,
    jwt,
    expired: (await mintToken({ iss: did, signerKey: creatorKey, iatIn: -1_200, expIn: -600 })).jwt,
    byDelegate: (await mintToken({ iss: did, signerKey: delegateKey })).jwt,
  }
  assigneeRead = await walletWithToken(h)
  assigneeWrite = await walletWithToken(h)
  other = await walletWithToken(h)
  second = await walletWithToken(h)
  otherTenant = await walletWithToken(h, TENANT_B)
})
afterAll(() => h.close())

/** The world of one row: a fresh role T assigned to the row's holder and to `second`, and the caller's token. */
async function arrange(caller: Caller) {
  const res = await h.request('POST', '/roles', {
    json: { permissions: [caller === 'assigneeWrite' ? 'Write' : 'Read'] },
    didAuth: creator.jwt,
  })
  expect(res.status).toBe(200)
  const role: string = res.body.role.did
  const holder = caller === 'assigneeWrite' ? assigneeWrite.did : assigneeRead.did
  expect(
    (
      await h.request('POST', '/roles/assignmnets', {
        json: {
          assignments: [
            { role, did: holder },
            { role, did: second.did },
          ],
        },
        didAuth: creator.jwt,
      })
    ).body.errors,
  ).toEqual([])
  const tokens: Record<Caller, string | undefined> = {
    creator: creator.jwt,
    roleOwner: await tokenFor(h, role),
    assigneeRead: assigneeRead.jwt,
    assigneeWrite: assigneeWrite.jwt,
    delegateKey: creator.byDelegate,
    otherDid: other.jwt,
    otherTenantDid: otherTenant.jwt,
    noToken: undefined,
    expiredToken: creator.expired,
  }
  /** The DID the caller's token names (a role it creates has it as creator). */
  const acting: Partial<Record<Caller, string>> = {
    creator: creator.did,
    roleOwner: role,
    assigneeRead: assigneeRead.did,
    assigneeWrite: assigneeWrite.did,
    otherDid: other.did,
  }
  return { role, holder, token: tokens[caller], acting: acting[caller] }
}

type World = Awaited<ReturnType<typeof arrange>>

/** Sends the row's request: `x-did-auth` with tenant A's Base Auth Token, or the token as the Access Token JWT (unassign). */
function act(action: Action, w: World) {
  const didAuth = w.token
  switch (action) {
    case 'create':
      return h.request('POST', '/roles', { json: { description: 'created by the caller' }, didAuth })
    case 'see':
      return h.request('GET', '/roles', { didAuth })
    case 'update':
      return h.request('PUT', '/roles', { json: { did: w.role, description: 'changed' }, didAuth })
    case 'delete':
      return h.request('DELETE', '/roles', { json: { dids: [w.role] }, didAuth })
    case 'assign':
      return h.request('POST', '/roles/assignmnets', { json: { assignments: [{ role: w.role, did: other.did }] }, didAuth })
    case 'unassign':
      return h.request('DELETE', '/roles/assignmnets', { json: { assignments: [{ role: w.role, did: w.holder }] }, token: w.token ?? null })
    case 'listAssignments':
      return h.request('GET', `/roles/assignmnets?role=${encodeURIComponent(w.role)}`, { didAuth })
    case 'renameRoleWallet':
      return h.request('POST', '/wallet/rename', { json: { wallets: [{ did: w.role, alias: `renamed ${w.role}` }] }, didAuth })
  }
}

const stored = {
  role: (did: string) => h.storage.collection<RoleRecord>('roles').findOne({ field: 'did', op: 'eq', value: did }),
  wallet: (did: string) => h.storage.collection<WalletRecord>('wallets').findOne({ field: 'did', op: 'eq', value: did }),
  assignment: (role: string, did: string) =>
    h.storage.collection<RoleAssignmentRecord>('roleAssignments').findOne({
      and: [
        { field: 'role', op: 'eq', value: role },
        { field: 'did', op: 'eq', value: did },
      ],
    }),
}

/** What an allowed batch action must have stored. */
async function expectEffect(action: Action, w: World, res: { body: any }) {
  switch (action) {
    case 'create':
      expect(await stored.role(res.body.role.did)).toMatchObject({ description: 'created by the caller', creator: w.acting })
      return
    case 'update':
      expect((await stored.role(w.role))?.description).toBe('changed')
      return
    case 'delete':
      expect(await stored.role(w.role)).toBeUndefined()
      expect(await stored.wallet(w.role)).toBeUndefined()
      expect(await stored.assignment(w.role, w.holder)).toBeUndefined()
      return
    case 'assign':
      expect(await stored.assignment(w.role, other.did)).toBeDefined()
      return
    case 'unassign':
      expect(await stored.assignment(w.role, w.holder)).toBeUndefined()
      expect(await stored.assignment(w.role, second.did)).toBeDefined()
      return
    case 'renameRoleWallet':
      expect((await stored.wallet(w.role))?.alias).toBe(`renamed ${w.role}`)
      return
  }
}

describe('access matrix of roles through HTTP (caller × action → outcome)', () => {
  it('covers every caller kind and every action', () => {
    expect(ROWS).toHaveLength(9 * 8)
  })

  it.each(ROWS)('$caller → $action: $outcome', async ({ caller, action, outcome }) => {
    const w = await arrange(caller)
    const before = await snapshot(h)
    const res = await act(action, w)
    if (outcome === 'UNAUTHENTICATED') {
      expectError(res, 403, 'UNAUTHENTICATED')
    } else if (action === 'see') {
      expect(res.status).toBe(200)
      expect(res.body.roles.some((r: { did: string }) => r.did === w.role)).toBe(outcome === 'listed')
    } else if (action === 'listAssignments') {
      expect(res.status).toBe(200)
      const expected = { all: [w.holder, second.did].sort(), own: [w.holder], none: [] }[outcome as 'all' | 'own' | 'none']
      expect(res.body.assignments.map((a: { did: string }) => a.did)).toEqual(expected)
    } else if (outcome === 'allowed') {
      expect(res.status).toBe(200)
      if (action !== 'create') expect(res.body.errors).toEqual([])
      await expectEffect(action, w, res)
      return
    } else if (action === 'create') {
      expectError(res, 403, outcome)
    } else {
      expect(res.status).toBe(200)
      expect(res.body.errors).toHaveLength(1)
      const { error } = res.body.errors[0]
      expect(Object.keys(error).sort()).toEqual(['errorMessage', 'errorType', 'statusCode'])
      expect(error).toMatchObject({ statusCode: outcome === 'FORBIDDEN' ? 403 : 422, errorType: outcome })
    }
    // Refused (or only read): nothing written.
    expect(await snapshot(h)).toEqual(before)
  })
})

/**
 * Grants over credentials, as data (issue 16): can a user of the same tenant give herself
 * someone's credential? The resource is Alice's private credential C with claim DID X; the
 * caller manages a role R of its own and tries to grant it over X (Create Role Assignments),
 * and to store a copy of C with `roles: [R]` (Store). Credential kinds: `own` — the caller also
 * holds X's owner key; `foreign` — it does not; `shared` — it does not, and X is carried by a
 * forged copy of its own as well (a record its own Write role reaches). Write: `none`;
 * `governing` — a Write role assigned to X by its owner, held by the caller; `listed` — a Write
 * role only listed in C's `roles`, held by the caller. Every row asserts the item's outcome, the
 * assignment it leaves (governing or not), what a holder of R can read, and for a refusal that
 * nothing was written.
 */
type CredentialKind = 'own' | 'foreign' | 'shared'
type WriteKind = 'none' | 'governing' | 'listed'
type GrantOutcome = { grant: 'allowed' | 'FORBIDDEN'; storeGoverns: boolean }

// prettier-ignore
const GRANTS: Array<[CredentialKind, WriteKind, GrantOutcome]> = [
  ['own',     'none',      { grant: 'allowed',   storeGoverns: true }],
  ['own',     'governing', { grant: 'allowed',   storeGoverns: true }],
  ['own',     'listed',    { grant: 'allowed',   storeGoverns: true }],
  ['foreign', 'none',      { grant: 'FORBIDDEN', storeGoverns: false }],
  ['foreign', 'governing', { grant: 'allowed',   storeGoverns: true }],
  ['foreign', 'listed',    { grant: 'FORBIDDEN', storeGoverns: false }],
  ['shared',  'none',      { grant: 'FORBIDDEN', storeGoverns: false }],
  ['shared',  'governing', { grant: 'allowed',   storeGoverns: true }],
  ['shared',  'listed',    { grant: 'FORBIDDEN', storeGoverns: false }],
]

describe('grants over credentials through HTTP (credential × Write held → grant, store)', () => {
  let alice: { did: string; jwt: string }
  let eve: { did: string; jwt: string }
  let reader: { did: string; jwt: string }
  beforeAll(async () => {
    alice = await walletWithToken(h)
    eve = await walletWithToken(h)
    reader = await walletWithToken(h)
  })

  it('covers every credential kind with every kind of Write', () => {
    expect(GRANTS).toHaveLength(3 * 3)
  })

  const assign = (json: unknown, didAuth: string) => h.request('POST', '/roles/assignmnets', { json, didAuth })
  const newRole = async (by: { jwt: string }, permissions: string[]) =>
    (await h.request('POST', '/roles', { json: { permissions }, didAuth: by.jwt })).body.role.did as string
  const governs = async (role: string, did: string) => (await stored.assignment(role, did))?.governsCredentials === true

  /** Alice's credential C with claim DID X, Eve's Write as the row says, Eve's role R held by `reader`, and Eve's tokens. */
  async function world(kind: CredentialKind, write: WriteKind) {
    const signed = await h.request('POST', '/claims/sign', {
      json: { iss: alice.did, sub: reader.did, claims: [{ payload: {} }] },
      didAuth: alice.jwt,
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const vc = signed.body.vcs[0] as { id: string; jsonld: Record<string, unknown> }
    const xOwner = await tokenFor(h, vc.id)
    let roles: string[] = []
    if (write !== 'none') {
      const writers = await newRole(alice, ['Write'])
      const grants = [{ role: writers, did: eve.did }, ...(write === 'governing' ? [{ role: writers, did: vc.id }] : [])]
      const res = await assign({ assignments: grants }, `${alice.jwt},${xOwner}`)
      expect(res.body.errors).toEqual([])
      if (write === 'listed') roles = [writers]
    }
    const c = await h.request('POST', '/claims', { json: { roles, claims: [{ jsonld: vc.jsonld }] }, didAuth: alice.jwt })
    expect(c.status).toBe(200)
    if (kind === 'shared') {
      const forgedRole = await newRole(eve, ['Write'])
      expect((await assign({ assignments: [{ role: forgedRole, did: eve.did }] }, eve.jwt)).body.errors).toEqual([])
      const forged = { ...vc.jsonld, issuanceDate: '2020-01-01T00:00:00Z' }
      expect(
        (await h.request('POST', '/claims', { json: { roles: [forgedRole], claims: [{ jsonld: forged }] }, didAuth: eve.jwt })).status,
      ).toBe(200)
    }
    const role = await newRole(eve, ['Read'])
    expect((await assign({ assignments: [{ role, did: reader.did }] }, eve.jwt)).body.errors).toEqual([])
    const tokens = kind === 'own' ? `${eve.jwt},${xOwner}` : eve.jwt
    return { vc, credential: c.body.vcs[0]._id as string, role, tokens }
  }

  /** Whether the holder of Eve's role R reads Alice's C (it is not the subject's: `reader` is, so ask by a second holder). */
  async function rReaches(role: string, credential: string, id: string) {
    const holder = await walletWithToken(h)
    expect((await assign({ assignments: [{ role, did: holder.did }] }, eve.jwt)).body.errors).toEqual([])
    const res = await h.request('GET', `/claims?ids=${encodeURIComponent(id)}`, { didAuth: holder.jwt })
    return res.body.vcs.some((v: { _id: string }) => v._id === credential)
  }

  it.each(GRANTS)('%s credential, Write %s → grant %o', async (kind, write, outcome) => {
    const w = await world(kind, write)
    const before = await snapshot(h)
    const res = await assign({ assignments: [{ role: w.role, did: w.vc.id }] }, w.tokens)
    expect(res.status).toBe(200)
    if (outcome.grant === 'allowed') {
      expect(res.body.errors).toEqual([])
      expect(res.body.assignments).toEqual([expect.objectContaining({ role: w.role, did: w.vc.id, governsCredentials: true })])
      expect(await governs(w.role, w.vc.id)).toBe(true)
    } else {
      expect(res.body.assignments).toEqual([])
      expect(res.body.errors).toEqual([
        { assignment: { role: w.role, did: w.vc.id }, error: expect.objectContaining({ statusCode: 403, errorType: 'FORBIDDEN' }) },
      ])
      expect(await snapshot(h)).toEqual(before)
    }
    expect(await rReaches(w.role, w.credential, w.vc.id)).toBe(outcome.grant === 'allowed')
  })

  it.each(GRANTS)('%s credential, Write %s → store with roles %o', async (kind, write, outcome) => {
    const w = await world(kind, write)
    const copy = { ...w.vc.jsonld, expirationDate: '2999-01-01T00:00:00Z' }
    const res = await h.request('POST', '/claims', { json: { roles: [w.role], claims: [{ jsonld: copy }] }, didAuth: w.tokens })
    expect(res.status).toBe(200)
    expect(res.body.vcs[0]).toMatchObject({ id: w.vc.id, roles: [w.role] })
    expect(await governs(w.role, w.vc.id)).toBe(outcome.storeGoverns)
    expect(await rReaches(w.role, w.credential, w.vc.id)).toBe(outcome.storeGoverns)
  })
})

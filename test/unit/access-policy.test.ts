/**
 * The access policy's credential decisions, as data, at the level of the pure decisions: the
 * callers' facts are gathered by the real `CallerFacts` over a real service (roles created
 * and assigned through it), the credential's facts are what the credential operations gather
 * (the roles governing its DID through the same `rolesGoverning` query), and the pure
 * decisions are asked. The same callers run through the real credential routes in
 * test/http/claims-store.test.ts and test/roles/role-access-matrix.test.ts. A further table
 * covers the grounds that do not involve roles (public, stored, issued, subject, DID owner).
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CallerFacts } from '../../src/roles/caller-facts.js'
import { rolesGoverning } from '../../src/credentials/facts.js'
import { canDeleteCredential, canReadCredential, canWriteCredential, type CredentialFacts } from '../../src/credentials/policy.js'
import { readerFactsAbout } from '../../src/credentials/reader-facts.js'
import { grants, type HoldingFacts } from '../../src/auth/policy-engine.js'
import { RULES } from '../../src/service/access-rules.js'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import { startHarness, TENANT_A, TENANT_B, walletWithToken, type Harness } from '../helpers/harness.js'

type Can = { read: boolean; write: boolean; delete: boolean }
/** The credentials of these tables list no role in their records: the roles of their facts govern their DIDs. */
const readerOf = (c: HoldingFacts, v: CredentialFacts) =>
  readerFactsAbout(c, v.did === undefined ? undefined : { did: v.did, controllingKeys: v.controllingKeys, roles: v.roles })
const decisions = (c: HoldingFacts, v: CredentialFacts): Can => ({
  read: canReadCredential(readerOf(c, v), { ...v, roles: [] }),
  write: canWriteCredential(c, v),
  delete: canDeleteCredential(c, v),
})

describe('grants: Write implies Read', () => {
  it.each([
    [['Read'], 'Read', true],
    [['Read'], 'Write', false],
    [['Write'], 'Read', true],
    [['Write'], 'Write', true],
    [[], 'Read', false],
    [undefined, 'Read', false],
  ] as const)('%j grants %s: %s', (permissions, need, expected) => {
    expect(grants(permissions, need)).toBe(expected)
  })
})

describe('credential columns of the access matrix (facts gathered from a real service)', () => {
  let h: Harness
  let facts: CallerFacts
  /** A wallet DID standing in for the stored credential's DID: assignments governing it are the same records. */
  let credentialDid: string
  const callers = {} as Record<string, { dids: string[]; addresses: string[]; tenantId: string }>

  beforeAll(async () => {
    h = await startHarness()
    facts = new CallerFacts(h.service.resolver, h.storage)
    const api = (didAuth: string) => h.service.as({ authorization: `Bearer ${TENANT_A}`, didAuth })
    const creator = await walletWithToken(h)
    const [read, write, other, credential] = [
      await walletWithToken(h),
      await walletWithToken(h),
      await walletWithToken(h),
      await walletWithToken(h),
    ]
    const x = await walletWithToken(h, TENANT_B)
    credentialDid = credential.did
    const readRole = (await api(creator.jwt).createRole({ permissions: ['Read'] })).role.did
    const writeRole = (await api(creator.jwt).createRole({ permissions: ['Write'] })).role.did
    const assigned = await api(creator.jwt).createRoleAssignments({
      assignments: [
        { role: readRole, did: read.did },
        { role: writeRole, did: write.did },
      ],
    })
    expect(assigned.errors).toEqual([])
    // Granted over the credential DID by the creator holding that DID's owner key too: the roles govern it.
    const governing = await api(`${creator.jwt},${credential.jwt}`).createRoleAssignments({
      assignments: [
        { role: readRole, did: credentialDid },
        { role: writeRole, did: credentialDid },
      ],
    })
    expect(governing.errors).toEqual([])
    expect(governing.assignments.map((a) => a.governsCredentials)).toEqual([true, true])
    const address = async (did: string) => (await facts.controllingKeys(did))[0]
    const delegate = new LocalSigner(generatePrivateKey())
    await api(creator.jwt).configureWallet({
      wallet: { did: creator.did },
      walletConfig: { txsInput: [{ delegate: { address: delegate.address, validity: 600_000 } }] },
    })
    // What the Authenticator makes of each caller's token: the DID it names, the address of the key that signed.
    callers.creator = { tenantId: 'tenant-a', dids: [creator.did], addresses: [await address(creator.did)] }
    callers.roleOwner = { tenantId: 'tenant-a', dids: [writeRole], addresses: [await address(writeRole)] }
    callers.assigneeRead = { tenantId: 'tenant-a', dids: [read.did], addresses: [await address(read.did)] }
    callers.assigneeWrite = { tenantId: 'tenant-a', dids: [write.did], addresses: [await address(write.did)] }
    callers.delegateKey = { tenantId: 'tenant-a', dids: [creator.did], addresses: [delegate.address] }
    callers.otherDid = { tenantId: 'tenant-a', dids: [other.did], addresses: [await address(other.did)] }
    callers.otherTenantDid = { tenantId: 'tenant-a', dids: [x.did], addresses: [await address(x.did)] }
  })
  afterAll(() => h.close())

  /** A private credential (not public, stored by nobody here) with DID `credentialDid`, both roles governing it. */
  const credentialFor = async (_caller: HoldingFacts): Promise<CredentialFacts> => ({
    did: credentialDid,
    controllingKeys: await facts.controllingKeys(credentialDid),
    selfOwned: false,
    isPublicAccess: false,
    storedBy: [],
    roles: await rolesGoverning(h.storage, 'tenant-a', credentialDid),
  })

  // prettier-ignore
  const MATRIX: Array<[string, Can]> = [
    ['creator',        { read: false, write: false, delete: false }],
    ['roleOwner',      { read: false, write: false, delete: false }],
    ['assigneeRead',   { read: true,  write: false, delete: false }],
    ['assigneeWrite',  { read: true,  write: true,  delete: true }],
    ['delegateKey',    { read: false, write: false, delete: false }],
    ['otherDid',       { read: false, write: false, delete: false }],
    ['otherTenantDid', { read: false, write: false, delete: false }],
  ]

  it.each(MATRIX)('%s: %j', async (name, expected) => {
    const caller = await facts.holding(callers[name])
    expect(decisions(caller, await credentialFor(caller))).toEqual(expected)
  })

  it('the effective roles are the gathered ones: assignee with Write holds exactly that role, with its permissions', async () => {
    const caller = await facts.holding(callers.assigneeWrite)
    expect([...caller.roles.values()]).toEqual([['Write']])
    expect((await facts.holding(callers.delegateKey)).dids.size).toBe(0)
    // once per request: the same caller object gets the same facts
    expect(facts.holding(callers.assigneeWrite)).toBe(facts.holding(callers.assigneeWrite))
  })
})

describe('credential grounds without roles', () => {
  const me = '0x00000000000000000000000000000000000000a1'
  const caller: HoldingFacts = { keys: new Set([me]), dids: new Set(['did:ethr:dev:me']), roles: new Map() }
  const base: CredentialFacts = {
    did: 'did:ethr:dev:vc',
    controllingKeys: ['0x00000000000000000000000000000000000000b2'],
    selfOwned: false,
    isPublicAccess: false,
    storedBy: [],
    roles: new Set(),
  }

  // prettier-ignore
  const ROWS: Array<[string, Partial<CredentialFacts>, Can]> = [
    ['nothing links the caller',                    {},                                                                    { read: false, write: false, delete: false }],
    ['public',                                      { isPublicAccess: true },                                              { read: true,  write: false, delete: false }],
    ['issued it',                                   { issuer: 'did:ethr:dev:me' },                                         { read: true,  write: false, delete: false }],
    ['is its subject',                              { subject: 'did:ethr:dev:me' },                                        { read: true,  write: false, delete: false }],
    ['stored it (its DID owned by another)',        { storedBy: ['did:ethr:dev:me'] },                                     { read: true,  write: false, delete: false }],
    ['stored it, no DID',                           { storedBy: ['did:ethr:dev:me'], did: undefined, controllingKeys: undefined }, { read: true, write: false, delete: true }],
    ['stored it, its DID owns itself',              { storedBy: ['did:ethr:dev:me'], selfOwned: true },                    { read: true,  write: false, delete: true }],
    ['holds the owner key of its DID',              { controllingKeys: [me] },                                             { read: true,  write: true,  delete: true }],
    ['role it does not hold',                       { roles: new Set(['did:ethr:dev:role']) },                             { read: false, write: false, delete: false }],
  ]

  it.each(ROWS)('%s', (_name, change, expected) => {
    expect(decisions(caller, { ...base, ...change })).toEqual(expected)
  })

  it('docs/access-control.md lists every decision with every ground of RULES', () => {
    const doc = readFileSync(new URL('../../docs/access-control.md', import.meta.url), 'utf8')
    for (const [decision, rules] of Object.entries(RULES)) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${decision}\``))
      expect(row, decision).toBeDefined()
      for (const rule of rules) expect(row, `${decision}: ${rule.ground}`).toContain(rule.ground)
    }
  })
})

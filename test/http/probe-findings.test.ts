/**
 * The findings of the outside probe of issue 16, each replayed through HTTP against a SQLite
 * service, as the attacker inside the tenant (Eve: her own wallet and roles, no rights on
 * Alice's credentials) tried them. Each of these failed on the main of before the fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import type { CredentialRecord } from '../../src/credentials/records.js'
import type { RoleAssignmentRecord } from '../../src/roles/records.js'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import { expectError, snapshot, startHarness, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'
import { approvals, member, mpcVaultBody } from '../helpers/mpc.js'
import { mintToken } from '../helpers/tokens.js'

const VOCAB_URL = 'https://example.com/contexts/vocab/v1'
const VOCAB = { '@context': { '@version': 1.1, '@vocab': 'https://example.com/vocab#' } }

type Party = { did: string; _id: string; jwt: string }
type Signed = { id: string; jsonld: Record<string, unknown> }

let h: Harness
let alice: Party
let eve: Party
let bob: Party
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { contexts: { [VOCAB_URL]: VOCAB } } })
  alice = await walletWithToken(h)
  eve = await walletWithToken(h)
  bob = await walletWithToken(h)
})
afterAll(() => h.close())

const ids = (res: { body: { vcs: Array<{ _id: string }> } }) => res.body.vcs.map((v) => v._id)

async function sign(payload: Record<string, unknown>, format: 'JSON-LD' | 'JWT' = 'JSON-LD'): Promise<Signed & { jwt?: string }> {
  const res = await h.request('POST', '/claims/sign', {
    json: { iss: alice.did, format, ...(format === 'JSON-LD' && { context: VOCAB_URL }), claims: [{ payload }] },
    didAuth: alice.jwt,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.vcs[0]
}

async function store(json: Record<string, unknown>, didAuth: string) {
  const res = await h.request('POST', '/claims', { json, didAuth })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res
}

async function role(by: Party, permissions: string[]): Promise<string> {
  const res = await h.request('POST', '/roles', { json: { permissions }, didAuth: by.jwt })
  expect(res.status).toBe(200)
  return res.body.role.did
}

const assignmentsTo = (did: string) =>
  h.storage.collection<RoleAssignmentRecord>('roleAssignments').find({ field: 'did', op: 'eq', value: did }, { limit: 100 })

/** Alice's private credential, stored by her: Eve has no right on it. */
async function alicesPrivateCredential(payload: Record<string, unknown>) {
  const vc = await sign(payload)
  const stored = (await store({ claims: [{ jsonld: vc.jsonld }] }, alice.jwt)).body.vcs[0]
  return { vc, stored }
}

/** What Eve can do to Alice's credential: nothing, and nothing was written by trying. */
async function expectNoRightsFor(who: Party, stored: { _id: string; id: string }) {
  expect(ids(await h.request('GET', '/claims', { didAuth: who.jwt }))).not.toContain(stored._id)
  expect(ids(await h.request('GET', `/claims?ids=${stored.id}`, { didAuth: who.jwt }))).not.toContain(stored._id)
  const before = await snapshot(h)
  const proof = await h.request('PATCH', '/claims', {
    json: { operation: 'addProof', iss: who.did, claims: [{ _id: stored._id }] },
    didAuth: who.jwt,
  })
  expect(proof.body.errors.map((e: any) => e.error.errorType)).toEqual(['FORBIDDEN'])
  const removed = await h.request('DELETE', '/claims', { json: { ids: [stored._id] }, token: who.jwt })
  expect(removed.body.errors.map((e: any) => e.error.errorType)).toEqual(['FORBIDDEN'])
  expect(await snapshot(h)).toEqual(before)
}

describe('finding 1 (High): a tenant user grants herself another user’s credential', () => {
  it('through Create Role Assignments: the item over Alice’s credential is refused (403), nothing of it written; Eve gets no right', async () => {
    const { stored } = await alicesPrivateCredential({ secret: 1 })
    const evesRole = await role(eve, ['Write'])
    const res = await h.request('POST', '/roles/assignmnets', {
      json: {
        assignments: [
          { role: evesRole, did: stored.id },
          { role: evesRole, did: eve.did },
        ],
      },
      didAuth: eve.jwt,
    })
    expect(res.status).toBe(200)
    expect(res.body.errors).toEqual([
      { assignment: { role: evesRole, did: stored.id }, error: expect.objectContaining({ statusCode: 403, errorType: 'FORBIDDEN' }) },
    ])
    expect(res.body.errors[0].error.errorMessage).toMatch(/DID of stored credentials/)
    // Assigning to herself (a principal) is hers to do; over the credential nothing exists.
    expect(res.body.assignments).toEqual([expect.objectContaining({ role: evesRole, did: eve.did })])
    expect((await assignmentsTo(stored.id)).items).toEqual([])
    await expectNoRightsFor(eve, stored)
  })

  it('through Store: a forged copy with Alice’s credential id and Eve’s role reaches Eve’s record only, never Alice’s', async () => {
    const { vc, stored } = await alicesPrivateCredential({ secret: 2 })
    const evesRole = await role(eve, ['Write'])
    expect(
      (await h.request('POST', '/roles/assignmnets', { json: { assignments: [{ role: evesRole, did: eve.did }] }, didAuth: eve.jwt })).body
        .errors,
    ).toEqual([])
    const forged = { ...vc.jsonld, credentialSubject: { secret: 'forged' } }
    const mine = (await store({ roles: [evesRole], claims: [{ jsonld: forged }] }, eve.jwt)).body.vcs[0]
    expect(mine).toMatchObject({ id: stored.id, roles: [evesRole], storedBy: [eve.did] })
    expect(mine._id).not.toBe(stored._id)
    expect((await assignmentsTo(stored.id)).items).toEqual([])
    expect(ids(await h.request('GET', `/claims?ids=${stored.id}`, { didAuth: eve.jwt }))).toEqual([mine._id])
    await expectNoRightsFor(eve, stored)
    // With the forged copy (which her role reaches) in hand, a grant over the shared DID is still refused.
    const grant = await h.request('POST', '/roles/assignmnets', {
      json: { assignments: [{ role: evesRole, did: stored.id }] },
      didAuth: eve.jwt,
    })
    expect(grant.body.errors.map((e: any) => e.error.errorType)).toEqual(['FORBIDDEN'])
    await expectNoRightsFor(eve, stored)
  })

  it('ahead of time: a role Eve assigns to a claim DID before Alice stores its credential does not reach the credential', async () => {
    const vc = await sign({ secret: 3 })
    const evesRole = await role(eve, ['Write'])
    // The claim DID is a wallet of the tenant: assigning to it is a principal's grant, allowed, governing nothing.
    const early = await h.request('POST', '/roles/assignmnets', {
      json: {
        assignments: [
          { role: evesRole, did: vc.id },
          { role: evesRole, did: eve.did },
        ],
      },
      didAuth: eve.jwt,
    })
    expect(early.body.errors).toEqual([])
    expect(early.body.assignments[0]).toMatchObject({ did: vc.id, governsCredentials: false })
    const stored = (await store({ claims: [{ jsonld: vc.jsonld }] }, alice.jwt)).body.vcs[0]
    await expectNoRightsFor(eve, stored)
  })

  it('the owner of the credential’s DID grants a role over it: the holder reads, writes and deletes it', async () => {
    const { vc, stored } = await alicesPrivateCredential({ shared: true })
    const writers = await role(alice, ['Write'])
    const owner = `${alice.jwt},${await tokenFor(h, vc.id)}`
    const res = await h.request('POST', '/roles/assignmnets', {
      json: {
        assignments: [
          { role: writers, did: stored.id },
          { role: writers, did: bob.did },
        ],
      },
      didAuth: owner,
    })
    expect(res.body.errors).toEqual([])
    expect(res.body.assignments.map((a: any) => a.governsCredentials)).toEqual([true, false])
    expect(ids(await h.request('GET', '/claims', { didAuth: bob.jwt }))).toContain(stored._id)
    const proof = await h.request('PATCH', '/claims', {
      json: { operation: 'addProof', iss: bob.did, claims: [{ _id: stored._id }] },
      didAuth: bob.jwt,
    })
    expect(proof.body.errors).toEqual([])
    expect((await h.request('DELETE', '/claims', { json: { ids: [stored._id] }, token: bob.jwt })).body.vcs.map((v: any) => v._id)).toEqual(
      [stored._id],
    )
  })
})

describe('finding 1, at its root: raising a role’s permissions is a grant wherever the role reaches', () => {
  it('a co-manager of a role that governs Alice’s credential cannot raise it to Write; Alice can', async () => {
    // Eve creates R and hands its DID to Alice's key: both manage R (creator, owner of the role DID).
    const created = await h.request('POST', '/roles', {
      json: { permissions: ['Read'], walletConfig: { txsInput: [{ newOwner: alice.did }] } },
      didAuth: eve.jwt,
    })
    expect(created.status).toBe(200)
    const r: string = created.body.role.did
    const { vc, stored } = await alicesPrivateCredential({ governed: true })
    const xOwner = await tokenFor(h, vc.id)
    const granted = await h.request('POST', '/roles/assignmnets', {
      json: {
        assignments: [
          { role: r, did: stored.id },
          { role: r, did: eve.did },
        ],
      },
      didAuth: `${alice.jwt},${xOwner}`,
    })
    expect(granted.body.errors).toEqual([])
    expect(ids(await h.request('GET', '/claims', { didAuth: eve.jwt }))).toContain(stored._id)
    const before = await snapshot(h)
    const raised = await h.request('PUT', '/roles', { json: { did: r, permissions: ['Read', 'Write'] }, didAuth: eve.jwt })
    expect(raised.body.roles).toEqual([])
    expect(raised.body.errors).toEqual([
      expect.objectContaining({ roleDid: r, error: expect.objectContaining({ statusCode: 403, errorType: 'FORBIDDEN' }) }),
    ])
    expect(raised.body.errors[0].message).toMatch(/governs the credentials of/)
    expect(await snapshot(h)).toEqual(before)
    // Its description is still Eve's to change; Alice, with rights over the credential's DID, may raise it.
    expect((await h.request('PUT', '/roles', { json: { did: r, description: 'team' }, didAuth: eve.jwt })).body.errors).toEqual([])
    const byOwner = await h.request('PUT', '/roles', { json: { did: r, permissions: ['Write'] }, didAuth: `${alice.jwt},${xOwner}` })
    expect(byOwner.body.errors).toEqual([])
    expect(byOwner.body.roles[0].permissions).toEqual(['Write'])
  })

  it('a role listed by a stored credential is raised only by its storer or a writer of it', async () => {
    const created = await h.request('POST', '/roles', {
      json: { permissions: ['Read'], walletConfig: { txsInput: [{ newOwner: alice.did }] } },
      didAuth: eve.jwt,
    })
    const r: string = created.body.role.did
    const vc = await sign({ listed: true })
    await store({ roles: [r], claims: [{ jsonld: vc.jsonld }] }, alice.jwt)
    const before = await snapshot(h)
    const raised = await h.request('PUT', '/roles', { json: { did: r, permissions: ['Write'] }, didAuth: eve.jwt })
    expect(raised.body.errors.map((e: any) => e.error.errorType)).toEqual(['FORBIDDEN'])
    expect(raised.body.errors[0].message).toMatch(/is listed by the stored credential/)
    expect(await snapshot(h)).toEqual(before)
    expect((await h.request('PUT', '/roles', { json: { did: r, permissions: ['Write'] }, didAuth: alice.jwt })).body.errors).toEqual([])
  })
})

describe('finding 3 (Medium): addProof must change nothing but the proof set', () => {
  it('a Write-role holder’s addProof with the issuer and claims changed is 422 and leaves the record byte-identical; with the stored document it appends', async () => {
    const writers = await role(alice, ['Write'])
    expect(
      (await h.request('POST', '/roles/assignmnets', { json: { assignments: [{ role: writers, did: bob.did }] }, didAuth: alice.jwt })).body
        .errors,
    ).toEqual([])
    const vc = await sign({ grade: 'B' })
    const stored = (await store({ roles: [writers], claims: [{ jsonld: vc.jsonld }] }, alice.jwt)).body.vcs[0]
    const record = () => h.storage.collection<CredentialRecord>('credentials').get(stored._id)
    const before = await record()
    const rewritten = { ...vc.jsonld, issuer: bob.did, credentialSubject: { grade: 'A+' } }
    const snap = await snapshot(h)
    const res = await h.request('PATCH', '/claims', {
      json: { operation: 'addProof', iss: bob.did, claims: [{ jsonld: rewritten }] },
      didAuth: bob.jwt,
    })
    expect(res.status).toBe(200)
    expect(res.body.vcs).toEqual([])
    expect(res.body.errors).toEqual([{ claim: 0, error: expect.objectContaining({ statusCode: 422, errorType: 'VALIDATION_ERROR' }) }])
    expect(res.body.errors[0].error.errorMessage).toMatch(/differs from the stored credential/)
    expect(await snapshot(h)).toEqual(snap)
    expect(await record()).toEqual(before)
    // The stored document itself (keys in another order: the same text) takes the proof; the first is kept byte for byte.
    const reordered = Object.fromEntries(Object.entries(vc.jsonld).reverse())
    const ok = await h.request('PATCH', '/claims', {
      json: { operation: 'addProof', iss: bob.did, claims: [{ jsonld: reordered }] },
      didAuth: bob.jwt,
    })
    expect(ok.body.errors).toEqual([])
    const after = (await record())!
    expect(after.issuer).toBe(alice.did)
    const document = after.encoded as Record<string, unknown>
    expect(after.format).toBe('JSON-LD')
    expect(document).toMatchObject({ issuer: alice.did, credentialSubject: { grade: 'B' } })
    expect((document.proof as unknown[])[0]).toEqual(vc.jsonld.proof)
    expect(JSON.stringify((document.proof as unknown[])[0])).toBe(JSON.stringify(vc.jsonld.proof))
    // An outsider sending a changed document learns nothing more than FORBIDDEN.
    const probe = await h.request('PATCH', '/claims', {
      json: { operation: 'addProof', iss: eve.did, claims: [{ jsonld: rewritten }] },
      didAuth: eve.jwt,
    })
    expect(probe.body.errors.map((e: any) => e.error.errorType)).toEqual(['FORBIDDEN'])
  })
})

describe('finding 5 (Low): a delegate’s token is not a member’s MPC approval', () => {
  it('a token of member W signed by W’s veriKey delegate does not count; W’s own token does', async () => {
    const w = await walletWithToken(h)
    const delegateKey = generatePrivateKey()
    const configured = await h.request('POST', '/wallet/configure', {
      json: {
        wallet: { did: w.did },
        walletConfig: { txsInput: [{ delegate: { address: new LocalSigner(delegateKey).address, validity: 3_600_000 } }] },
      },
      didAuth: w.jwt,
    })
    expect(configured.body.wallet.registry.errors).toEqual([])
    const [m2, m3] = [await member(), await member()]
    const body = mpcVaultBody([m2, m3], {
      mpcGroups: [{ name: 'signers', requiredApprovals: 2, members: [{ id: w.did }, { id: m2.did }, { id: m3.did }] }],
    })
    const vault = (await h.request('POST', '/vaults', { json: body })).body.vault
    const byDelegate = (await mintToken({ iss: w.did, signerKey: delegateKey })).jwt
    // The delegate's token is a valid DID-auth token of W (it authenticates)…
    expect((await h.request('GET', '/roles', { didAuth: byDelegate })).status).toBe(200)
    // …but no approval: one approval short, nothing written.
    const before = await snapshot(h)
    const short = await h.request('POST', `/vaults/${vault.id}/initialize`, { json: {}, didAuth: `${await approvals(m2)},${byDelegate}` })
    expectError(short, 403, 'FORBIDDEN')
    expect(short.body.errorMessage).toMatch(/1 more approval needed/)
    expect(await snapshot(h)).toEqual(before)
    const init = await h.request('POST', `/vaults/${vault.id}/initialize`, { json: {}, didAuth: `${await approvals(m2)},${w.jwt}` })
    expect(init.status, JSON.stringify(init.body)).toBe(200)
  })
})

describe('finding 6 (Low): re-storing known content discloses nothing of another user’s record', () => {
  it('Eve posting the content of Alice’s private credential gets a record of her own; Alice re-storing gets hers', async () => {
    const writers = await role(alice, ['Write'])
    const vc = await sign({ privateFact: true })
    const alices = (await store({ roles: [writers], claims: [{ jsonld: vc.jsonld }] }, alice.jwt)).body.vcs[0]
    const evesAnswer = (await store({ claims: [{ jsonld: vc.jsonld }] }, eve.jwt)).body.vcs[0]
    expect(evesAnswer._id).not.toBe(alices._id)
    expect(evesAnswer).toMatchObject({ storedBy: [eve.did], roles: [], isPublicAccess: false })
    expect(JSON.stringify(evesAnswer)).not.toContain(alice._id)
    expect(JSON.stringify(evesAnswer)).not.toContain(writers)
    expect(evesAnswer.storedBy).not.toContain(alice.did)
    // Each re-store finds its own caller's record.
    expect((await store({ claims: [{ jsonld: vc.jsonld }] }, eve.jwt)).body.vcs[0]._id).toBe(evesAnswer._id)
    expect((await store({ claims: [{ jsonld: vc.jsonld }] }, alice.jwt)).body.vcs[0]._id).toBe(alices._id)
    // A caller who may read Alice's record (a holder of her role) gets it.
    expect(
      (await h.request('POST', '/roles/assignmnets', { json: { assignments: [{ role: writers, did: bob.did }] }, didAuth: alice.jwt })).body
        .errors,
    ).toEqual([])
    expect((await store({ claims: [{ jsonld: vc.jsonld }] }, bob.jwt)).body.vcs[0]._id).toBe(alices._id)
  })
})

describe('finding 7 (Info): a high-S twin of a stored JWT is the same credential', () => {
  it('storing the twin (s → n − s) returns the stored record', async () => {
    const vc = await sign({ twin: true }, 'JWT')
    const stored = (await store({ claims: [{ jwt: vc.jwt }] }, alice.jwt)).body.vcs[0]
    const [header, payload, signature] = vc.jwt!.split('.')
    const bytes = Buffer.from(signature, 'base64url')
    expect(bytes).toHaveLength(64)
    const n = secp256k1.Point.CURVE().n
    const s = BigInt('0x' + bytes.subarray(32).toString('hex'))
    const twin = Buffer.concat([bytes.subarray(0, 32), Buffer.from((n - s).toString(16).padStart(64, '0'), 'hex')])
    const twinJwt = `${header}.${payload}.${twin.toString('base64url')}`
    expect(twinJwt).not.toBe(vc.jwt)
    const again = (await store({ claims: [{ jwt: twinJwt }] }, alice.jwt)).body.vcs[0]
    expect(again._id).toBe(stored._id)
    expect(await h.storage.collection('credentials').count({ field: 'vcId', op: 'eq', value: vc.id })).toBe(1)
  })
})

/**
 * did:ethr in public-key form through HTTP (DESIGN §4 *did:ethr forms*): a Veramo 7 agent's
 * DIDs (`did:ethr:dev:0x<compressed key>`) resolve, its VC-JWTs verify and store, its DID-auth
 * tokens authenticate; and everywhere a DID is taken, the public-key spellings of a key (33-byte
 * compressed, 65-byte uncompressed) and its address form are one principal — control, `storedBy`,
 * role targets, filters, `newOwner`, MPC members, token `iss` — while answers echo the spelling
 * given. Malformed keys are 422, never 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SigningKey } from 'ethers'
import { decodeJwt } from '../../src/proofs/jwt-verifier.js'
import { expectError, snapshot, startHarness, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'
import { mintToken } from '../helpers/tokens.js'
import { generatePrivateKey } from '../../src/keys/secp256k1.js'
import { veramoAgent, type VeramoIdentity } from '../helpers/veramo.js'

/** A context that defines every term (`@vocab`), so JSON-LD payloads pass safe mode. */
const VOCAB_URL = 'https://example.com/contexts/vocab/v1'
const VOCAB = { '@context': { '@version': 1.1, '@vocab': 'https://example.com/vocab#' } }
const RECOVERY_2020 = 'EcdsaSecp256k1RecoveryMethod2020'

let h: Harness
let issuer: VeramoIdentity
let holder: VeramoIdentity
let keeper: VeramoIdentity
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { contexts: { [VOCAB_URL]: VOCAB } } })
  const agent = veramoAgent('dev', 1337)
  ;[issuer, holder, keeper] = await Promise.all([agent.create(), agent.create(), agent.create()])
})
afterAll(() => h?.close())

const resolve = (did: string) => h.request('GET', `/1.0/identifiers/${encodeURIComponent(did)}`, { token: null })
const idsOf = (res: { body: { vcs: Array<{ _id: string }> } }) => res.body.vcs.map((v) => v._id)
const rename = (did: string, alias: string, didAuth: string) =>
  h.request('POST', '/wallet/rename', { json: { wallets: [{ did, alias }] }, didAuth })
const addressOf = (did: string) => did.split(':').pop()!

/** The DID of the key `publicKeyHex` (a wallet's, uncompressed) in the two public-key spellings. */
function keySpellings(publicKeyHex: string) {
  const uncompressed = `0x${publicKeyHex.replace(/^0x/, '')}`
  return { compressed: `did:ethr:dev:${SigningKey.computePublicKey(uncompressed, true)}`, uncompressed: `did:ethr:dev:${uncompressed}` }
}

/** A wallet of the tenant (and a token of its address DID), with its DID in the two public-key spellings. */
async function walletInEverySpelling() {
  const wallet = await walletWithToken(h)
  const listed = await h.request('GET', `/wallets?did=${encodeURIComponent(wallet.did)}`)
  return { ...wallet, ...keySpellings(listed.body.wallets[0].publicKeyHex) }
}

const malformedKeys = (key: string) => [
  `did:ethr:dev:0x${key.slice(4)}`, // 64 hex
  `did:ethr:dev:${key}0`, // odd length
  `did:ethr:dev:0x02${'ab'.repeat(31)}ac`, // 33 bytes, not a point of the curve
  `did:ethr:dev:0x04${key.slice(4)}`, // 33 bytes with the uncompressed prefix
]

describe('resolution (GET /1.0/identifiers)', () => {
  it('a Veramo DID resolves with its key as #controllerKey beside #controller, as ethr-did-resolver builds it', async () => {
    const res = await resolve(issuer.did)
    expect(res.status).toBe(200)
    const did = issuer.did
    const account = `eip155:1337:${addressOf(issuer.addressDid)}`
    expect(res.body.didDocument).toMatchObject({
      id: did,
      verificationMethod: [
        { id: `${did}#controller`, type: RECOVERY_2020, controller: did, blockchainAccountId: account },
        { id: `${did}#controllerKey`, type: 'EcdsaSecp256k1VerificationKey2019', controller: did, publicKeyHex: issuer.publicKey.slice(2) },
      ],
      authentication: [`${did}#controller`, `${did}#controllerKey`],
      assertionMethod: [`${did}#controller`, `${did}#controllerKey`],
    })
  })

  it('the uncompressed spelling resolves to the same document under its own id, listing the compressed key', async () => {
    const res = await resolve(issuer.uncompressedDid)
    expect(res.status).toBe(200)
    const compressed = JSON.stringify((await resolve(issuer.did)).body.didDocument)
    expect(res.body.didDocument).toEqual(JSON.parse(compressed.replaceAll(issuer.did, issuer.uncompressedDid)))
  })

  it('malformed keys are 400 invalidDid (a resolution result), never 500', async () => {
    for (const did of malformedKeys(issuer.publicKey)) {
      const res = await resolve(did)
      expect([res.status, res.body.didResolutionMetadata.error, res.body.didDocument], did).toEqual([400, 'invalidDid', null])
    }
  })
})

describe('credentials issued by a Veramo agent', () => {
  let jwt: string
  let stored: Record<string, unknown>
  beforeAll(async () => {
    jwt = await issuer.issue({ credentialSubject: { id: holder.did, degree: 'BSc' } })
  })

  it('the VC-JWT is what Veramo 7 issues: ES256K, iss and sub the compressed-key DIDs', () => {
    const { header, payload } = decodeJwt(jwt)
    expect(header.alg).toBe('ES256K')
    expect(payload).toMatchObject({ iss: issuer.did, sub: holder.did })
    expect(issuer.did).toMatch(/^did:ethr:dev:0x0[23][0-9a-f]{64}$/)
  })

  it('verifies (POST /claims/verify), for a caller authenticated by a Veramo DID-auth token', async () => {
    const res = await h.request('POST', '/claims/verify', { json: { vcs: [{ jwt }] }, didAuth: await holder.token() })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.vcs[0]).toMatchObject({ verified: true, issuer: issuer.did })
  })

  it('stores with verify: true; the answer shows issuer and subject as the credential spells them, storedBy the principal', async () => {
    const res = await h.request('POST', '/claims', { json: { verify: true, claims: [{ jwt }] }, didAuth: await keeper.token() })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.errors).toEqual([])
    stored = res.body.vcs[0]
    expect(stored).toMatchObject({ jwt, issuer: issuer.did, subject: holder.did, storedBy: [keeper.addressDid] })
    // Indexed by principal (address form), so both spellings find it by index.
    const record = await h.storage.collection('credentials').get(stored._id as string)
    const spelled = { issuer: issuer.did, subject: holder.did }
    expect(record).toMatchObject({ issuer: issuer.addressDid, subject: holder.addressDid, spelled })
  })

  it('Fetch finds it by issuer and by subject in every spelling', async () => {
    for (const spelling of [issuer.did, issuer.addressDid, issuer.uncompressedDid, issuer.addressDid.toLowerCase()]) {
      const res = await h.request('GET', `/claims?issuer=${encodeURIComponent(spelling)}`, { didAuth: await issuer.token() })
      expect(res.status).toBe(200)
      expect(idsOf(res), spelling).toEqual([stored._id])
      expect(res.body.vcs[0].issuer).toBe(issuer.did)
    }
    for (const spelling of [holder.did, holder.addressDid, holder.uncompressedDid]) {
      const didAuth = await holder.token({ iss: holder.addressDid })
      const res = await h.request('GET', `/claims?subject=${encodeURIComponent(spelling)}`, { didAuth })
      expect(idsOf(res), spelling).toEqual([stored._id])
    }
  })

  it('storedBy: the storer reads it with a token in any spelling; re-storing under another spelling is the same record', async () => {
    for (const iss of [keeper.did, keeper.addressDid, keeper.uncompressedDid]) {
      expect(idsOf(await h.request('GET', '/claims', { didAuth: await keeper.token({ iss }) })), iss).toEqual([stored._id])
    }
    const before = await snapshot(h)
    const didAuth = await keeper.token({ iss: keeper.addressDid })
    const again = await h.request('POST', '/claims', { json: { claims: [{ jwt }] }, didAuth })
    expect(again.body.vcs[0]._id).toBe(stored._id)
    expect(await snapshot(h)).toEqual(before)
    // Someone else reads nothing of it.
    expect((await h.request('GET', '/claims', { didAuth: (await mintToken()).jwt })).body.vcs).toEqual([])
  })

  it('a record of an earlier release, indexed under the public-key spelling itself, is still found by that spelling', async () => {
    const legacy = await issuer.issue({ credentialSubject: { id: holder.did, legacy: true } })
    const record = {
      id: 'legacy-record',
      tenantId: 'tenant-a',
      format: 'JWT',
      jwt: legacy,
      issuer: issuer.did,
      subject: holder.did,
      types: ['VerifiableCredential'],
      storedBy: [],
      isPublicAccess: true,
      roles: [],
      hash: 'legacy-hash',
      createdAt: Date.now(),
    }
    await h.storage.collection('credentials').insert(record)
    const didAuth = await keeper.token()
    for (const query of [`issuer=${encodeURIComponent(issuer.did)}`, `subject=${encodeURIComponent(holder.did)}`]) {
      const res = await h.request('GET', `/claims?${query}`, { didAuth })
      expect(idsOf(res), query).toContain('legacy-record')
    }
    await h.storage.collection('credentials').delete('legacy-record')
  })

  it('a token signed by a Veramo key but naming another DID does not authenticate', async () => {
    const forged = await issuer.token({ iss: holder.did })
    expectError(await h.request('GET', '/claims', { didAuth: forged }), 403, 'UNAUTHENTICATED')
  })
})

describe('the service signs for a public-key spelling of its wallets', () => {
  it('POST /did-auth-jwt with iss in either public-key form: the token names that spelling, and controls the wallet', async () => {
    const w = await walletInEverySpelling()
    for (const [i, iss] of [w.compressed, w.uncompressed].entries()) {
      const token = await tokenFor(h, iss)
      expect(decodeJwt(token).payload.iss).toBe(iss)
      const renamed = await rename(iss, `spelled-${i}-${w._id}`, token)
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200)
      // Wallet answers show the wallet's own DID.
      expect(renamed.body.wallets[0].did).toBe(w.did)
    }
    const listed = await h.request('GET', `/wallets?did=${encodeURIComponent(w.compressed)}`)
    expect(listed.body.wallets.map((x: { did: string }) => x.did)).toEqual([w.did])
  })

  it('signs JWT and JSON-LD credentials with a public-key iss, which then verify', async () => {
    const w = await walletInEverySpelling()
    const token = await tokenFor(h, w.compressed)
    for (const format of ['JWT', 'JSON-LD']) {
      const claims = [{ id: `urn:uuid:${format}-${w._id}`, payload: { name: 'x' } }]
      const json = { iss: w.compressed, sub: holder.did, format, context: VOCAB_URL, claims }
      const signed = await h.request('POST', '/claims/sign', { json, didAuth: token })
      expect(signed.status, JSON.stringify(signed.body)).toBe(200)
      const vc = signed.body.vcs[0]
      const item = format === 'JWT' ? { jwt: vc.jwt } : { jsonld: vc.jsonld }
      const verified = await h.request('POST', '/claims/verify', { json: { vcs: [item] }, didAuth: token })
      expect(verified.body.vcs[0], JSON.stringify(verified.body)).toMatchObject({ verified: true, issuer: w.compressed })
    }
  })

  it('an Access Token JWT whose iss spells one of the service’s wallets by its key maps to that wallet', async () => {
    const w = await walletInEverySpelling()
    const target = await walletWithToken(h)
    const role = await h.request('POST', '/roles', { json: { description: 'r', permissions: ['Read'] }, didAuth: w.jwt })
    const assignment = { role: role.body.role.did, did: target.did }
    expect((await h.request('POST', '/roles/assignmnets', { json: { assignments: [assignment] }, didAuth: w.jwt })).status).toBe(200)
    const accessToken = await tokenFor(h, w.uncompressed)
    const removed = await h.request('DELETE', '/roles/assignmnets', { json: { assignments: [assignment] }, token: accessToken })
    expect(removed.status, JSON.stringify(removed.body)).toBe(200)
    expect(removed.body.assignments).toMatchObject([assignment])
  })
})

describe('newOwner in public-key form', () => {
  const configure = (w: { did: string; jwt: string }, newOwner: string) =>
    h.request('POST', '/wallet/configure', { json: { wallet: { did: w.did }, walletConfig: { txsInput: [{ newOwner }] } }, didAuth: w.jwt })

  it('hands the DID to the key’s address; that key’s tokens, in either spelling, then control the wallet', async () => {
    for (const newOwner of [issuer.did, issuer.uncompressedDid]) {
      const w = await walletWithToken(h)
      const res = await configure(w, newOwner)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.wallet.registry).toMatchObject({ transactions: [{ index: 0, op: 'changeOwner' }], errors: [] })
      const document = (await resolve(w.did)).body.didDocument
      expect(document.verificationMethod[0].blockchainAccountId).toBe(`eip155:1337:${addressOf(issuer.addressDid)}`)
      for (const iss of [issuer.did, issuer.addressDid]) {
        const renamed = await rename(w.did, `owned-${iss.length}-${w._id}`, await issuer.token({ iss }))
        expect(renamed.status, JSON.stringify(renamed.body)).toBe(200)
        expect(renamed.body.errors).toEqual([])
      }
      // The wallet's own key no longer signs for its DID.
      expectError(await rename(w.did, `old-${w._id}`, w.jwt), 403, 'UNAUTHENTICATED')
    }
  })

  it('a malformed key is 422, nothing written', async () => {
    const w = await walletWithToken(h)
    for (const newOwner of malformedKeys(issuer.publicKey)) {
      const before = await snapshot(h)
      expectError(await configure(w, newOwner), 422, 'VALIDATION_ERROR')
      expect(await snapshot(h)).toEqual(before)
    }
  })
})

describe('role targets in public-key form', () => {
  let creator: Awaited<ReturnType<typeof walletWithToken>>
  let target: Awaited<ReturnType<typeof walletInEverySpelling>>
  let role: { did: string; _id: string }
  beforeAll(async () => {
    creator = await walletWithToken(h)
    target = await walletInEverySpelling()
    role = (await h.request('POST', '/roles', { json: { description: 'Auditors', permissions: ['Read'] }, didAuth: creator.jwt })).body.role
  })

  const assign = (...assignments: Array<{ role: string; did: string }>) =>
    h.request('POST', '/roles/assignmnets', { json: { assignments }, didAuth: creator.jwt })
  const assignmentsOf = async () =>
    (await h.storage.collection('roleAssignments').find({ field: 'role', op: 'eq', value: role.did }, { limit: 10 })).items
  const listed = async (query: string) => {
    const res = await h.request('GET', `/roles/assignmnets?${query}`, { didAuth: creator.jwt })
    return res.body.assignments.map((a: { role: string; did: string }) => [a.role, a.did])
  }

  it('assigning to a public-key spelling stores the principal, echoes the spelling; the address form is the same assignment', async () => {
    const first = await assign({ role: role.did, did: target.compressed })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.assignments).toMatchObject([{ role: role.did, did: target.compressed }])
    expect((await assignmentsOf()).map((a) => a.did)).toEqual([target.did])
    for (const spelling of [target.did, target.uncompressed]) {
      const again = await assign({ role: role.did, did: spelling })
      expect(again.body.assignments).toEqual([{ ...first.body.assignments[0], did: spelling }])
    }
    expect(await assignmentsOf()).toHaveLength(1)
  })

  it('both spellings of a target in one batch are duplicates (422, nothing written)', async () => {
    const before = await snapshot(h)
    expectError(await assign({ role: role.did, did: target.did }, { role: role.did, did: target.uncompressed }), 422, 'VALIDATION_ERROR')
    expect(await snapshot(h)).toEqual(before)
  })

  it('listing by did answers in the spelling asked, by role as stored; the holder sees the role with a token in any spelling', async () => {
    for (const spelling of [target.compressed, target.did]) {
      expect(await listed(`did=${encodeURIComponent(spelling)}`)).toEqual([[role.did, spelling]])
    }
    expect(await listed(`role=${encodeURIComponent(role.did)}`)).toEqual([[role.did, target.did]])
    for (const iss of [target.compressed, target.uncompressed, target.did]) {
      const roles = await h.request('GET', '/roles', { didAuth: await tokenFor(h, iss) })
      expect(
        roles.body.roles.map((r: { did: string }) => r.did),
        iss,
      ).toEqual([role.did])
    }
  })

  it('a role named by a public-key spelling of its DID is that role (update, unassign)', async () => {
    const wallet = (await h.request('GET', `/wallets?did=${encodeURIComponent(role.did)}`)).body.wallets[0]
    const roleByKey = keySpellings(wallet.publicKeyHex).compressed
    const updated = await h.request('PUT', '/roles', { json: { did: roleByKey, description: 'Auditors (renamed)' }, didAuth: creator.jwt })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    expect(updated.body.roles[0]).toMatchObject({ did: role.did, description: 'Auditors (renamed)' })
    const unassigned = { role: roleByKey, did: target.uncompressed }
    const removed = await h.request('DELETE', '/roles/assignmnets', { json: { assignments: [unassigned] }, token: creator.jwt })
    expect(removed.body).toMatchObject({ assignments: [unassigned], errors: [] })
    expect(await assignmentsOf()).toEqual([])
  })

  it('malformed keys as targets are 422, nothing written', async () => {
    const before = await snapshot(h)
    for (const did of malformedKeys(issuer.publicKey)) expectError(await assign({ role: role.did, did }), 422, 'VALIDATION_ERROR')
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('MPC members in public-key form', () => {
  const body = (members: string[]) => ({
    name: 'mpc',
    keyManagement: 'MPC',
    hierarchy: 'NONE',
    mpcAccountID: 'acct-pk',
    mpcGroups: [{ name: 'signers', requiredApprovals: 2, members: members.map((id) => ({ id })) }],
  })

  it('a member named by its key approves with a token in either spelling, and counts once', async () => {
    const other = generatePrivateKey()
    const otherDid = (await mintToken({ signerKey: other })).did
    const created = await h.request('POST', '/vaults', { json: body([issuer.did, otherDid]) })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const initialize = (tokens: string[]) =>
      h.request('POST', `/vaults/${created.body.vault.id}/initialize`, { json: {}, didAuth: tokens.join(',') })
    const everySpelling = await Promise.all([issuer.did, issuer.addressDid, issuer.uncompressedDid].map((iss) => issuer.token({ iss })))
    const once = await initialize(everySpelling)
    expectError(once, 403, 'FORBIDDEN')
    expect(once.body.errorMessage).toMatch(/1 more approval needed/)
    const quorum = await initialize([await issuer.token({ iss: issuer.uncompressedDid }), (await mintToken({ signerKey: other })).jwt])
    expect(quorum.status, JSON.stringify(quorum.body)).toBe(200)
    expect(quorum.body.vault.status).toBe('INITIALIZED')
  })

  it('the two spellings of one key are one member (422 duplicate); a malformed key is 422; nothing written', async () => {
    const before = await snapshot(h)
    const dup = await h.request('POST', '/vaults', { json: body([issuer.did, issuer.addressDid]) })
    expectError(dup, 422, 'VALIDATION_ERROR')
    expect(dup.body.errorMessage).toMatch(/duplicate member/)
    for (const did of malformedKeys(issuer.publicKey)) {
      expectError(await h.request('POST', '/vaults', { json: body([did, issuer.did]) }), 422, 'VALIDATION_ERROR')
    }
    expect(await snapshot(h)).toEqual(before)
  })
})

/**
 * The access matrix by keys, per DID method (issue 30, "Access control speaks keys"), through the real HTTP router on
 * loopback: a caller controls a DID when one of its DID-auth tokens was signed by a key the DID's current document
 * lists for authentication — did:key and did:jwk (secp256k1 ES256K, P-256 ES256, Ed25519 EdDSA; the holders made by
 * did-jwt, independently of `src/`) — and, for did:ethr, only by its owner key (`#controller`): a `veriKey` or
 * `sigAuth` delegate authenticates the DID but never controls it.
 *
 * Every row is the attack "a same-tenant user makes herself controller of a DID whose key she does not hold", beside
 * the same act by the key's holder: the resource is the victim's stored credential C whose DID (`jti`) is the victim's
 * DID X; the caller makes a role R of its own and tries to grant it over X (Create Role Assignments to X: rights over
 * X, `governCredentialDid`), and stores a copy of C with `roles: [R]` (whose roles govern X only for a caller with
 * rights over X). `own`: the caller's token is the victim's own (its key controls X) — allowed, R governs X and reaches
 * C. `foreign`: another holder of the same key type and method; `delegate` (did:ethr): X's sigAuth and veriKey
 * delegates — the item is 403 FORBIDDEN with the error body and nothing is written, R reaches only the caller's copy.
 * A token naming X signed by the attacker's key is 403 UNAUTHENTICATED (nothing written). And the door that hands a
 * did:ethr DID over (Configure Identity Wallet, `newOwner`): only its owner key opens it — another wallet, its
 * delegates and did:key holders of each key type are 403 FORBIDDEN, nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ES256KSigner } from 'did-jwt'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import { accountNodeOf, deriveWalletKey } from '../../src/keys/hd.js'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import type { RoleAssignmentRecord } from '../../src/roles/records.js'
import { expectError, snapshot, startHarness, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'
import { didJwtHolder, type HolderKeyType, type KeyHolder } from '../helpers/key-holders.js'
import { mintToken } from '../helpers/tokens.js'

type Method = 'ethr' | 'key' | 'jwk'
type CallerKind = 'own' | 'foreign' | 'sigAuth delegate' | 'veriKey delegate'
type Outcome = { grant: 'allowed' | 'FORBIDDEN'; storeGoverns: boolean }

const ALLOWED: Outcome = { grant: 'allowed', storeGoverns: true }
const REFUSED: Outcome = { grant: 'FORBIDDEN', storeGoverns: false }
const TYPES: HolderKeyType[] = ['secp256k1', 'P-256', 'Ed25519']

// prettier-ignore
const MATRIX: Array<[Method, HolderKeyType, CallerKind, Outcome]> = [
  ['ethr', 'secp256k1', 'own',              ALLOWED],
  ['ethr', 'secp256k1', 'foreign',          REFUSED],
  ['ethr', 'secp256k1', 'sigAuth delegate', REFUSED],
  ['ethr', 'secp256k1', 'veriKey delegate', REFUSED],
  ...(['key', 'jwk'] as const).flatMap((method) =>
    TYPES.flatMap((type): Array<[Method, HolderKeyType, CallerKind, Outcome]> => [
      [method, type, 'own',     ALLOWED],
      [method, type, 'foreign', REFUSED],
    ]),
  ),
]

/** A DID X and tokens: its controller's, and the one the row's caller signs. */
interface Subject {
  did: string
  /** A VC-JWT about `sub` whose DID (`jti`) is X, signed by X's key. */
  credential(sub: string): Promise<string>
  /** The controller's DID-auth token. */
  token(): Promise<string>
}

let h: Harness
let reader: { did: string; jwt: string }

beforeAll(async () => {
  h = await startHarness()
  reader = await walletWithToken(h)
}, 60_000)
afterAll(() => h?.close())

const vcPayload = (jti: string, sub: string) => ({
  jti,
  sub,
  nbf: Math.floor(Date.now() / 1000) - 5,
  vc: { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], credentialSubject: { name: 'C' } },
})

/** A did:key / did:jwk holder as a subject X: its VC-JWTs name its DID as `jti`. */
function holderSubject(holder: KeyHolder): Subject {
  return {
    did: holder.did,
    credential: (sub) =>
      createVerifiableCredentialJwt(vcPayload(holder.did, sub), { did: holder.did, signer: holder.signer, alg: holder.alg }),
    token: () => holder.token(),
  }
}

/**
 * A did:ethr wallet of the tenant as X (a BIP44 vault's first wallet, whose key the test derives to add a sigAuth
 * delegate on the embedded registry), with its two delegates' tokens.
 */
async function ethrSubject(): Promise<Subject & { delegates: Record<'sigAuth delegate' | 'veriKey delegate', string> }> {
  const vault = (await h.request('POST', '/vaults', { json: { name: 'victim', hierarchy: 'BIP44' } })).body.vault
  const key = deriveWalletKey(accountNodeOf(vault.mnemonic), 0)
  const did: string = vault.wallets[0].did
  const jwt = await tokenFor(h, did)
  const veriKey = generatePrivateKey()
  const configured = await h.request('POST', '/wallet/configure', {
    json: {
      wallet: { did },
      walletConfig: { txsInput: [{ delegate: { address: new LocalSigner(veriKey).address, validity: 3_600_000 } }] },
    },
    didAuth: jwt,
  })
  expect(configured.body.wallet.registry.errors).toEqual([])
  const sigAuth = generatePrivateKey()
  const owner = new LocalSigner(key)
  await h.service.registries
    .forNetwork('dev')!
    .apply(
      owner.address,
      { op: 'addDelegate', delegateType: 'sigAuth', delegate: new LocalSigner(sigAuth).address, validity: 3_600 },
      owner,
    )
  return {
    did,
    credential: (sub) => createVerifiableCredentialJwt(vcPayload(did, sub), { did, signer: ES256KSigner(key), alg: 'ES256K' }),
    token: async () => jwt,
    delegates: {
      'sigAuth delegate': (await mintToken({ iss: did, signerKey: sigAuth })).jwt,
      'veriKey delegate': (await mintToken({ iss: did, signerKey: veriKey })).jwt,
    },
  }
}

const assign = (json: unknown, didAuth: string) => h.request('POST', '/roles/assignmnets', { json, didAuth })
const newRole = async (didAuth: string) => {
  const res = await h.request('POST', '/roles', { json: { permissions: ['Read'] }, didAuth })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.role.did as string
}
const governs = async (role: string, did: string) =>
  (
    await h.storage.collection<RoleAssignmentRecord>('roleAssignments').findOne({
      and: [
        { field: 'role', op: 'eq', value: role },
        { field: 'did', op: 'eq', value: did },
      ],
    })
  )?.governsCredentials === true

/** The world of one row: X, its credential C stored by its controller, the caller's token and its role R. */
async function world(method: Method, type: HolderKeyType, kind: CallerKind) {
  let x: Subject
  let callerToken: string
  let roleCreator: string
  if (method === 'ethr') {
    const subject = await ethrSubject()
    x = subject
    const eve = await walletWithToken(h)
    callerToken = kind === 'own' ? await subject.token() : kind === 'foreign' ? eve.jwt : subject.delegates[kind]
    // A delegate creates no role (it acts through no DID): its role comes from Eve, who hands it the management by its token.
    roleCreator = kind === 'own' ? callerToken : eve.jwt
    if (kind !== 'own' && kind !== 'foreign') callerToken = `${callerToken},${eve.jwt}`
  } else {
    const victim = didJwtHolder(method, type)
    x = holderSubject(victim)
    callerToken = kind === 'own' ? await victim.token() : await didJwtHolder(method, type).token()
    roleCreator = callerToken
  }
  const stored = await h.request('POST', '/claims', {
    json: { verify: true, claims: [{ jwt: await x.credential(reader.did) }] },
    didAuth: await x.token(),
  })
  expect(stored.status, JSON.stringify(stored.body)).toBe(200)
  expect(stored.body.vcs[0].id).toBe(x.did)
  const role = await newRole(roleCreator)
  return { x, credential: stored.body.vcs[0]._id as string, role, callerToken, roleCreator }
}

/** Whether a holder of R reads C (a wallet that is neither its subject nor its storer). */
async function reaches(w: Awaited<ReturnType<typeof world>>) {
  const holder = await walletWithToken(h)
  expect((await assign({ assignments: [{ role: w.role, did: holder.did }] }, w.roleCreator)).body.errors).toEqual([])
  const res = await h.request('GET', `/claims?ids=${encodeURIComponent(w.x.did)}`, { didAuth: holder.jwt })
  expect(res.status).toBe(200)
  return res.body.vcs.some((v: { _id: string }) => v._id === w.credential)
}

describe('access matrix by keys: rights over a DID, per method (did:ethr, did:key, did:jwk × key type)', () => {
  it('covers did:ethr’s owner and delegates, and every key type of did:key and did:jwk, own and foreign', () => {
    expect(MATRIX).toHaveLength(4 + 2 * 3 * 2)
  })

  it.each(MATRIX)('did:%s %s, %s caller → grant a role over the DID: %o', async (method, type, kind, outcome) => {
    const w = await world(method, type, kind)
    const before = await snapshot(h)
    const res = await assign({ assignments: [{ role: w.role, did: w.x.did }] }, w.callerToken)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    if (outcome.grant === 'allowed') {
      expect(res.body.errors).toEqual([])
      expect(res.body.assignments).toEqual([expect.objectContaining({ role: w.role, did: w.x.did, governsCredentials: true })])
      expect(await governs(w.role, w.x.did)).toBe(true)
    } else {
      expect(res.body.assignments).toEqual([])
      expect(res.body.errors).toHaveLength(1)
      expect(res.body.errors[0].error).toEqual({ statusCode: 403, errorType: 'FORBIDDEN', errorMessage: expect.any(String) })
      expect(await snapshot(h)).toEqual(before)
    }
    expect(await reaches(w)).toBe(outcome.grant === 'allowed')
  })

  it.each(MATRIX)('did:%s %s, %s caller → store a copy with its role: governs the DID %o', async (method, type, kind, outcome) => {
    const w = await world(method, type, kind)
    const copy = await w.x.credential(w.x.did)
    const res = await h.request('POST', '/claims', { json: { roles: [w.role], claims: [{ jwt: copy }] }, didAuth: w.callerToken })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.errors).toEqual([])
    expect(res.body.vcs[0]).toMatchObject({ id: w.x.did, roles: [w.role] })
    expect(await governs(w.role, w.x.did)).toBe(outcome.storeGoverns)
    expect(await reaches(w)).toBe(outcome.storeGoverns)
  })

  it.each(TYPES.flatMap((type) => (['key', 'jwk'] as const).map((method) => [method, type] as const)))(
    'did:%s %s: a token naming the victim’s DID signed by the attacker’s key is 403 UNAUTHENTICATED; nothing written',
    async (method, type) => {
      const w = await world(method, type, 'foreign')
      const attacker = didJwtHolder(method, type)
      const before = await snapshot(h)
      const forged = await attacker.token({ iss: w.x.did })
      const res = await assign({ assignments: [{ role: w.role, did: w.x.did }] }, forged)
      expectError(res, 403, 'UNAUTHENTICATED')
      expect(await snapshot(h)).toEqual(before)
    },
  )

  // prettier-ignore
  const TAKEOVER: Array<[string, 'own' | 'foreign' | 'sigAuth delegate' | 'veriKey delegate' | HolderKeyType, 'allowed' | 'FORBIDDEN']> = [
    ['its owner key',                             'own',              'allowed'],
    ['another wallet of the tenant',              'foreign',          'FORBIDDEN'],
    ['its sigAuth delegate',                      'sigAuth delegate', 'FORBIDDEN'],
    ['its veriKey delegate',                      'veriKey delegate', 'FORBIDDEN'],
    ['a did:key holder (secp256k1, ES256K)',      'secp256k1',        'FORBIDDEN'],
    ['a did:key holder (P-256, ES256)',           'P-256',            'FORBIDDEN'],
    ['a did:key holder (Ed25519, EdDSA)',         'Ed25519',          'FORBIDDEN'],
  ]

  it.each(TAKEOVER)('did:ethr wallet: %s (%s) hands the DID to itself (newOwner) → %s', async (_name, who, outcome) => {
    const x = await ethrSubject()
    const eve = await walletWithToken(h)
    const holder = who === 'secp256k1' || who === 'P-256' || who === 'Ed25519' ? didJwtHolder('key', who) : undefined
    const token =
      who === 'own'
        ? await x.token()
        : who === 'foreign'
          ? eve.jwt
          : holder !== undefined
            ? await holder.token()
            : x.delegates[who as 'sigAuth delegate' | 'veriKey delegate']
    const newOwner = holder?.did ?? eve.did
    const before = await snapshot(h)
    const res = await h.request('POST', '/wallet/configure', {
      json: { wallet: { did: x.did }, walletConfig: { txsInput: [{ newOwner: who === 'own' ? eve.did : newOwner }] } },
      didAuth: token,
    })
    if (outcome === 'allowed') {
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.wallet.registry.errors).toEqual([])
      return
    }
    expectError(res, 403, 'FORBIDDEN')
    expect(await snapshot(h)).toEqual(before)
  })
})

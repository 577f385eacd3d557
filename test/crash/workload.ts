/**
 * The crash harness's writes: a tenant set up once (a BIP44 vault, subject wallets, roles, a pool
 * of signed credentials with status), then rounds of concurrent mixed writes over HTTP until the
 * process is killed. Every answer is recorded in a {@link Ledger}: a 200 is an acknowledged write
 * the checks hold the storage to; a 503 `SERVICE_UNAVAILABLE` (storage down) is counted, and the
 * writer honours its `Retry-After`; a request cut off by the kill is counted as in flight.
 */
import { randomInt } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { http, type HttpResult } from '../helpers/spawn.js'
import { API_KEY } from './server.js'

/** Subject wallets whose DIDs the pooled credentials carry (the caller holds their keys: stores govern them). */
const SUBJECTS = 24
/** Credentials signed per subject for the pool (each is stored at most once). */
const CREDENTIALS_PER_SUBJECT = 16
/** Roles that stored credentials take (never deleted, so a stored credential's roles always exist). */
const CREDENTIAL_ROLES = 6
/** Requests each writer keeps in flight, one after the other, until the kill. */
export const WRITERS = 6

/** What the tenant holds before the first kill. */
export interface Tenant {
  vaultId: string
  /** The vault's root wallet: issuer of the pooled credentials, creator of every role. */
  root: { did: string; jwt: string }
  subjects: Array<{ did: string; jwt: string }>
  credentialRoles: string[]
  /** Signed VC-JWTs not stored yet, per subject index. */
  pool: string[][]
}

/** Everything the server acknowledged (a 200), and what it was asked while it died. */
export interface Ledger {
  /** Vault wallets: DID → HD index. */
  wallets: Map<string, number>
  /** Stored credentials: `_id` → the roles the response gave it and its DID. */
  credentials: Map<string, { did: string; roles: string[] }>
  /** Credentials whose revocation entry was set by an acknowledged status change: `_id` → when it was acknowledged (ms). */
  revoked: Map<string, number>
  /** Credentials stored and not yet given to a status change: `_id`s. */
  revocable: string[]
  /** Roles made for grants (deleted at random): DID → state. */
  roles: Map<string, 'created' | 'deleting' | 'deleted'>
  /** Acknowledged grants of those roles: `role did` pairs. */
  grants: Array<{ role: string; did: string }>
  /** Acknowledged status-carrying signatures: each credential's status entry `listId/index`. */
  signedEntries: string[]
  acknowledged: number
  /** Answers 503 `SERVICE_UNAVAILABLE` with `Retry-After` and the request's `x-request-id` (the storage was down). */
  unavailable: number
  inFlightAtKill: number
  refused: string[]
}

export const newLedger = (): Ledger => ({
  wallets: new Map(),
  credentials: new Map(),
  revoked: new Map(),
  revocable: [],
  roles: new Map(),
  grants: [],
  signedEntries: [],
  acknowledged: 0,
  unavailable: 0,
  inFlightAtKill: 0,
  refused: [],
})

const pick = <T>(items: readonly T[]): T => items[randomInt(items.length)]

/** The body of a 200, or an error naming the request's answer (setup: no failure is expected). */
function ok(res: HttpResult, what: string): any {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** The `listId/index` of a VC-JWT's status entry. */
export function statusEntryOf(jwt: string): string {
  const payload = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as {
    vc: { credentialStatus: { statusListCredential: string; statusListIndex: string } }
  }
  const { statusListCredential, statusListIndex } = payload.vc.credentialStatus
  return `${statusListCredential.split('/').pop()}/${statusListIndex}`
}

/** A DID-auth token of `did`, valid for hours (longer runs outlive the 15-minute default). */
async function tokenOf(url: string, did: string): Promise<string> {
  return ok(await http(`${url}/did-auth-jwt`, { method: 'POST', token: API_KEY, json: { iss: did, expiresIn: 6 * 3_600_000 } }), 'token')
    .jwt
}

/** Sets up the tenant on a fresh storage (before any kill). */
export async function setUpTenant(url: string, ledger: Ledger): Promise<Tenant> {
  const { vault } = ok(
    await http(`${url}/vaults`, { method: 'POST', token: API_KEY, json: { name: 'crash', hierarchy: 'BIP44' } }),
    'vault',
  )
  const rootDid: string = vault.wallets[0].did
  ledger.wallets.set(rootDid, vault.wallets[0].index)
  const root = { did: rootDid, jwt: await tokenOf(url, rootDid) }
  const headers = { 'x-did-auth': root.jwt }
  const subjects: Tenant['subjects'] = []
  for (let i = 0; i < SUBJECTS; i++) {
    const { wallet } = ok(await http(`${url}/vaults/${vault.id}/wallet`, { method: 'POST', token: API_KEY, json: {}, headers }), 'wallet')
    ledger.wallets.set(wallet.did, wallet.index)
    subjects.push({ did: wallet.did, jwt: await tokenOf(url, wallet.did) })
  }
  const credentialRoles: string[] = []
  for (let i = 0; i < CREDENTIAL_ROLES; i++) {
    const json = { description: `credential role ${i}`, permissions: ['Read'] }
    credentialRoles.push(ok(await http(`${url}/roles`, { method: 'POST', token: API_KEY, json, headers }), 'role').role.did)
  }
  const pool: string[][] = []
  for (const subject of subjects) {
    const claims = Array.from({ length: CREDENTIALS_PER_SUBJECT }, (_, n) => ({ id: subject.did, payload: { n } }))
    const json = { iss: root.did, format: 'JWT', status: { purposes: ['revocation'] }, claims }
    pool.push(ok(await http(`${url}/claims/sign`, { method: 'POST', token: API_KEY, json, headers }), 'sign').vcs.map((vc: any) => vc.jwt))
  }
  ledger.signedEntries.push(...pool.flat().map(statusEntryOf))
  return { vaultId: vault.id, root, subjects, credentialRoles, pool }
}

/** One kind of write: sends a request, and on a 200 records what it acknowledged. */
type Write = (url: string, tenant: Tenant, ledger: Ledger) => Promise<void>

const rootHeaders = (tenant: Tenant) => ({ 'x-did-auth': tenant.root.jwt })

/** A BIP44 wallet of the vault. */
const vaultWallet: Write = async (url, tenant, ledger) => {
  const res = await http(`${url}/vaults/${tenant.vaultId}/wallet`, {
    method: 'POST',
    token: API_KEY,
    json: {},
    headers: rootHeaders(tenant),
  })
  const body = accept(res, ledger, 'vault wallet')
  if (body) ledger.wallets.set(body.wallet.did, body.wallet.index)
}

/** A batch of 1–4 credentials of one subject, with 1–2 roles (assigned over the subject's DID). */
const storeCredentials: Write = async (url, tenant, ledger) => {
  const s = randomInt(tenant.subjects.length)
  // An empty pool is filled first: signing is one more write of the round.
  if (tenant.pool[s].length === 0) tenant.pool[s].push(...(await sign(url, tenant, ledger, tenant.subjects[s].did, 8)))
  const jwts = tenant.pool[s].splice(0, 1 + randomInt(4))
  // Signing was refused (storage down): nothing to store this time.
  if (jwts.length === 0) return
  const roles = [...new Set([pick(tenant.credentialRoles), pick(tenant.credentialRoles)])].slice(0, 1 + randomInt(2))
  const headers = { 'x-did-auth': `${tenant.root.jwt},${tenant.subjects[s].jwt}` }
  const json = { roles, claims: jwts.map((jwt) => ({ jwt })) }
  const body = accept(await http(`${url}/claims`, { method: 'POST', token: API_KEY, json, headers }), ledger, 'store credentials')
  if (!body) return
  for (const vc of body.vcs as Array<{ _id: string; id: string; roles: string[] }>) {
    ledger.credentials.set(vc._id, { did: vc.id, roles: vc.roles })
    ledger.revocable.push(vc._id)
  }
}

/** Revocation of 1–3 stored credentials (each once: revocation is final). */
const revoke: Write = async (url, tenant, ledger) => {
  const ids = ledger.revocable.splice(0, 1 + randomInt(3))
  if (ids.length === 0) return
  const json = { items: ids.map((_id) => ({ _id, purpose: 'revocation', value: true })) }
  const body = accept(
    await http(`${url}/claims/status`, { method: 'POST', token: API_KEY, json, headers: rootHeaders(tenant) }),
    ledger,
    'status',
  )
  if (!body) return
  for (const item of body.items as Array<{ index: number }>) ledger.revoked.set(ids[item.index], Date.now())
}

/** A role made to be granted (and later perhaps deleted). */
const createRole: Write = async (url, tenant, ledger) => {
  const json = { description: 'granted', permissions: ['Read', 'Write'] }
  const body = accept(await http(`${url}/roles`, { method: 'POST', token: API_KEY, json, headers: rootHeaders(tenant) }), ledger, 'role')
  if (body) ledger.roles.set(body.role.did, 'created')
}

/** Grants of live roles to vault wallets that carry no credentials. */
const grant: Write = async (url, tenant, ledger) => {
  const roles = [...ledger.roles].filter(([, state]) => state === 'created').map(([did]) => did)
  const subjects = new Set(tenant.subjects.map((s) => s.did))
  const wallets = [...ledger.wallets.keys()].filter((did) => !subjects.has(did) && did !== tenant.root.did)
  if (roles.length === 0 || wallets.length === 0) return
  const pairs = new Map(Array.from({ length: 1 + randomInt(3) }, () => [pick(roles), pick(wallets)]))
  const json = { assignments: [...pairs].map(([role, did]) => ({ role, did })) }
  const res = await http(`${url}/roles/assignments`, { method: 'POST', token: API_KEY, json, headers: rootHeaders(tenant) })
  const body = accept(res, ledger, 'grant')
  if (body) for (const a of body.assignments as Array<{ role: string; did: string }>) ledger.grants.push({ role: a.role, did: a.did })
}

/** Deletion of a granted role, racing its grants. */
const deleteRole: Write = async (url, tenant, ledger) => {
  const live = [...ledger.roles].filter(([, state]) => state === 'created').map(([did]) => did)
  if (live.length < 3) return
  const did = pick(live)
  ledger.roles.set(did, 'deleting')
  const res = await http(`${url}/roles`, { method: 'DELETE', token: API_KEY, json: { dids: [did] }, headers: rootHeaders(tenant) })
  const body = accept(res, ledger, 'delete role')
  if (body && (body.roles as unknown[]).length === 1) ledger.roles.set(did, 'deleted')
}

/** Two credentials signed with status: their entries are allocated (and must stay). */
const signWithStatus: Write = async (url, tenant, ledger) => {
  const subject = pick(tenant.subjects)
  const jwts = await sign(url, tenant, ledger, subject.did, 2)
  // Stored later like the pooled ones.
  tenant.pool[tenant.subjects.indexOf(subject)].push(...jwts)
}

/** `count` credentials of `subject` signed with a revocation entry; on a 200 their entries are acknowledged. */
async function sign(url: string, tenant: Tenant, ledger: Ledger, subject: string, count: number): Promise<string[]> {
  const claims = Array.from({ length: count }, (_, n) => ({ id: subject, payload: { n } }))
  const json = { iss: tenant.root.did, format: 'JWT', status: { purposes: ['revocation'] }, claims }
  const body = accept(
    await http(`${url}/claims/sign`, { method: 'POST', token: API_KEY, json, headers: rootHeaders(tenant) }),
    ledger,
    'sign',
  )
  const jwts = ((body?.vcs ?? []) as Array<{ jwt: string }>).map((vc) => vc.jwt)
  ledger.signedEntries.push(...jwts.map(statusEntryOf))
  return jwts
}

/** Writes by weight. */
const WRITES: Write[] = [
  ...Array<Write>(3).fill(vaultWallet),
  ...Array<Write>(3).fill(storeCredentials),
  ...Array<Write>(2).fill(revoke),
  ...Array<Write>(2).fill(grant),
  createRole,
  deleteRole,
  signWithStatus,
]

/**
 * The body of a 200 (counted as acknowledged); a well-formed 503 `SERVICE_UNAVAILABLE` is counted
 * as unavailable; any other answer is recorded as refused, a failed request throws.
 */
function accept(res: HttpResult, ledger: Ledger, what: string): any {
  if (res.status === 200) {
    ledger.acknowledged++
    return res.body
  }
  if (isUnavailable(res)) {
    ledger.unavailable++
    return undefined
  }
  ledger.refused.push(`${what}: ${res.status} ${JSON.stringify(res.body)} retry-after ${res.headers.get('retry-after')}`)
  return undefined
}

/** A 503 as DESIGN §3 says: the error body, `Retry-After: 1`, the request's id in `x-request-id`. */
export function isUnavailable(res: HttpResult): boolean {
  const body = res.body as { statusCode?: unknown; errorType?: unknown; errorMessage?: unknown } | undefined
  return (
    res.status === 503 &&
    body?.statusCode === 503 &&
    body.errorType === 'SERVICE_UNAVAILABLE' &&
    typeof body.errorMessage === 'string' &&
    res.headers.get('retry-after') === '1' &&
    /^\S+$/.test(res.headers.get('x-request-id') ?? '')
  )
}

/**
 * Starts {@link WRITERS} loops of random writes. Call `stop()` right before the kill: no loop
 * starts a request after it, and each request then cut off (a connection error) counts as in
 * flight. `killing`: whether a process is being killed now (a cut-off request counts as in
 * flight then too). `done` resolves once every loop has stopped.
 */
export function startWriters(
  url: string,
  tenant: Tenant,
  ledger: Ledger,
  killing: () => boolean = () => false,
): { stop(): void; done: Promise<void> } {
  let stopped = false
  const loop = async () => {
    while (!stopped) {
      const unavailable = ledger.unavailable
      try {
        await pick(WRITES)(url, tenant, ledger)
      } catch (err) {
        if (!stopped && !killing()) throw err
        ledger.inFlightAtKill++
      }
      // Retry-After: 1
      if (ledger.unavailable > unavailable && !stopped) await sleep(1_000)
    }
  }
  const done = Promise.all(Array.from({ length: WRITERS }, loop)).then(() => undefined)
  return { stop: () => (stopped = true), done }
}

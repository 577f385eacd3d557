/**
 * What must hold after each `kill -9` and restart: a list of named checks, each returning the
 * problems it found (none: it holds). Reads go through the API where it shows the fact, and
 * through the storage itself (the product's own adapter, opened by the test) where it cannot.
 * To add a check (e.g. "audit chain intact and has a record for each acknowledged act"), append
 * one to {@link CHECKS}.
 */
import { gunzipSync } from 'node:zlib'
import { http } from '../helpers/spawn.js'
import type { StorageAdapter, StoredRecord } from '../../src/storage/port.js'
import { principalOf } from '../../src/did/methods/ethr/ethr.js'
import { verifyChain } from '../../src/audit/verify-chain.js'
import { API_KEY, TENANT } from './server.js'
import { statusEntryOf, type Ledger, type Tenant } from './workload.js'

/** What a check sees: the restarted server, the tenant, what was acknowledged, the storage. */
export interface CrashView {
  url: string
  tenant: Tenant
  ledger: Ledger
  storage: StorageAdapter
}

export interface Check {
  name: string
  problems(view: CrashView): Promise<string[]>
}

type Row = StoredRecord & Record<string, any>

/** Every record of the tenant in `collection`, from the storage. */
async function records(storage: StorageAdapter, collection: string): Promise<Row[]> {
  const out: Row[] = []
  let cursor: string | undefined
  do {
    const page = await storage.collection<Row>(collection).find({ field: 'tenantId', op: 'eq', value: TENANT }, { limit: 1_000, cursor })
    out.push(...page.items)
    cursor = page.nextCursor
  } while (cursor)
  return out
}

/** Every item of a paged listing, through the API. */
async function listed(view: CrashView, path: string, field: string): Promise<any[]> {
  const out: any[] = []
  let cursor: string | undefined
  do {
    const sep = path.includes('?') ? '&' : '?'
    const query = `${sep}limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
    const res = await http(`${view.url}${path}${query}`, { token: API_KEY, headers: { 'x-did-auth': view.tenant.root.jwt } })
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`)
    out.push(...res.body[field])
    cursor = res.body.nextCursor ?? undefined
  } while (cursor)
  return out
}

const pair = (role: string, did: string) => `${principalOf(role)} ${principalOf(did)}`

export const CHECKS: Check[] = [
  {
    name: 'every acknowledged vault wallet is there, at its HD index',
    async problems(view) {
      const wallets = await listed(view, `/wallets?vaultId=${view.tenant.vaultId}`, 'wallets')
      const byDid = new Map(wallets.map((w) => [w.did as string, w.index as number]))
      return [...view.ledger.wallets]
        .filter(([did, index]) => byDid.get(did) !== index)
        .map(([did, index]) => `wallet ${did} (index ${index}) is ${byDid.has(did) ? `at index ${byDid.get(did)}` : 'missing'}`)
    },
  },
  {
    name: 'HD indexes of the vault are unique and gap-free, and its counter is at the last one',
    async problems(view) {
      const indexes = (await records(view.storage, 'wallets'))
        .filter((w) => w.vaultId === view.tenant.vaultId)
        .map((w) => w.index as number)
        .sort((a, b) => a - b)
      const problems = indexes.flatMap((index, i) => (index === i ? [] : [`index ${i} expected, found ${index}`])).slice(0, 5)
      const vault = await view.storage.collection<Row>('vaults').get(view.tenant.vaultId)
      if (vault?.hdIndex !== indexes.length - 1) problems.push(`vault counter ${vault?.hdIndex}, last index ${indexes.length - 1}`)
      return problems
    },
  },
  {
    name: 'every acknowledged credential is there with its roles',
    async problems(view) {
      const stored = new Map((await listed(view, '/claims', 'vcs')).map((vc) => [vc._id as string, vc.roles as string[]]))
      return [...view.ledger.credentials].flatMap(([id, { roles }]) => {
        const found = stored.get(id)
        if (!found) return [`credential ${id} is missing`]
        return found.join() === roles.join() ? [] : [`credential ${id} has roles ${found.join()}, acknowledged ${roles.join()}`]
      })
    },
  },
  {
    name: 'no stored credential without the assignments of its roles over its DID',
    async problems(view) {
      const assigned = new Set(
        (await records(view.storage, 'roleAssignments')).filter((a) => a.governsCredentials).map((a) => pair(a.role, a.did)),
      )
      return (await records(view.storage, 'credentials')).flatMap((c) =>
        (c.roles as string[])
          .filter((role) => !assigned.has(pair(role, c.did)))
          .map((role) => `credential ${c.id}: no ${role} over ${c.did}`),
      )
    },
  },
  {
    name: 'every acknowledged grant is there, unless its role was deleted',
    async problems(view) {
      const live = [...view.ledger.roles].filter(([, state]) => state === 'created').map(([did]) => did)
      const found = new Set<string>()
      for (const role of live)
        for (const a of await listed(view, `/roles/assignments?role=${role}`, 'assignments')) found.add(pair(a.role, a.did))
      return view.ledger.grants
        .filter((g) => view.ledger.roles.get(g.role) === 'created' && !found.has(pair(g.role, g.did)))
        .map((g) => `grant of ${g.role} to ${g.did} is missing`)
    },
  },
  {
    name: 'acknowledged roles are there, acknowledged deletions gone',
    async problems(view) {
      const roles = new Set((await listed(view, '/roles', 'roles')).map((r) => r.did as string))
      const problems = view.tenant.credentialRoles.filter((did) => !roles.has(did)).map((did) => `credential role ${did} is missing`)
      for (const [did, state] of view.ledger.roles) {
        if (state === 'created' && !roles.has(did)) problems.push(`role ${did} is missing`)
        if (state === 'deleted' && roles.has(did)) problems.push(`deleted role ${did} is back`)
      }
      return problems
    },
  },
  {
    name: 'no role assignment names a role that is gone',
    async problems(view) {
      const roles = new Set((await records(view.storage, 'roles')).map((r) => principalOf(r.did)))
      return (await records(view.storage, 'roleAssignments'))
        .filter((a) => !roles.has(principalOf(a.role)))
        .map((a) => `assignment ${a.id} of deleted role ${a.role} to ${a.did}`)
    },
  },
  {
    name: 'every acknowledged status entry is there; every stored credential has its entry',
    async problems(view) {
      const entries = new Set((await records(view.storage, 'status_entries')).map((e) => `${e.listId}/${e.index}`))
      const problems = view.ledger.signedEntries.filter((e) => !entries.has(e)).map((e) => `status entry ${e} is missing`)
      for (const c of await records(view.storage, 'credentials'))
        if (!entries.has(statusEntryOf(c.encoded)))
          problems.push(`credential ${c.id}: its status entry ${statusEntryOf(c.encoded)} is missing`)
      return problems
    },
  },
  {
    name: 'every acknowledged revocation is set and logged; entries and their change log agree',
    async problems(view) {
      const entries = new Map((await records(view.storage, 'status_entries')).map((e) => [`${e.listId}/${e.index}`, e.value as boolean]))
      const changes = new Map<string, boolean>()
      for (const change of (await records(view.storage, 'status_changes')).sort((a, b) => a.createdAt - b.createdAt))
        changes.set(`${change.listId}/${change.index}`, change.value as boolean)
      const problems: string[] = []
      for (const [entry, value] of entries)
        if ((changes.get(entry) ?? false) !== value)
          problems.push(`entry ${entry} is ${value}, its last logged change ${changes.get(entry)}`)
      for (const entry of changes.keys()) if (!entries.has(entry)) problems.push(`change of ${entry}, an entry that does not exist`)
      const credentials = new Map((await records(view.storage, 'credentials')).map((c) => [c.id, c.encoded as string]))
      for (const id of view.ledger.revoked.keys()) {
        const jwt = credentials.get(id)
        if (jwt === undefined) problems.push(`revoked credential ${id} is missing`)
        else if (entries.get(statusEntryOf(jwt)) !== true) problems.push(`revocation of ${id} (${statusEntryOf(jwt)}) is not set`)
      }
      return problems
    },
  },
  {
    name: 'every acknowledged revocation older than the publication interval shows in its published list',
    async problems(view) {
      const credentials = new Map((await records(view.storage, 'credentials')).map((c) => [c.id, c.encoded as string]))
      const lists = new Map<string, Buffer>()
      const problems: string[] = []
      for (const [id, at] of view.ledger.revoked) {
        if (Date.now() - at < PUBLISH_INTERVAL_MS + 500) continue
        const [listId, index] = statusEntryOf(credentials.get(id)!).split('/')
        if (!lists.has(listId)) lists.set(listId, await publishedBits(view.url, listId))
        if (!bitAt(lists.get(listId)!, Number(index))) problems.push(`revocation of ${id} (${listId}/${index}) is not published`)
      }
      return problems
    },
  },
  {
    // A kill -9 may leave records committed but not chained yet: they are the chain's lag (not a break), and count as recorded.
    name: 'the audit chain is intact and has a record (chained or committed to be) for each acknowledged vault wallet and stored credential',
    async problems(view) {
      const report = await verifyChain(view.storage, TENANT)
      const problems = report.break ? [`audit chain broken at seq ${report.break.seq}: ${report.break.problem}`] : []
      // Appends first: the sequencer (running in the restarted server) moves records from auditAppends to auditRecords
      // in one transaction, so a record not among the appends read first is among the records read after.
      const appended = await records(view.storage, 'auditAppends')
      const recorded = [...appended, ...(await records(view.storage, 'auditRecords'))]
      const audited = new Set(recorded.map((r) => `${r.action} ${r.targetId}`))
      for (const did of view.ledger.wallets.keys())
        if (!audited.has(`wallet.create ${did}`)) problems.push(`acknowledged wallet ${did} has no wallet.create record`)
      for (const id of view.ledger.credentials.keys())
        if (!audited.has(`credential.store ${id}`)) problems.push(`acknowledged credential ${id} has no credential.store record`)
      return problems
    },
  },
]

/** `didvault serve`'s default `statusPublishIntervalMs`: a list changed longer ago than this is signed on its next GET. */
const PUBLISH_INTERVAL_MS = 1_000

/** The bitstring of a published status list (a VC-JWT): `encodedList` is multibase base64url of its GZIP. */
async function publishedBits(url: string, listId: string): Promise<Buffer> {
  const res = await http(`${url}/status/${listId}`)
  if (res.status !== 200) throw new Error(`GET /status/${listId}: ${res.status} ${JSON.stringify(res.body)}`)
  const payload = JSON.parse(Buffer.from(String(res.body).split('.')[1], 'base64url').toString())
  const encoded = payload.vc.credentialSubject.encodedList as string
  return gunzipSync(Buffer.from(encoded.slice(1), 'base64url'))
}

/** Bit `index` of a W3C bitstring: index 0 is the most significant bit of the first byte. */
const bitAt = (bits: Buffer, index: number) => ((bits[index >> 3] >> (7 - (index & 7))) & 1) === 1

/**
 * Stored credentials on one storage adapter, through the service (`storeClaims`, `getClaims`):
 *
 * - store: batches of 1,000 VC-JWTs (parsed and indexed, not verified), against the floor of
 *   the adapter's own batched insert of the same records (`insertMany` of 1,000, one transaction);
 * - fetch by issuer (10 rows) with access filtering (the caller is the issuer: one ground of the
 *   access `or`), at 10k and 100k stored, against the adapter's raw indexed page (issuer = ?,
 *   limit 10, no access filter) measured interleaved.
 *
 * The credentials are synthetic VC-JWTs (a well-formed header and payload, a dummy signature):
 * Store does not check signatures unless asked, so signing 100k would only measure the signer.
 */
import { randomUUID } from 'node:crypto'
import { IdentityService, randomMasterKey, staticTenants, type StorageAdapter } from '../src/index.js'
import type { CredentialRecord } from '../src/credentials/records.js'
import { measurePair, type MeasureOptions, type Measurement } from './measure.js'

const API_KEY = 'bench-credentials-api-key-0123456789'
const TENANT = 'bench-credentials'
/** Tenant of the store floor's records (removed after its measurement). */
const RAW_TENANT = 'bench-raw'
const BATCH = 1_000

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
const HEADER = b64({ alg: 'ES256K', typ: 'JWT' })
let serial = 0

/** A synthetic VC-JWT by `iss` (unique content). */
export function vcJwt(iss: string): string {
  serial += 1
  const sub = `did:ethr:dev:0x${serial.toString(16).padStart(40, '0')}`
  const payload = {
    iss,
    sub,
    jti: `urn:uuid:${randomUUID()}`,
    nbf: 1_700_000_000,
    vc: { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], credentialSubject: { n: serial } },
  }
  return `${HEADER}.${b64(payload)}.c2ln`
}

export interface FetchFigures {
  stored: number
  fetchByIssuer: Measurement
  rawIndexedPage: Measurement
  ratio: number
}

export interface StoreFigures {
  storeBatch1000: Measurement
  storeRowsPerSec: number
  rawInsertBatch1000: Measurement
  rawInsertRowsPerSec: number
  storeVsRawInsert: number
}

export interface CredentialResults extends StoreFigures {
  fetch: { at10k: FetchFigures; at100k: FetchFigures; latencyRatio100kVs10k: number }
}

/** The floors the service's store and fetch are measured against. */
export interface CredentialFloors {
  label: string
  /** Inserts the records in one transaction: the store's floor. */
  insertBatch(records: CredentialRecord[]): Promise<unknown>
  /** The raw indexed page: 10 records of `issuer` in `tenant`, no access filter. */
  issuerPage(tenant: string, issuer: string): Promise<unknown>
}

/** The service, a caller storing as `me`, and the synthetic credentials it stores. */
export interface CredentialBench {
  label: string
  storage: StorageAdapter
  tenant: string
  me: string
  /** The issuers of every credential but the caller's ten. */
  others: string[]
  asMe: ReturnType<IdentityService['as']>
  /** `n` synthetic claims by `iss` (default: the others, in turn). */
  batchOf(n: number, iss?: string): Array<{ jwt: string }>
  /** The credentials stored in the tenant. */
  count(): Promise<number>
  close(): Promise<void>
}

const round = (n: number, digits: number) => Number(n.toFixed(digits))

/** The service on `storage` with the caller and its ten credentials stored (the rows every fetch returns). */
export async function openCredentialBench(label: string, storage: StorageAdapter): Promise<CredentialBench> {
  const service = await IdentityService.create({ storage, masterKey: randomMasterKey(), tenants: staticTenants({ [API_KEY]: TENANT }) })
  const authorization = `Bearer ${API_KEY}`
  const api = service.as({ authorization })
  const me = (await api.generateWallet({ wallet: { alias: 'issuer' } })).wallet.did
  const asMe = service.as({ authorization, didAuth: (await api.generateToken({ iss: me })).jwt })
  const others = Array.from({ length: 50 }, (_, i) => `did:ethr:dev:0x${(i + 1).toString(16).padStart(40, 'f')}`)
  const batchOf = (n: number, iss?: string) =>
    Array.from({ length: n }, (_, i) => ({ jwt: vcJwt(iss ?? others[(serial + i) % others.length]) }))
  await asMe.storeClaims({ claims: batchOf(10, me) })
  const count = () => storage.collection('credentials').count({ field: 'tenantId', op: 'eq', value: TENANT })
  return { label, storage, tenant: TENANT, me, others, asMe, batchOf, count, close: () => service.close() }
}

/** Credential records of `issuer` in tenant `bench-raw`, as the store's floor inserts them. */
export function rawCredentialRecords(issuer: string, subject: string, storedBy: string): CredentialRecord[] {
  return Array.from({ length: BATCH }, () => ({
    id: randomUUID(),
    tenantId: RAW_TENANT,
    format: 'JWT',
    jwt: vcJwt(issuer),
    issuer,
    subject,
    types: ['VerifiableCredential'],
    storedBy: [storedBy],
    isPublicAccess: false,
    roles: [],
    hash: randomUUID(),
    createdAt: Date.now(),
  }))
}

/** Stores batches of 1,000 through the service, interleaved with the floor's insert of 1,000 records (removed after). */
export async function measureStore(bench: CredentialBench, floors: CredentialFloors, options: MeasureOptions): Promise<StoreFigures> {
  const { label, asMe, others } = bench
  const [storeBatch1000, rawInsertBatch1000] = await measurePair(
    { label: `${label}: store 1,000 VC-JWTs (service)`, fn: () => asMe.storeClaims({ claims: bench.batchOf(BATCH) }) },
    {
      label: `${label}: ${floors.label} of 1,000 credential records`,
      fn: () => floors.insertBatch(rawCredentialRecords(others[0], others[1], bench.me)),
    },
    options,
  )
  await bench.storage.collection('credentials').deleteMany({ field: 'tenantId', op: 'eq', value: RAW_TENANT })
  return {
    storeBatch1000,
    storeRowsPerSec: round(storeBatch1000.opsPerSec * BATCH, 0),
    rawInsertBatch1000,
    rawInsertRowsPerSec: round(rawInsertBatch1000.opsPerSec * BATCH, 0),
    storeVsRawInsert: round(storeBatch1000.opsPerSec / rawInsertBatch1000.opsPerSec, 3),
  }
}

/** Stores credentials by other issuers through the service until the tenant holds `n`. */
export async function fillThroughService(bench: CredentialBench, n: number): Promise<void> {
  for (let have = await bench.count(); have < n; have += BATCH)
    await bench.asMe.storeClaims({ claims: bench.batchOf(Math.min(BATCH, n - have)) })
}

/** The caller's fetch by issuer (its ten credentials, access-filtered) interleaved with the floor's raw indexed page. */
export async function measureFetch(bench: CredentialBench, floors: CredentialFloors, options: MeasureOptions): Promise<FetchFigures> {
  const { label, asMe, me } = bench
  const stored = await bench.count()
  const [fetchByIssuer, rawIndexedPage] = await measurePair(
    {
      label: `${label}: fetch by issuer, 10 rows, access-filtered, ${stored} stored`,
      fn: async () => {
        if ((await asMe.getClaims({ issuer: me, limit: 10 })).vcs.length !== 10) throw new Error('bench: expected 10 rows')
      },
    },
    { label: `${label}: raw indexed page (issuer, 10 rows), ${stored} stored`, fn: () => floors.issuerPage(bench.tenant, me) },
    options,
  )
  return { stored, fetchByIssuer, rawIndexedPage, ratio: round(fetchByIssuer.opsPerSec / rawIndexedPage.opsPerSec, 3) }
}

/** The adapter's own floors: `insertMany` in a transaction, `find` on the indexed fields. */
function adapterFloors(storage: StorageAdapter): CredentialFloors {
  return {
    label: 'raw insertMany',
    insertBatch: (records) => storage.transaction((tx) => tx.collection<CredentialRecord>('credentials').insertMany(records)),
    issuerPage: (tenant, issuer) =>
      storage.collection<CredentialRecord>('credentials').find(
        {
          and: [
            { field: 'tenantId', op: 'eq', value: tenant },
            { field: 'issuer', op: 'eq', value: issuer },
          ],
        },
        { limit: 10 },
      ),
  }
}

export async function benchCredentials(label: string, storage: StorageAdapter, options: MeasureOptions): Promise<CredentialResults> {
  const bench = await openCredentialBench(label, storage)
  try {
    const floors = adapterFloors(storage)
    const store = await measureStore(bench, floors, options)
    await fillThroughService(bench, 10_000)
    const at10k = await measureFetch(bench, floors, options)
    await fillThroughService(bench, 100_000)
    const at100k = await measureFetch(bench, floors, options)
    return { ...store, fetch: { at10k, at100k, latencyRatio100kVs10k: round(at100k.fetchByIssuer.p50Ms / at10k.fetchByIssuer.p50Ms, 2) } }
  } finally {
    await bench.close()
  }
}

// Standalone: `node --import tsx bench/credentials.ts` (SQLite in a temporary directory).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const { createSqliteStorage } = await import('../src/storage/sqlite/index.js')
  const dir = mkdtempSync(join(tmpdir(), 'didvault-bench-credentials-'))
  try {
    const results = await benchCredentials('sqlite', createSqliteStorage({ path: join(dir, 'credentials.db') }), {
      warmupMs: 200,
      durationMs: 1_000,
    })
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

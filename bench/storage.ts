/**
 * Storage figures per adapter, on the service's own collection specs (`COLLECTIONS`): batched
 * insert (1,000 records per transaction) filling the wallets collection, a filtered list (one
 * tenant's wallets of one vault, first page of 50) at 10k and at 100k stored wallets, point
 * lookup by DID and single insert at 100k.
 * The filtered list matches the same 200 wallets at both sizes, so its latency should not grow
 * with the collection: the 100k/10k ratio stays within 2x when the query runs on an index.
 */
import { performance } from 'node:perf_hooks'
import type { StorageAdapter } from '../src/storage/port.js'
import { COLLECTIONS } from '../src/service/collections.js'
import { type WalletRecord } from '../src/wallets/records.js'
import { measure, type MeasureOptions, type Measurement } from './measure.js'

export interface BatchedInsert {
  batches: number
  recordsPerSec: number
  p50BatchMs: number
  p95BatchMs: number
}

export interface StorageResults {
  singleInsert: Measurement
  batchedInsert1000PerTransaction: BatchedInsert
  pointLookupByDid: Measurement
  filteredListPage50: { at10k: Measurement; at100k: Measurement; latencyRatio100kVs10k: number }
}

const BATCH = 1_000
/** Wallets of the listed vault: the same result at 10k and at 100k. */
const LISTED = 200
const TENANTS = 50

let serial = 0

/** A wallet record shaped like the service's (envelope-sized secret included). */
function wallet(tenant: number, vault: string, index: number): WalletRecord {
  const n = ++serial
  const hex = n.toString(16).padStart(40, '0')
  return {
    id: `w${n}`,
    tenantId: `tenant-${tenant}`,
    vaultId: vault,
    isHDWallet: true,
    index,
    privateKey: 'e'.repeat(220),
    publicKeyHex: `04${hex.repeat(3).slice(0, 128)}`,
    ethereumAddress: `0x${hex}`,
    did: `did:ethr:0x${hex}`,
    didMethod: 'ethr',
    alias: `wallet-${n}`,
    created: new Date(1_700_000_000_000 + n).toISOString(),
    createdAt: 1_700_000_000_000 + n,
  }
}

/** `count` filler wallets spread over tenants and vaults of 1,000 wallets each. */
function fillers(count: number): WalletRecord[] {
  return Array.from({ length: count }, () => {
    const n = serial + 1
    return wallet(n % TENANTS, `vault-${Math.floor(n / BATCH)}`, n)
  })
}

const round = (n: number, digits: number) => Number(n.toFixed(digits))

/** Inserts `records` in transactions of 1,000, timing each. */
async function insertBatched(storage: StorageAdapter, records: WalletRecord[], durations: number[]): Promise<void> {
  for (let at = 0; at < records.length; at += BATCH) {
    const batch = records.slice(at, at + BATCH)
    const started = performance.now()
    await storage.transaction((tx) => tx.collection<WalletRecord>('wallets').insertMany(batch))
    durations.push(performance.now() - started)
  }
}

/** Measures one adapter; `storage` is initialised here and closed by the caller. */
export async function benchStorage(label: string, storage: StorageAdapter, options: MeasureOptions): Promise<StorageResults> {
  serial = 0
  await storage.init(COLLECTIONS)
  const wallets = storage.collection<WalletRecord>('wallets')
  const listedVault = 'vault-listed'
  const listedTenant = 'tenant-listed'
  await wallets.insertMany(Array.from({ length: LISTED }, (_, i) => ({ ...wallet(0, listedVault, i), tenantId: listedTenant })))

  const durations: number[] = []
  let singles = 0
  const stored = () => LISTED + singles + durations.length * BATCH
  await insertBatched(storage, fillers(Math.max(0, 10_000 - stored())), durations)

  const list = () =>
    wallets.find(
      {
        and: [
          { field: 'tenantId', op: 'eq', value: listedTenant },
          { field: 'vaultId', op: 'eq', value: listedVault },
        ],
      },
      { limit: 50 },
    )
  const at10k = await measure({ label: `${label}: filtered list, page of 50, ${stored()} stored`, fn: list }, options)

  await insertBatched(storage, fillers(Math.max(0, 100_000 - stored())), durations)
  const dids = Array.from({ length: 1_000 }, (_, i) => `did:ethr:0x${(1 + ((i * 97) % serial)).toString(16).padStart(40, '0')}`)
  let lookups = 0
  const pointLookupByDid = await measure(
    {
      label: `${label}: point lookup by DID, ${stored()} stored`,
      fn: async () => {
        if ((await wallets.findOne({ field: 'did', op: 'eq', value: dids[lookups++ % dids.length] })) === undefined)
          throw new Error('lookup missed')
      },
    },
    options,
  )
  const at100k = await measure({ label: `${label}: filtered list, page of 50, ${stored()} stored`, fn: list }, options)
  // Last, so that the 10k and 100k points hold exactly that many records.
  const singleInsert = await measure(
    {
      label: `${label}: single insert, from ${stored()} stored`,
      fn: () => (singles++, wallets.insert(wallet(TENANTS + 1, 'vault-singles', singles))),
    },
    options,
  )

  const total = durations.reduce((a, b) => a + b, 0)
  durations.sort((a, b) => a - b)
  const batchedInsert1000PerTransaction: BatchedInsert = {
    batches: durations.length,
    recordsPerSec: round((durations.length * BATCH * 1000) / total, 1),
    p50BatchMs: round(durations[Math.floor(durations.length / 2)], 3),
    p95BatchMs: round(durations[Math.min(durations.length - 1, Math.ceil(durations.length * 0.95) - 1)], 3),
  }
  process.stderr.write(
    `bench: ${`${label}: batched insert, 1,000 per transaction`.padEnd(48)} ${String(batchedInsert1000PerTransaction.recordsPerSec).padStart(9)} records/s\n`,
  )
  return {
    singleInsert,
    batchedInsert1000PerTransaction,
    pointLookupByDid,
    filteredListPage50: { at10k, at100k, latencyRatio100kVs10k: round(at100k.p50Ms / at10k.p50Ms, 3) },
  }
}

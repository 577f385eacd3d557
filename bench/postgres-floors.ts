/**
 * The raw floors of the PostgreSQL figures: statements sent through `pg` directly, not through
 * the adapter, on the tables the adapter laid out (`<schema>."<collection>" (id, data jsonb)` with
 * STORED generated key columns, see src/storage/postgres/layout.ts). The rows they write are the
 * records the service writes, so PostgreSQL computes the same generated columns and index
 * entries; the keys they query are written as the adapter keys a string: `2` and the string
 * (src/storage/postgres/keys.ts).
 */
import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import type { CredentialRecord } from '../src/credentials/records.js'
import type { CredentialFloors } from './credentials.js'
import type { InsertWallet } from './wallet-floor.js'

/** The quoted table of a collection in the (unquoted) `schema`. */
const table = (schema: string, collection: string) => `"${schema}"."${collection}"`

/** The adapter's key of a string. */
const stringKey = (value: string) => `2${value}`

/** One parametrized `INSERT` of the wallet record. */
export function pgWalletInsert(pool: pg.Pool, schema: string): InsertWallet {
  const sql = `INSERT INTO ${table(schema, 'wallets')} (id, data) VALUES ($1, $2::jsonb)`
  return (record) => pool.query(sql, [record.id, JSON.stringify(record)])
}

/** `INSERT … VALUES ($1, $2), ($3, $4), …` of `records` on `client`. */
async function insertRows(client: pg.Pool | pg.PoolClient, schema: string, records: readonly CredentialRecord[]): Promise<void> {
  const values = records.map((_, i) => `($${2 * i + 1}, $${2 * i + 2}::jsonb)`).join(', ')
  await client.query(
    `INSERT INTO ${table(schema, 'credentials')} (id, data) VALUES ${values}`,
    records.flatMap((record) => [record.id, JSON.stringify(record)]),
  )
}

/**
 * The credential floors: one multi-row `INSERT` of the batch in a transaction (`BEGIN` …
 * `COMMIT` on one pooled client), and `SELECT data … WHERE tenant AND issuer LIMIT 10` on the
 * `(tenantId, issuer, createdAt, id)` index.
 */
export function pgCredentialFloors(pool: pg.Pool, schema: string): CredentialFloors {
  const page = `SELECT data FROM ${table(schema, 'credentials')} WHERE "k_tenantId" = $1 AND "k_issuer" = $2 LIMIT 10`
  return {
    label: 'raw pg multi-row INSERT',
    async insertBatch(records) {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        await insertRows(client, schema, records)
        await client.query('COMMIT')
      } catch (err) {
        await client.query('ROLLBACK')
        throw err
      } finally {
        client.release()
      }
    },
    issuerPage: (tenant, issuer) => pool.query(page, [stringKey(tenant), stringKey(issuer)]),
  }
}

/** Rows per fill statement, and statements in flight while filling (one per core of a 2-core machine). */
const FILL_BATCH = 2_000
const FILL_STREAMS = 2

/**
 * Adds `count` copies of `template` (a credential the service stored: same fields, same sizes)
 * with fresh ids, `vcId`s and hashes, their issuers taken in turn from `issuers`, as a bulk load
 * is done: the table's secondary indexes are dropped, the rows written by multi-row `INSERT`s of
 * {@link FILL_BATCH} on {@link FILL_STREAMS} connections, the indexes created again from their
 * saved definitions (`pg_indexes.indexdef`: the same indexes, as many at a time as streams), and
 * the table `ANALYZE`d.
 */
export async function pgFillCredentials(
  pool: pg.Pool,
  schema: string,
  template: CredentialRecord,
  issuers: readonly string[],
  count: number,
): Promise<void> {
  const { rows: indexes } = await pool.query<{ name: string; def: string }>(
    'SELECT indexname AS name, indexdef AS def FROM pg_indexes ' +
      `WHERE schemaname = $1 AND tablename = 'credentials' AND indexname LIKE 'dv\\_%'`,
    [schema],
  )
  for (const { name } of indexes) await pool.query(`DROP INDEX "${schema}"."${name}"`)
  let made = 0
  const next = (): CredentialRecord[] => {
    const n = Math.min(FILL_BATCH, count - made)
    return Array.from({ length: n }, () => {
      const id = randomUUID()
      const hex = id.replaceAll('-', '')
      made += 1
      return { ...template, id, vcId: `urn:uuid:${id}`, issuer: issuers[made % issuers.length], hash: `${hex}${hex}` }
    })
  }
  const stream = async () => {
    while (made < count) await insertRows(pool, schema, next())
  }
  await Promise.all(Array.from({ length: FILL_STREAMS }, stream))
  const pending = [...indexes]
  const build = async () => {
    for (let index = pending.shift(); index !== undefined; index = pending.shift()) await pool.query(index.def)
  }
  await Promise.all(Array.from({ length: FILL_STREAMS }, build))
  await pool.query(`ANALYZE ${table(schema, 'credentials')}`)
}

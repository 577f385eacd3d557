import { createHash } from 'node:crypto'
import { UniqueConstraintError } from '../port.js'
import { KEY_FUNCTION, KEYS_FUNCTION, keyFunctionsDdl, keysFunctionDdl } from './keys.js'
import type { Queryable } from './held-connection.js'
import type { Layout } from './layout.js'
import { quoteIdentifier } from './names.js'
import { CHANGES_CHANNEL } from './change-listener.js'

/**
 * Version of the physical layout (table shapes, key functions, generated columns), kept in
 * `_didvault_meta`. A change to any of them bumps it and adds an upgrade step here; collection
 * specs need no version: {@link migrate} derives tables, columns and indexes from them.
 */
export const SCHEMA_VERSION = 2

/**
 * The table the retry lane locks (`LOCK TABLE … IN EXCLUSIVE MODE`, transaction-scoped): it
 * holds no rows. Added in layout version 2 (version 1 took a session advisory lock instead).
 */
export const RETRY_LANE_TABLE = '_didvault_retry_lane'

/** First key of the advisory lock every didvault migration takes (the second is the schema's hash). */
const MIGRATION_LOCK = 0x64766c74 // 'dvlt'

/**
 * Brings the schema up to `layouts` in one transaction holding an advisory lock, so processes
 * starting together migrate one after the other: the first makes the changes, the others find
 * them recorded and change nothing. Tables, columns and indexes are only added (no data is
 * dropped); indexes didvault made that the specs no longer declare are dropped. Every run that
 * changed something is recorded in `_didvault_migrations` with the digest of its layouts.
 */
export async function migrate(client: Queryable, schema: string, layouts: readonly Layout[]): Promise<void> {
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schema])
    const digest = digestOf(layouts)
    if (!(await upToDate(client, schema, digest))) {
      await createSchema(client, schema)
      for (const layout of layouts) await migrateCollection(client, layout)
      await client.query(`INSERT INTO ${schema}._didvault_migrations (schema_version, layouts) VALUES ($1, $2)`, [SCHEMA_VERSION, digest])
    }
    await client.query('COMMIT')
  } catch (err) {
    await client.query('ROLLBACK')
    throw err
  }
}

function digestOf(layouts: readonly Layout[]): string {
  const shapes = layouts.map((layout) => ({ table: layout.table, spec: layout.spec, indexes: layout.indexes }))
  return createHash('sha256').update(JSON.stringify(shapes)).digest('hex')
}

/** Whether the latest recorded migration is of these layouts at this version (then nothing is done). */
async function upToDate(client: Queryable, schema: string, digest: string): Promise<boolean> {
  const exists = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [`${schema}._didvault_migrations`])
  if (exists.rows[0].t === null) return false
  const latest = await client.query(`SELECT schema_version, layouts FROM ${schema}._didvault_migrations ORDER BY id DESC LIMIT 1`)
  const row = latest.rows[0] as { schema_version: number; layouts: string } | undefined
  if (row !== undefined && row.schema_version > SCHEMA_VERSION) {
    throw new Error(`database schema version ${row.schema_version} is newer than this didvault supports (${SCHEMA_VERSION})`)
  }
  return row?.schema_version === SCHEMA_VERSION && row.layouts === digest
}

/** The schema, its bookkeeping tables and the key functions, when missing. */
async function createSchema(client: Queryable, schema: string): Promise<void> {
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
  await client.query(`CREATE TABLE IF NOT EXISTS ${schema}._didvault_meta (key text PRIMARY KEY, value text NOT NULL)`)
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${schema}._didvault_migrations ` +
      '(id bigserial PRIMARY KEY, schema_version int NOT NULL, layouts text NOT NULL, at timestamptz NOT NULL DEFAULT now())',
  )
  await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.${RETRY_LANE_TABLE} ()`)
  await client.query(
    `INSERT INTO ${schema}._didvault_meta (key, value) VALUES ('schemaVersion', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [String(SCHEMA_VERSION)],
  )
  // Both key functions are created together. The generated columns depend on them, so they are never replaced by
  // functions giving other keys: a schema's SQL `didvault_keys` (releases up to 0.2.0) becomes the PL/pgSQL one, which
  // gives the same keys (an older didvault still reads and writes the schema), at the first migration that meets it.
  const found = await client.query<{ f: string | null }>('SELECT to_regprocedure($1) AS f', [
    `${schema}.${quoteIdentifier(KEY_FUNCTION)}(jsonb)`,
  ])
  if (found.rows[0].f === null) for (const ddl of keyFunctionsDdl(schema)) await client.query(ddl)
  else if ((await keysFunctionLanguage(client, schema)) === 'sql') await client.query(keysFunctionDdl(schema, 'CREATE OR REPLACE FUNCTION'))
  await client.query(changedFunctionDdl(schema))
}

/** The language `didvault_keys` is written in (`sql` up to 0.2.0, `plpgsql` since). */
async function keysFunctionLanguage(client: Queryable, schema: string): Promise<string | undefined> {
  const { rows } = await client.query<{ lanname: string }>(
    'SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.oid = to_regprocedure($1)',
    [`${schema}.${quoteIdentifier(KEYS_FUNCTION)}(jsonb)`],
  )
  return rows[0]?.lanname
}

/** The trigger function that tells listeners a cached table changed (delivered on commit, once per transaction). */
const CHANGED_FUNCTION = 'didvault_changed'

function changedFunctionDdl(schema: string): string {
  return (
    `CREATE OR REPLACE FUNCTION ${schema}.${CHANGED_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN ` +
    `PERFORM pg_notify('${CHANGES_CHANNEL}', json_build_object('s', TG_TABLE_SCHEMA, 't', TG_TABLE_NAME)::text); ` +
    `RETURN NULL; END $fn$`
  )
}

/**
 * A collection declared `cached` gets a statement trigger notifying every write (of any process, made through
 * didvault or not) to the change listeners (`change-listener.ts`); one no longer declared so loses it.
 */
async function migrateChangeTrigger(client: Queryable, layout: Layout): Promise<void> {
  const trigger = quoteIdentifier(CHANGED_FUNCTION)
  await client.query(`DROP TRIGGER IF EXISTS ${trigger} ON ${layout.table}`)
  if (layout.spec.cached !== true) return
  await client.query(
    `CREATE TRIGGER ${trigger} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${layout.table} ` +
      `FOR EACH STATEMENT EXECUTE FUNCTION ${layout.schema}.${CHANGED_FUNCTION}()`,
  )
}

async function migrateCollection(client: Queryable, layout: Layout): Promise<void> {
  const { schema, table } = layout
  await client.query(`CREATE TABLE IF NOT EXISTS ${table} (id text COLLATE "C" PRIMARY KEY, data jsonb NOT NULL)`)
  // STORED generated columns: PostgreSQL computes them in the writing statement itself (every
  // writer, any process), and adding one to a table with rows computes it for them.
  for (const field of layout.declared.fields) {
    await client.query(
      `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${layout.column(field)} text COLLATE "C" ` +
        `GENERATED ALWAYS AS (${schema}.${quoteIdentifier(KEY_FUNCTION)}(data -> '${field}')) STORED`,
    )
  }
  for (const field of layout.declared.arrayFields) {
    await client.query(
      `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${layout.arrayColumn(field)} text[] ` +
        `GENERATED ALWAYS AS (${schema}.${quoteIdentifier(KEYS_FUNCTION)}(data -> '${field}')) STORED`,
    )
  }
  await dropRetiredIndexes(client, layout)
  await migrateChangeTrigger(client, layout)
  for (const index of layout.indexes) {
    const ddl =
      `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${quoteIdentifier(index.name)} ON ${table} ` +
      `USING ${index.method} (${index.columns.join(', ')})`
    try {
      await client.query(ddl)
    } catch (err) {
      if ((err as { code?: unknown }).code === '23505') throw new UniqueConstraintError(layout.name, index.fields)
      throw err
    }
  }
}

/** Drops the indexes of the collection's table that didvault named (`dv_…`) and the layout no longer plans. */
async function dropRetiredIndexes(client: Queryable, layout: Layout): Promise<void> {
  const planned = new Set(layout.indexes.map((index) => index.name))
  const existing = await client.query(
    `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 AND indexname LIKE 'dv\\_%'`,
    [unquote(layout.schema), layout.name],
  )
  for (const { indexname } of existing.rows as Array<{ indexname: string }>) {
    if (!planned.has(indexname)) await client.query(`DROP INDEX IF EXISTS ${layout.schema}.${quoteIdentifier(indexname)}`)
  }
}

/** The name a quoted identifier stands for. */
function unquote(quoted: string): string {
  return quoted.slice(1, -1).replaceAll('""', '"')
}

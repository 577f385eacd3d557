import { UniqueConstraintError } from '../port.js'
import type { Connection } from './connection.js'
import { sqlJsonScalar } from './encoding.js'
import { columnExpression, columnName, jsonPath, type Layout, quoteIdentifier, sideTableName } from './layout.js'

/**
 * Version of the physical layout (table shapes, column expressions, value encoding), kept in
 * `_didvault_meta`. A change to any of them bumps it and adds an upgrade step here; collection
 * specs themselves need no version: {@link migrate} derives their tables, columns, indexes and
 * side tables from the specs and adds whatever an existing database lacks.
 *
 * 2 (release 0.2.0): no table changed shape, but the audit trail's records are chained by a
 * sequencer after commit instead of in the act's transaction; a 0.1.0 process, which refuses a
 * version above 1, must not keep writing beside it (it would chain records after a head whose
 * hash it does not update). The upgrade from 1 needs no step.
 */
export const SCHEMA_VERSION = 2

/**
 * Brings the database up to `layouts`, idempotently: tables, columns and side tables are only
 * ever added (no data is dropped); indexes didvault made that the specs no longer declare (a
 * unique constraint a release relaxed) are dropped.
 * Call inside {@link Connection.atomically} so concurrent processes initialise one at a time.
 */
export function migrate(connection: Connection, layouts: Layout[]): void {
  connection.db.exec('CREATE TABLE IF NOT EXISTS _didvault_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)')
  const row = connection.statement("SELECT value FROM _didvault_meta WHERE key = 'schemaVersion'").get() as { value: string } | undefined
  if (row !== undefined && Number(row.value) > SCHEMA_VERSION) {
    throw new Error(`database schema version ${row.value} is newer than this didvault supports (${SCHEMA_VERSION})`)
  }
  connection
    .statement("INSERT INTO _didvault_meta (key, value) VALUES ('schemaVersion', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
    .run(String(SCHEMA_VERSION))
  for (const layout of layouts) migrateCollection(connection, layout)
}

/**
 * For a database opened read-only: throws unless it holds a table for every layout, at a schema
 * version this didvault reads (what {@link migrate} would have to change cannot be changed).
 */
export function assertMigrated(connection: Connection, layouts: Layout[]): void {
  const tables = new Set(
    (connection.statement("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as Array<{ name: string }>).map((t) => t.name),
  )
  const row = tables.has('_didvault_meta')
    ? (connection.statement("SELECT value FROM _didvault_meta WHERE key = 'schemaVersion'").get() as { value: string } | undefined)
    : undefined
  if (row === undefined) throw new Error('not a didvault database (no schema version)')
  if (Number(row.value) > SCHEMA_VERSION) {
    throw new Error(`database schema version ${row.value} is newer than this didvault supports (${SCHEMA_VERSION})`)
  }
  const missing = layouts.filter((layout) => !tables.has(layout.name)).map((layout) => layout.name)
  if (missing.length > 0) {
    throw new Error(
      `the database lacks the tables ${missing.join(', ')} of this didvault version (it was last opened by an older one); ` +
        'open it read-write once (didvault serve) to migrate it',
    )
  }
}

function migrateCollection(connection: Connection, layout: Layout): void {
  const { db } = connection
  db.exec(`CREATE TABLE IF NOT EXISTS ${layout.table} (id TEXT PRIMARY KEY, data TEXT NOT NULL)`)

  // Declared fields become generated columns rather than bare expression indexes: queries,
  // ORDER BY and row-value cursor seeks name a plain column, so the planner always matches the
  // index without the query repeating the exact JSON expression. They are VIRTUAL, not STORED:
  // ALTER TABLE can add a VIRTUAL column to a table that already has rows (STORED would need a
  // table rebuild), and the index on the column stores the computed value anyway, so index
  // seeks, range scans and ordered walks never re-parse the JSON.
  const columns = connection.statement('SELECT name FROM pragma_table_xinfo(?)').all(layout.name) as Array<{ name: string }>
  const existing = new Set(columns.map((column) => column.name))
  for (const field of layout.scalarFields) {
    if (existing.has(columnName(field))) continue
    db.exec(
      `ALTER TABLE ${layout.table} ADD COLUMN ${quoteIdentifier(columnName(field))} GENERATED ALWAYS AS ` +
        `(${columnExpression(field)}) VIRTUAL`,
    )
  }

  for (const field of layout.arrayFields) migrateSideTable(connection, layout, field)

  dropRetiredIndexes(connection, layout)
  for (const index of layout.indexes) {
    try {
      db.exec(
        `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${quoteIdentifier(index.name)} ON ${layout.table} ` +
          `(${index.columns.join(', ')})`,
      )
    } catch (err) {
      if ((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new UniqueConstraintError(layout.name, index.fields)
      throw err
    }
  }
}

/**
 * Drops the indexes of the collection's table that didvault named (`<collection>/…`) and the
 * layout no longer plans. Side tables' indexes belong to their own tables and are not touched.
 */
function dropRetiredIndexes(connection: Connection, layout: Layout): void {
  const planned = new Set(layout.indexes.map((index) => index.name))
  const existing = connection.statement("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?").all(layout.name) as Array<{
    name: string
  }>
  for (const { name } of existing) {
    if (name.startsWith(`${layout.name}/`) && !planned.has(name)) connection.db.exec(`DROP INDEX IF EXISTS ${quoteIdentifier(name)}`)
  }
}

/**
 * Side table `"<collection>__<field>"(id, value)` holding one row per distinct scalar element of
 * the array, indexed on (value, id) for `containsAny`. Triggers keep it in sync with `data`
 * inside the writing statement itself (so every writer, in any process, maintains it); deletes
 * cascade through the foreign key. A side table created for an existing collection is backfilled.
 */
function migrateSideTable(connection: Connection, layout: Layout, field: string): void {
  const { db } = connection
  const name = sideTableName(layout.name, field)
  const side = quoteIdentifier(name)
  const path = jsonPath(field)
  const isNew = connection.statement("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) === undefined

  const elements = (source: string, row: string): string =>
    `SELECT DISTINCT ${row}.id, ${sqlJsonScalar('j.type', 'j.value')} FROM ${source}json_each(${row}.data, ${path}) AS j ` +
    `WHERE json_type(${row}.data, ${path}) = 'array' AND j.type NOT IN ('object', 'array')`

  db.exec(`CREATE TABLE IF NOT EXISTS ${side} (id TEXT NOT NULL REFERENCES ${layout.table} (id) ON DELETE CASCADE, value)`)
  db.exec(`CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${name}/value`)} ON ${side} (value, id)`)
  db.exec(`CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${name}/id`)} ON ${side} (id)`)
  db.exec(
    `CREATE TRIGGER IF NOT EXISTS ${quoteIdentifier(`${name}/insert`)} AFTER INSERT ON ${layout.table} ` +
      `BEGIN INSERT INTO ${side} (id, value) ${elements('', 'new')}; END`,
  )
  db.exec(
    `CREATE TRIGGER IF NOT EXISTS ${quoteIdentifier(`${name}/update`)} AFTER UPDATE OF data ON ${layout.table} ` +
      `WHEN json_extract(old.data, ${path}) IS NOT json_extract(new.data, ${path}) ` +
      `BEGIN DELETE FROM ${side} WHERE id = old.id; INSERT INTO ${side} (id, value) ${elements('', 'new')}; END`,
  )
  if (isNew) db.exec(`INSERT INTO ${side} (id, value) ${elements(`${layout.table} AS src, `, 'src')}`)
}

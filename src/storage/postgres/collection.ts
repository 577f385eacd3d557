import type { QueryResultRow } from 'pg'
import { assertAtMost, incrementSet } from '../increment-set.js'
import type { Collection, FindOptions, Page, StoredRecord, Where } from '../port.js'
import { assertLimit } from '../paging.js'
import { mapConstraint } from './errors.js'
import type { Layout } from './layout.js'
import { assertFieldName } from './names.js'
import { compileWhere, cursorAfter, type FindQuery, findQueries, type Ordering, Params, withLimit } from './query.js'

/** What a collection needs from the adapter scope it was obtained from. */
export interface PostgresSession {
  /** The layout of an initialised collection; throws for unknown ones. */
  layout(name: string): Layout
  /** Runs one statement on the scope's connection (the pool, or the transaction's client). */
  query<R extends QueryResultRow>(sql: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>
  /** The answer of the read `key` of collection `name`: `load()`'s, or the read cache's (`read-cache.ts`). */
  read<R>(name: string, key: () => string, load: () => Promise<R>): Promise<R>
  /** Runs `write`, a write to collection `name`, telling the read cache before it and once it is committed. */
  writing<R>(name: string, write: () => Promise<R>): Promise<R>
}

interface Row {
  data: StoredRecord
}

/** A record as the JSON text bound for its `jsonb` row; throws for a record without a non-empty string id. */
export function serialize(record: StoredRecord): string {
  if (typeof record !== 'object' || record === null || typeof record.id !== 'string' || record.id === '') {
    throw new TypeError('a record must be an object with a non-empty string id')
  }
  return JSON.stringify(record)
}

/** A collection stored as a table of `jsonb` documents; see {@link Layout} for the shape. */
export class PostgresCollection<T extends StoredRecord> implements Collection<T> {
  constructor(
    private readonly session: PostgresSession,
    private readonly name: string,
  ) {}

  /** Runs a write, mapping unique violations. */
  private async write<R>(op: (layout: Layout) => Promise<R>): Promise<R> {
    const layout = this.session.layout(this.name)
    return this.session.writing(this.name, async () => {
      try {
        return await op(layout)
      } catch (err) {
        throw mapConstraint(layout, err)
      }
    })
  }

  insert(record: T): Promise<void> {
    return this.write(async (layout) => {
      await this.session.query(`INSERT INTO ${layout.table} (id, data) VALUES ($1, $2::jsonb)`, [record.id, serialize(record)])
    })
  }

  /** One statement over the records bound as one `jsonb` array: all or nothing. */
  insertMany(records: T[]): Promise<void> {
    return this.write(async (layout) => {
      const array = `[${records.map(serialize).join(',')}]`
      await this.session.query(`INSERT INTO ${layout.table} (id, data) SELECT r ->> 'id', r FROM jsonb_array_elements($1::jsonb) AS r`, [
        array,
      ])
    })
  }

  async get(id: string): Promise<T | undefined> {
    const { table } = this.session.layout(this.name)
    return this.session.read(
      this.name,
      () => `get ${id}`,
      async () => {
        const { rows } = await this.session.query<Row>(`SELECT data FROM ${table} WHERE id = $1`, [id])
        return rows[0]?.data as T | undefined
      },
    )
  }

  async findOne(where: Where): Promise<T | undefined> {
    return (await this.find(where, { limit: 1 })).items[0]
  }

  async find(where: Where, options: FindOptions = {}): Promise<Page<T>> {
    const { limit } = options
    assertLimit(limit)
    const { queries, ordering } = findQueries(this.session.layout(this.name), where, options)
    return this.session.read(
      this.name,
      () => `find ${JSON.stringify([where, options])}`,
      () => this.page(queries, ordering, limit),
    )
  }

  /** The page the SELECTs of `find` answer (one row more than asked tells whether another page follows). */
  private async page(queries: FindQuery[], ordering: Ordering, limit: number | undefined): Promise<Page<T>> {
    const wanted = limit === undefined ? Infinity : limit + 1
    const records: T[] = []
    for (const query of queries) {
      const remaining = wanted === Infinity ? undefined : wanted - records.length
      const { rows } = await this.session.query<Row>(withLimit(query, remaining), query.params)
      records.push(...rows.map((row) => row.data as T))
      if (records.length >= wanted) break
    }
    if (records.length < wanted) return { items: records }
    const items = records.slice(0, limit)
    return { items, nextCursor: cursorAfter(ordering, items[items.length - 1]) }
  }

  async count(where: Where = { and: [] }): Promise<number> {
    const { sql, params } = countQuery(this.session.layout(this.name), where)
    return (await this.session.query<{ n: number }>(sql, params)).rows[0].n
  }

  /** One statement: `data || patch` minus the fields set to `undefined`, so no concurrent update is lost. */
  update(id: string, patch: Partial<T>): Promise<T | undefined> {
    return this.write(async (layout) => {
      const removed = Object.keys(patch).filter((field) => patch[field] === undefined && field !== 'id')
      const { rows } = await this.session.query<Row>(
        `UPDATE ${layout.table} SET data = (data || $2::jsonb) - $3::text[] WHERE id = $1 RETURNING data`,
        [id, JSON.stringify({ ...patch, id }), removed],
      )
      return rows[0]?.data as T | undefined
    })
  }

  delete(id: string): Promise<boolean> {
    return this.write(async ({ table }) => ((await this.session.query(`DELETE FROM ${table} WHERE id = $1`, [id])).rowCount ?? 0) > 0)
  }

  async deleteIds(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0
    return this.write(
      async ({ table }) => (await this.session.query(`DELETE FROM ${table} WHERE id = ANY($1::text[])`, [[...new Set(ids)]])).rowCount ?? 0,
    )
  }

  deleteMany(where: Where): Promise<number> {
    return this.write(async (layout) => {
      const params = new Params()
      const sql = `DELETE FROM ${layout.table} WHERE ${compileWhere(layout, where, params)}`
      return (await this.session.query(sql, params.values)).rowCount ?? 0
    })
  }

  /** One `UPDATE … RETURNING`: atomic against every other connection (the row stays locked until commit). */
  increment(id: string, field: string, by = 1, set?: Partial<T>, atMost?: number): Promise<number> {
    return this.write(async (layout) => {
      assertFieldName(field)
      if (!Number.isFinite(by)) throw new TypeError(`increment needs a finite number, got ${by}`)
      assertAtMost(atMost)
      const also = incrementSet(field, set)
      const value = `COALESCE(data -> '${field}', 'null'::jsonb)`
      const sum = `to_jsonb(COALESCE((data ->> '${field}')::numeric, 0) + $2::numeric)`
      // `set`'s fields merged first (they never name `field`), the sum over the stored value: one statement.
      const params = [id, String(by), ...(also.length > 0 ? [JSON.stringify(Object.fromEntries(also))] : [])]
      const merged = also.length > 0 ? `(data || $3::jsonb)` : 'data'
      if (atMost !== undefined) params.push(String(atMost))
      const bound =
        atMost !== undefined ? ` AND COALESCE((data ->> '${field}')::numeric, 0) + $2::numeric <= $${params.length}::numeric` : ''
      const { rows } = await this.session.query<{ value: number }>(
        `UPDATE ${layout.table} SET data = jsonb_set(${merged}, '{${field}}', ${sum}) ` +
          `WHERE id = $1 AND jsonb_typeof(${value}) IN ('number', 'null')${bound} RETURNING data -> '${field}' AS value`,
        params,
      )
      if (rows.length > 0) return Number(rows[0].value)
      const found = await this.session.query<{ type: string; value: string | null }>(
        `SELECT jsonb_typeof(${value}) AS type, data ->> '${field}' AS value FROM ${layout.table} WHERE id = $1`,
        [id],
      )
      const stored = found.rows[0]
      // Past `atMost`: nothing written, the value it would have had.
      if (atMost !== undefined && stored && (stored.type === 'number' || stored.type === 'null')) return Number(stored.value ?? 0) + by
      throw new Error(stored ? `field "${field}" of ${this.name}/${id} is not a number` : `no record "${id}" in collection "${this.name}"`)
    })
  }
}

/** The SELECT of `count(where)` (and of its plan). */
export function countQuery(layout: Layout, where: Where): { sql: string; params: unknown[] } {
  const params = new Params()
  return { sql: `SELECT count(*)::int AS n FROM ${layout.table} WHERE ${compileWhere(layout, where, params)}`, params: params.values }
}

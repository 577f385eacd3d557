/**
 * The filter, sort and update documents the MongoDB adapter builds (src/storage/mongo/query.ts)
 * mean what the in-memory adapter answers: both run on the same generated records and queries,
 * the Mongo documents evaluated by mingo (a MongoDB query-language evaluator), no server.
 */
import fc from 'fast-check'
import { find, update as applyModifier } from 'mingo'
import { describe, expect, it } from 'vitest'
import { createMemoryStorage } from '../../src/storage/memory/index.js'
import {
  buildFilter,
  buildFind,
  buildUpdate,
  cursorAfter,
  fromDocument,
  MongoSchema,
  planIndexes,
  toDocument,
  type MongoDocument,
} from '../../src/storage/mongo/query.js'
import type { CollectionSpec, OrderBy, Scalar, StoredRecord, Where } from '../../src/storage/port.js'

const SPEC: CollectionSpec = {
  name: 'items',
  fields: ['name', 'n', 'flag', 'createdAt'],
  arrayFields: ['tags'],
  indexes: [{ fields: ['name', 'n'], unique: true }, { fields: ['flag', 'createdAt'] }],
}
const schema = new MongoSchema(SPEC)

/**
 * Strings mix ASCII, a BMP letter and an astral one. Not a BMP character above the surrogates
 * (e.g. 'ﬀ', U+FB00) together with an astral one: mingo orders strings by UTF-16 units, where
 * '𝄞' (U+1D11E, surrogates D834 DD1E) sorts before 'ﬀ', while MongoDB, SQLite and the memory
 * adapter compare code points (UTF-8 bytes), where it sorts after.
 */
const scalar: fc.Arbitrary<Scalar> = fc.constantFrom<Scalar>(
  'a',
  'b',
  'B',
  'ab',
  'é',
  '𝄞',
  '',
  '2',
  -1,
  0,
  1,
  2,
  2.5,
  1e9,
  true,
  false,
  null,
)
const ABSENT = Symbol('absent')
const fieldValue = fc.oneof(scalar, fc.constant(ABSENT))
const tagsValue = fc.oneof(fc.array(scalar, { maxLength: 3 }), scalar, fc.constant(ABSENT))

const records: fc.Arbitrary<StoredRecord[]> = fc
  .array(
    fc.record({
      name: fieldValue,
      n: fieldValue,
      flag: fieldValue,
      createdAt: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant(ABSENT)),
      tags: tagsValue,
    }),
    {
      maxLength: 14,
    },
  )
  .map((rows) =>
    rows.map((row, i) => {
      const record: StoredRecord = { id: `r${String(i).padStart(2, '0')}${i % 3 === 0 ? 'é' : ''}` }
      for (const [field, value] of Object.entries(row)) if (value !== ABSENT) record[field] = value
      return record
    }),
  )

const scalarField = fc.constantFrom('name', 'n', 'flag', 'createdAt')
const condition: fc.Arbitrary<Where> = fc.oneof(
  fc.record({ field: scalarField, op: fc.constantFrom('eq', 'ne', 'gt', 'gte', 'lt', 'lte'), value: scalar }) as fc.Arbitrary<Where>,
  fc.record({ field: scalarField, op: fc.constant('in'), value: fc.array(scalar, { maxLength: 3 }) }) as fc.Arbitrary<Where>,
  fc.record({
    field: fc.constant('tags'),
    op: fc.constant('containsAny'),
    value: fc.array(scalar, { maxLength: 3 }),
  }) as fc.Arbitrary<Where>,
  fc.record({ field: fc.constantFrom('name', 'n', 'tags'), op: fc.constant('exists'), value: fc.boolean() }) as fc.Arbitrary<Where>,
)
const where: fc.Arbitrary<Where> = fc.letrec<{ where: Where }>((tie) => ({
  where: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    condition,
    fc.record({ and: fc.array(tie('where'), { maxLength: 3 }) }),
    fc.record({ or: fc.array(tie('where'), { maxLength: 3 }) }),
  ),
})).where
const orderBy: fc.Arbitrary<OrderBy | undefined> = fc.option(
  fc.record({ field: scalarField, direction: fc.constantFrom<'asc' | 'desc'>('asc', 'desc') }),
  { nil: undefined },
)

/** Every page of `find` as mingo evaluates the adapter's documents. */
function mingoPages(documents: MongoDocument[], w: Where, order: OrderBy | undefined, limit: number): string[][] {
  const pages: string[][] = []
  let cursor: string | undefined
  for (;;) {
    const plan = buildFind(schema, w, { orderBy: order, limit, cursor })
    const found = find(documents, plan.filter).sort(plan.sort).limit(plan.limit!).all() as MongoDocument[]
    const items = found.slice(0, limit).map((document) => fromDocument(document))
    pages.push(items.map((record) => record.id))
    if (found.length <= limit) return pages
    cursor = cursorAfter(plan.ordering, items[items.length - 1])
  }
}

async function memoryPages(
  storage: ReturnType<typeof createMemoryStorage>,
  w: Where,
  order: OrderBy | undefined,
  limit: number,
): Promise<string[][]> {
  const items = storage.collection('items')
  const pages: string[][] = []
  let cursor: string | undefined
  for (;;) {
    const page = await items.find(w, { orderBy: order, limit, cursor })
    pages.push(page.items.map((record) => record.id))
    if (page.nextCursor === undefined) return pages
    cursor = page.nextCursor
  }
}

/** A memory storage holding `rows` (unique index dropped: generated rows may collide). */
async function memoryWith(rows: StoredRecord[]) {
  const storage = createMemoryStorage()
  await storage.init([{ ...SPEC, indexes: [] }])
  await storage.collection('items').insertMany(rows)
  return storage
}

describe('MongoDB query documents mean what the memory adapter answers (mingo, no server)', () => {
  it('filters: the same matches and counts', async () => {
    await fc.assert(
      fc.asyncProperty(records, where, async (rows, w) => {
        const storage = await memoryWith(rows)
        const expected = (await storage.collection('items').find(w)).items.map((record) => record.id).sort()
        const documents = rows.map(toDocument)
        const actual = (find(documents, buildFilter(schema, w)).all() as MongoDocument[]).map((document) => document._id as string).sort()
        expect(actual).toEqual(expected)
        expect(await storage.collection('items').count(w)).toBe(actual.length)
      }),
      { numRuns: 400 },
    )
  })

  it('order and cursor pagination: the same pages, mixed types, null and absent keys included', async () => {
    await fc.assert(
      fc.asyncProperty(records, where, orderBy, fc.integer({ min: 1, max: 5 }), async (rows, w, order, limit) => {
        const storage = await memoryWith(rows)
        expect(mingoPages(rows.map(toDocument), w, order, limit)).toEqual(await memoryPages(storage, w, order, limit))
      }),
      { numRuns: 300 },
    )
  })

  it('update documents: $set / $unset give the shallow merge the memory adapter stores', async () => {
    const patchValue = fc.oneof(scalar, fc.constant(undefined), fc.constant({ nested: [1, 'x'] }))
    await fc.assert(
      fc.asyncProperty(
        records.filter((rows) => rows.length > 0),
        fc.dictionary(fc.constantFrom('name', 'n', 'extra', 'tags', 'id'), patchValue),
        async (rows, patch) => {
          const storage = await memoryWith(rows)
          const expected = await storage.collection('items').update(rows[0].id, patch)
          const document = toDocument(rows[0])
          const modifier = buildUpdate(patch)
          if (modifier !== undefined) applyModifier(document, modifier as never)
          expect(fromDocument(document)).toEqual(expected)
        },
      ),
      { numRuns: 200 },
    )
  })

  it('an empty and matches everything, an empty or nothing; null range bounds match nothing', () => {
    expect(buildFilter(schema, { and: [] })).toEqual({})
    expect(find([{ _id: 'a' }], buildFilter(schema, { or: [] })).all()).toEqual([])
    expect(find([{ _id: 'a', n: 1 }], buildFilter(schema, { field: 'n', op: 'gte', value: null })).all()).toEqual([])
  })

  it('rejects undeclared fields, wrong operand types, unsafe names and records carrying _id', () => {
    expect(() => buildFilter(schema, { field: 'nope', op: 'eq', value: 1 })).toThrow(/unknown field "nope"/)
    expect(() => buildFilter(schema, { field: 'tags', op: 'eq', value: 'x' })).toThrow(/tags/)
    expect(() => buildFilter(schema, { field: 'name', op: 'containsAny', value: ['x'] })).toThrow(/name/)
    expect(() => buildFilter(schema, { field: 'n', op: 'eq', value: { $gt: 1 } as never })).toThrow(TypeError)
    expect(() => buildUpdate({ $where: 1 })).toThrow(/invalid field name/)
    expect(() => buildUpdate({ 'a.b': 1 })).toThrow(/invalid field name/)
    expect(() => toDocument({ id: 'x', _id: 'y' })).toThrow(/_id/)
    expect(() => new MongoSchema({ name: 'x', fields: ['a.b'], indexes: [] })).toThrow(/invalid field name/)
    expect(() => buildFind(schema, { and: [] }, { cursor: 'garbage' })).toThrow(/invalid cursor/)
  })

  it('plans an index for every declared field (multikey for arrays), declared compounds with _id, partial unique indexes', () => {
    const indexes = planIndexes(schema)
    expect(indexes.map((index) => index.name)).toEqual([
      'f_name',
      'f_n',
      'f_flag',
      'f_createdAt',
      'f_tags',
      'ux_name_n',
      'ix_flag_createdAt',
    ])
    expect(indexes.find((index) => index.name === 'ix_flag_createdAt')!.key).toEqual({ flag: 1, createdAt: 1, _id: 1 })
    const unique = indexes.find((index) => index.unique)!
    expect(unique.key).toEqual({ name: 1, n: 1 })
    // The partial filter constrains exactly the records whose every field holds a non-null scalar.
    const constrained = (record: StoredRecord) => find([toDocument(record)], unique.partialFilterExpression!).all().length === 1
    expect(constrained({ id: 'a', name: 'x', n: 1 })).toBe(true)
    expect(constrained({ id: 'a', name: 'x' })).toBe(false)
    expect(constrained({ id: 'a', name: 'x', n: null })).toBe(false)
  })
})

/**
 * The service's real collections (`COLLECTIONS`, with their fields, array fields, indexes and
 * unique constraints) on the adapter: representative records round-trip, page in the order the
 * service lists them, are found by their array elements, and every declared unique constraint
 * rejects a duplicate with the error the service turns into a conflict, while records lacking one
 * of its fields stay unconstrained (standalone wallets, credentials stored before `storerKey`).
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { COLLECTIONS } from '../service/collections.js'
import { SERVICE_STORAGE_REQUIREMENTS } from '../service/storage-requirements.js'
import { type ConformanceGroup, freshTenant } from '../storage/conformance/index.js'
import { type Collection, type StorageAdapter, type StoredRecord, UniqueConstraintError, type Where } from '../storage/port.js'
import { SAMPLE_COLLECTIONS, type SampleCollection } from './service-records.js'

/** `record` with only `fields` (those it holds). */
function pick(record: StoredRecord, fields: readonly string[]): Partial<StoredRecord> {
  return Object.fromEntries(fields.filter((field) => field in record).map((field) => [field, record[field]]))
}

/** `record` without `field`. */
function without(record: StoredRecord, field: string): StoredRecord {
  const { [field]: _dropped, ...rest } = record
  return rest as StoredRecord
}

function defineCollection(sample: SampleCollection, current: () => StorageAdapter): void {
  const { declaration } = sample
  let records: Collection<StoredRecord>
  let scope: string
  const inScope = (): Where => ({ field: sample.scopeField, op: 'eq', value: scope })
  const make = (n: number): StoredRecord => sample.record(scope, n)
  beforeEach(() => {
    records = current().collection(declaration.name)
    scope = freshTenant()
  })

  it('stores a record and reads it back exactly, nested values and arrays included', async () => {
    const record = make(1)
    await records.insert(record)
    expect(await records.get(record.id)).toEqual(record)
    expect((await records.find(inScope())).items).toEqual([record])
  })

  it('pages its records in the order the service lists them (createdAt, then id), both ways', async () => {
    const stored = [1, 2, 3, 4, 5].map(make)
    await records.insertMany(stored)
    for (const direction of ['asc', 'desc'] as const) {
      const read: StoredRecord[] = []
      let cursor: string | undefined
      do {
        const page = await records.find(inScope(), { limit: 2, cursor, orderBy: { field: 'createdAt', direction } })
        read.push(...page.items)
        cursor = page.nextCursor
      } while (cursor !== undefined)
      expect(read).toEqual(direction === 'asc' ? stored : [...stored].reverse())
    }
  })

  for (const field of declaration.arrayFields ?? []) {
    it(`finds records by the elements of ${field} (containsAny)`, async () => {
      const [first, second] = [make(1), make(2)]
      await records.insertMany([first, second])
      const element = (first[field] as unknown[]).at(-1) as string
      const found = await records.find({ and: [inScope(), { field, op: 'containsAny', value: [element] }] })
      expect(found.items.map((record) => record.id)).toEqual([first.id])
    })
  }

  for (const index of declaration.indexes.filter((declared) => declared.unique)) {
    const fields = index.fields.join(', ')

    it(`rejects a second record with the same (${fields}), on insert and on update, naming the index`, async () => {
      const [first, second] = [make(1), make(2)]
      await records.insertMany([first, second])
      const error = await records.insert({ ...make(3), ...pick(first, index.fields) }).catch((err: unknown) => err)
      expect(error).toBeInstanceOf(UniqueConstraintError)
      expect(error).toMatchObject({ collection: declaration.name, fields: index.fields })
      await expect(records.update(second.id, pick(first, index.fields))).rejects.toBeInstanceOf(UniqueConstraintError)
      expect(await records.get(second.id)).toEqual(second)
      expect(await records.get(make(3).id)).toBeUndefined()
    })

    for (const field of index.fields.filter((field) => field !== sample.scopeField)) {
      it(`does not constrain records lacking ${field} by (${fields})`, async () => {
        const first = without(make(1), field)
        const second = { ...without(make(2), field), ...pick(first, index.fields) }
        await records.insertMany([first, second])
        expect(await records.count(inScope())).toBe(2)
      })
    }
  }
}

/** The group; it runs when the adapter can host the service (see {@link SERVICE_STORAGE_REQUIREMENTS}). */
export const serviceCollectionsGroup: ConformanceGroup = {
  title: 'the service’s collections',
  needs: SERVICE_STORAGE_REQUIREMENTS.map((requirement) => requirement.capability),
  define(ctx) {
    let storage: StorageAdapter
    beforeEach(async () => {
      ;({ storage } = ctx.current())
      await storage.init(COLLECTIONS)
    })

    it('has a representative record for every collection the service declares', () => {
      expect(SAMPLE_COLLECTIONS.map((sample) => sample.declaration)).toEqual(COLLECTIONS)
    })

    for (const sample of SAMPLE_COLLECTIONS) describe(sample.declaration.name, () => defineCollection(sample, () => storage))
  },
}

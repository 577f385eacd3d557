/**
 * Migrations: `init(specs)` upgrades a database in place. On every adapter: a database of
 * didvault 0.1.0 (its declarations and records, written through the adapter) is upgraded by the
 * current declarations, keeping every record and serving every service query from an index; `init`
 * is re-runnable over existing data; a field and index declared later are built over the records
 * already stored; a unique index added later is refused over duplicates and one removed stops
 * being enforced. And, for each database of an earlier release the adapter can open (for SQLite:
 * the fixture files), the same upgrade in place.
 *
 * The written-through-the-adapter databases live in collections named after the test
 * (`t_<run>_<n>_wallets`...), so the suite can run against a shared database; the records it
 * leaves there are deleted, the collections themselves are not (the port has no drop).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { COLLECTIONS } from '../service/collections.js'
import { SERVICE_STORAGE_REQUIREMENTS } from '../service/storage-requirements.js'
import { type ConformanceGroup, freshTenant, type StorageFixture } from '../storage/conformance/index.js'
import { type CollectionSpec, type StorageAdapter, type StoredRecord, UniqueConstraintError, type Where } from '../storage/port.js'
import { WALLETS } from '../wallets/records.js'
import { expectServedByIndexes } from './query-plans.js'
import { RELEASE_0_1_0_COLLECTIONS, RELEASE_0_1_0_RECORDS } from './release-0.1.0.js'
import { SAMPLE_COLLECTIONS } from './service-records.js'
import { SERVICE_QUERIES } from './service-queries.js'

const WALLET_SAMPLE = SAMPLE_COLLECTIONS.find((sample) => sample.declaration === WALLETS)!

/** Every record of `collection`, read page by page in its default order (createdAt, then id). */
async function readAll(storage: StorageAdapter, collection: string): Promise<StoredRecord[]> {
  const records: StoredRecord[] = []
  let cursor: string | undefined
  do {
    const page = await storage.collection(collection).find({ and: [] }, { limit: 500, cursor })
    records.push(...page.items)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return records
}

/** Every record of every collection of `specs`, by collection name. */
async function snapshot(storage: StorageAdapter, specs: readonly CollectionSpec[]): Promise<Record<string, StoredRecord[]>> {
  const all: Record<string, StoredRecord[]> = {}
  for (const spec of specs) all[spec.name] = await readAll(storage, spec.name)
  return all
}

/**
 * Inserting a copy (new id) of a stored record that holds every field of a unique index must be
 * refused: the upgraded database enforces the current unique constraints over its old records.
 * Returns how many constraints were checked.
 */
async function expectUniqueConstraintsHold(
  storage: StorageAdapter,
  specs: readonly CollectionSpec[],
  stored: Record<string, StoredRecord[]>,
): Promise<number> {
  let checked = 0
  for (const spec of specs) {
    for (const index of spec.indexes.filter((declared) => declared.unique)) {
      const holds = (record: StoredRecord) => index.fields.every((field) => record[field] !== undefined && record[field] !== null)
      const holder = (stored[spec.name] ?? []).find(holds)
      if (holder === undefined) continue
      const copy = { ...holder, id: `${holder.id}-copy-${freshTenant()}` }
      const insert = storage.collection(spec.name).insert(copy)
      await expect(insert, `${spec.name}(${index.fields.join(', ')})`).rejects.toBeInstanceOf(UniqueConstraintError)
      checked++
    }
  }
  return checked
}

/** Runs the group's tests on collections of their own, named `<prefix><collection>`. */
function defineWrittenThroughAdapter(current: () => StorageAdapter): void {
  let storage: StorageAdapter
  let prefix: string
  const named = (spec: CollectionSpec): CollectionSpec => ({ ...spec, name: `${prefix}${spec.name}` })
  const currentSpecs = (): CollectionSpec[] => COLLECTIONS.map(named)
  beforeEach(() => {
    storage = current()
    prefix = `${freshTenant().replaceAll('-', '_')}_`
  })
  afterEach(async () => {
    // The records go, the collections stay (the port has no drop); a collection a failed test never made is passed over.
    for (const spec of currentSpecs()) {
      const records = storage.collection(spec.name)
      await records.deleteMany({ and: [] }).catch(() => undefined)
    }
  })

  it('a database of didvault 0.1.0 is upgraded in place: records kept, collections and indexes made, init re-runnable', async () => {
    const release = RELEASE_0_1_0_COLLECTIONS.map(named)
    await storage.init(release)
    for (const spec of release) await storage.collection(spec.name).insertMany([...RELEASE_0_1_0_RECORDS[spec.name.slice(prefix.length)]])
    const before = await snapshot(storage, release)

    await storage.init(currentSpecs())
    expect(await snapshot(storage, release)).toEqual(before)
    // Fields 0.1.0 did not declare are queried through the indexes the upgrade built over its records.
    const [oldKey] = RELEASE_0_1_0_RECORDS.apiKeys
    const [oldHead] = RELEASE_0_1_0_RECORDS.didHeads
    expect((await storage.collection(`${prefix}apiKeys`).find({ field: 'scheme', op: 'eq', value: null })).items).toEqual([oldKey])
    const byOwner: Where = {
      and: [
        { field: 'owner', op: 'in', value: [oldHead.owner as string] },
        { field: 'network', op: 'eq', value: 'dev' },
      ],
    }
    expect((await storage.collection(`${prefix}didHeads`).find(byOwner, { orderBy: { field: 'identity' } })).items).toEqual([oldHead])
    await expectServedByIndexes(storage, SERVICE_QUERIES, (name) => `${prefix}${name}`)
    expect(await expectUniqueConstraintsHold(storage, currentSpecs(), before)).toBeGreaterThanOrEqual(3)
    // The collections 0.1.0 did not have take the service's records.
    for (const sample of SAMPLE_COLLECTIONS.filter((s) => !RELEASE_0_1_0_COLLECTIONS.some((spec) => spec.name === s.declaration.name))) {
      const record = sample.record(freshTenant(), 1)
      await storage.collection(`${prefix}${sample.declaration.name}`).insert(record)
      expect(await storage.collection(`${prefix}${sample.declaration.name}`).get(record.id)).toEqual(record)
    }

    const upgraded = await snapshot(storage, currentSpecs())
    await storage.init(currentSpecs())
    await storage.init(currentSpecs())
    expect(await snapshot(storage, currentSpecs())).toEqual(upgraded)
    expect(await expectUniqueConstraintsHold(storage, currentSpecs(), upgraded)).toBeGreaterThanOrEqual(3)
  })

  it('a field and an index declared later are built over the records already stored', async () => {
    const wallets = named(WALLETS)
    const before: CollectionSpec = {
      ...wallets,
      fields: wallets.fields.filter((field) => field !== 'ethereumAddress'),
      indexes: wallets.indexes.filter((index) => !index.fields.includes('ethereumAddress')),
    }
    await storage.init([before])
    const tenant = freshTenant()
    const stored = [1, 2, 3].map((n) => WALLET_SAMPLE.record(tenant, n))
    await storage.collection(wallets.name).insertMany(stored)

    await storage.init([wallets])
    // Only the new field's index can serve this query.
    const where: Where = { field: 'ethereumAddress', op: 'in', value: [stored[1].ethereumAddress as string] }
    const options = { orderBy: { field: 'ethereumAddress' }, limit: 100 }
    expect((await storage.collection(wallets.name).find(where, options)).items).toEqual([stored[1]])
    const plan = await storage.explain(wallets.name, where, options)
    expect(plan.usesIndex, plan.plan).toBe(true)
  })

  it('a unique index added later is refused over duplicates already stored; one removed is no longer enforced', async () => {
    const wallets = named(WALLETS)
    const relaxed: CollectionSpec = { ...wallets, indexes: wallets.indexes.filter((index) => index.fields.join() !== 'tenantId,alias') }
    const tenant = freshTenant()
    const [first, second] = [WALLET_SAMPLE.record(tenant, 1), WALLET_SAMPLE.record(tenant, 2)]
    await storage.init([wallets])
    await storage.collection(wallets.name).insert(first)

    await storage.init([relaxed])
    await storage.collection(wallets.name).insert({ ...second, alias: first.alias })
    expect(await storage.collection(wallets.name).count({ field: 'alias', op: 'eq', value: first.alias as string })).toBe(2)

    const error = await storage.init([wallets]).catch((err: unknown) => err)
    expect(error).toBeInstanceOf(UniqueConstraintError)
    expect(error).toMatchObject({ collection: wallets.name, fields: ['tenantId', 'alias'] })
  })
}

/** An earlier release's database the adapter opens: upgraded in place by `init(COLLECTIONS)`. */
function defineEarlierDatabase(name: string, open: () => Promise<StorageFixture>): void {
  let fixture: StorageFixture | undefined
  afterEach(async () => {
    await fixture?.storage.close()
    await fixture?.cleanup?.()
    fixture = undefined
  })

  // Plans are not asked here: the planner statistics such a file holds describe its few records, for which a scan is the right plan.
  it(`${name}: upgraded in place; every service query runs; unique constraints hold; re-running init changes nothing`, async () => {
    fixture = await open()
    const { storage } = fixture
    await storage.init(COLLECTIONS)
    const upgraded = await snapshot(storage, COLLECTIONS)
    expect(Object.values(upgraded).flat().length, 'the database holds records').toBeGreaterThan(0)
    for (const query of SERVICE_QUERIES) await storage.collection(query.collection).find(query.where, query.options)
    await storage.init(COLLECTIONS)
    expect(await snapshot(storage, COLLECTIONS)).toEqual(upgraded)
    await expectUniqueConstraintsHold(storage, COLLECTIONS, upgraded)
  })
}

/**
 * The group. `earlierDatabases`: databases written by earlier releases that the adapter opens,
 * by name, each a factory opening a fresh copy (see `StorageConformanceOptions`).
 */
export function migrationsGroup(earlierDatabases: Readonly<Record<string, () => Promise<StorageFixture>>> = {}): ConformanceGroup {
  return {
    title: 'migrations',
    needs: SERVICE_STORAGE_REQUIREMENTS.map((requirement) => requirement.capability),
    define(ctx) {
      describe('written through the adapter', () => defineWrittenThroughAdapter(() => ctx.current().storage))
      const names = Object.keys(earlierDatabases)
      if (names.length === 0) return
      describe('databases of earlier releases', () => {
        for (const name of names) defineEarlierDatabase(name, earlierDatabases[name])
      })
    },
  }
}

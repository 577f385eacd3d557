/**
 * Chaining after commit: an act's transaction appends its record, the sequencer chains committed
 * records afterwards. On PostgreSQL (real concurrent transactions): appends committed out of
 * append-number order, one rolled back, give a gap-free chain in the order they were found
 * committed, which verifies, and the rolled-back act has no record anywhere. Two sequencers (two
 * adapters on one SQLite file, two on one PostgreSQL schema) racing on one chain while acts go on
 * never fork it: every record chained exactly once, seqs 1..n. Records not chained yet are lag,
 * never a break — for `verifyChain` and for `GET /audit`, which chains (a bounded number) first.
 * The PostgreSQL adapter tells of each transaction it runs again (the retries counter the
 * one-tenant bench reads from `/metrics`).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUDIT_APPENDS, AUDIT_HEADS, AUDIT_RECORDS, type AuditRecord } from '../../src/audit/records.js'
import { StoredAuditTrail } from '../../src/audit/trail.js'
import { afterCommits } from '../../src/audit/after-commits.js'
import { createMemoryStorage } from '../../src/storage/memory/index.js'
import { verifyChain } from '../../src/audit/verify-chain.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { collectionOf } from '../../src/storage/declaration.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { createPostgresStorage } from '../../src/storage/postgres/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'
import { startHarness, TENANT_A, TENANT_B } from '../helpers/harness.js'
import { ServiceMetrics } from '../../src/observability/metrics.js'

const CHAIN = 'tenant-a'
/** Sequencers that run only when told: their timers never fire during a test. */
const MANUAL = { delayMs: 3_600_000, sweepMs: 3_600_000 }

/** Appends one act (its target id names it) to the chain through `tx`. */
const act = (trail: StoredAuditTrail, tx: StorageAdapter, id: string) =>
  trail.append(tx, { tenantId: CHAIN, dids: [] }, [{ action: 'wallet.create', target: { type: 'wallet', id } }])

/** The chain in seq order. */
async function chainOf(storage: StorageAdapter): Promise<AuditRecord[]> {
  const out: AuditRecord[] = []
  let cursor: string | undefined
  do {
    const page = await collectionOf(storage, AUDIT_RECORDS).find(
      { field: 'tenantId', op: 'eq', value: CHAIN },
      { orderBy: { field: 'seq' }, limit: 1_000, cursor },
    )
    out.push(...page.items)
    cursor = page.nextCursor
  } while (cursor)
  return out
}

/** A promise and its resolver. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void
  const wait = new Promise<void>((resolve) => (open = resolve))
  return { wait, open }
}

let pg: TestPostgres
let dir: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-sequencer-'))
  pg = await startTestPostgres('audit sequencer')
}, 120_000)
afterAll(async () => {
  await pg?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const openPostgres = async () => {
  const storage = await createPostgresStorage({ connectionString: pg.url, schema: pg.schema })
  await storage.init(COLLECTIONS)
  return storage
}

describe('PostgreSQL: appends committed out of append-number order, one rolled back', () => {
  it('chain in the order found committed, gap-free, verified; the rolled-back act has no record', async () => {
    const storage = await openPostgres()
    const trail = new StoredAuditTrail(storage, Date.now, MANUAL)
    try {
      await collectionOf(storage, AUDIT_APPENDS).deleteMany({ field: 'tenantId', op: 'eq', value: CHAIN })
      const late = gate()
      const appendedFirst = gate()
      // `first` draws the lowest append number, then waits while `second` and `third` commit.
      const first = storage.transaction(async (tx) => {
        await act(trail, tx, 'first')
        appendedFirst.open()
        await late.wait
      })
      await appendedFirst.wait
      await storage.transaction((tx) => act(trail, tx, 'second'))
      await storage.transaction((tx) => act(trail, tx, 'third'))
      const rolledBack = storage.transaction(async (tx) => {
        await act(trail, tx, 'rolled-back')
        throw new Error('the act fails')
      })
      await expect(rolledBack).rejects.toThrow('the act fails')
      await trail.flush()
      expect((await chainOf(storage)).map((r) => [r.seq, r.targetId])).toEqual([
        [1, 'second'],
        [2, 'third'],
      ])
      late.open()
      await first
      await storage.transaction((tx) => act(trail, tx, 'fourth'))
      await trail.flush()
      const chain = await chainOf(storage)
      // `first` has the lowest append number but committed after two were chained: seq 3.
      expect(chain.map((r) => [r.seq, r.targetId])).toEqual([
        [1, 'second'],
        [2, 'third'],
        [3, 'first'],
        [4, 'fourth'],
      ])
      expect(await verifyChain(storage, CHAIN)).toEqual({ tenant: CHAIN, records: 4 })
      expect(await collectionOf(storage, AUDIT_HEADS).get(CHAIN)).toMatchObject({ seq: 4, hash: chain[3].hash })
      expect(await collectionOf(storage, AUDIT_APPENDS).count({ field: 'tenantId', op: 'eq', value: CHAIN })).toBe(0)
    } finally {
      await trail.close()
      await storage.close()
    }
  })
})

/**
 * Two adapters of one database, each with a trail (its own sequencer): acts go through both while
 * both sequencers chain the same chain over and over, at once. Then no fork: seqs 1..n, each act
 * exactly once, the chain verifies.
 */
async function race(open: () => Promise<StorageAdapter>, acts: number) {
  const storages = [await open(), await open()]
  const trails = storages.map((s) => new StoredAuditTrail(s, Date.now, MANUAL))
  try {
    await collectionOf(storages[0], AUDIT_APPENDS).deleteMany({ field: 'tenantId', op: 'eq', value: CHAIN })
    const chainedBefore = (await chainOf(storages[0])).length
    let done = false
    const writers = [0, 1].map(async (w) => {
      for (let i = w; i < acts; i += 2) await storages[w].transaction((tx) => act(trails[w], tx, `act-${i}`))
    })
    const sequencers = [0, 1].map(async (w) => {
      // Yielding to timers each time: SQLite's calls resolve without I/O, and the writers back off on timers.
      while (!done) {
        await trails[w].chainPending(CHAIN, 1_000)
        await new Promise((resolve) => setImmediate(resolve))
      }
    })
    try {
      await Promise.all(writers)
    } finally {
      done = true
      await Promise.all(sequencers)
    }
    await Promise.all(trails.map((t) => t.flush()))
    const chain = (await chainOf(storages[1])).slice(chainedBefore)
    expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: acts }, (_, i) => chainedBefore + i + 1))
    expect(chain.map((r) => r.targetId).sort()).toEqual(Array.from({ length: acts }, (_, i) => `act-${i}`).sort())
    const report = await verifyChain(storages[0], CHAIN)
    expect(report).toEqual({ tenant: CHAIN, records: chainedBefore + acts })
  } finally {
    for (const t of trails) await t.close()
    for (const s of storages) await s.close()
  }
}

describe('two sequencers racing on one chain never fork it', () => {
  it('two adapters on one SQLite file', async () => {
    // busyTimeoutMs 0: in one process a connection must not wait synchronously for the other's lock (it backs off instead).
    const path = join(dir, 'race.db')
    await race(async () => {
      const storage = createSqliteStorage({ path, busyTimeoutMs: 0 })
      await storage.init(COLLECTIONS)
      return storage
    }, 120)
  }, 60_000)

  it('two adapters on one PostgreSQL schema', () => race(openPostgres, 120), 60_000)
})

/**
 * A view of `storage` on which every read of a chain's records or head lets `between` run first and
 * after it: another sequencer chaining while `verifyChain` reads, at each point its reads could interleave.
 */
function chainingBetweenReads(storage: StorageAdapter, between: () => Promise<void>): StorageAdapter {
  const interleaved = new Set([AUDIT_RECORDS.name, AUDIT_HEADS.name])
  return new Proxy(storage, {
    get(target, key) {
      if (key !== 'collection') return Reflect.get(target, key, target)
      return (name: string) => {
        const collection = target.collection(name)
        if (!interleaved.has(name)) return collection
        return new Proxy(collection, {
          get(inner, method) {
            const real = Reflect.get(inner, method, inner)
            if (method !== 'get' && method !== 'find') return typeof real === 'function' ? real.bind(inner) : real
            return async (...args: unknown[]) => {
              await between()
              const result = await real.apply(inner, args)
              await between()
              return result
            }
          },
        })
      }
    },
  })
}

describe('verifyChain while another sequencer chains the same chain', () => {
  const verifyWhileChaining = async (open: () => Promise<StorageAdapter>) => {
    const [reader, writer] = [await open(), await open()]
    const trail = new StoredAuditTrail(writer, Date.now, MANUAL)
    try {
      for (let i = 0; i < 3; i++) await writer.transaction((tx) => act(trail, tx, `before-${i}`))
      await trail.chainPending(CHAIN, 1_000)
      const before = (await chainOf(writer)).length
      let n = 0
      const chainOneMore = async () => {
        await writer.transaction((tx) => act(trail, tx, `during-${n++}`))
        await trail.chainPending(CHAIN, 1_000)
      }
      // Every read of the walk has a record chained before and after it: the chain never stops growing.
      const report = await verifyChain(chainingBetweenReads(reader, chainOneMore), CHAIN)
      expect(report.break).toBeUndefined()
      expect(report.records).toBeGreaterThan(before)
      expect(report.records).toBeLessThanOrEqual((await chainOf(writer)).length)
      // A few records chained while it reads, then no more: it follows the head to the end.
      let budget = 5
      const chainAFew = async () => {
        if (budget-- > 0) await chainOneMore()
      }
      const settled = await verifyChain(chainingBetweenReads(reader, chainAFew), CHAIN)
      expect(settled).toEqual({ tenant: CHAIN, records: (await chainOf(writer)).length })
    } finally {
      await trail.close()
      await reader.close()
      await writer.close()
    }
  }

  it('on one SQLite file: no false break, the head checked where the walk reaches it', async () => {
    const path = join(dir, 'verify-while-chaining.db')
    await verifyWhileChaining(async () => {
      const storage = createSqliteStorage({ path, busyTimeoutMs: 0 })
      await storage.init(COLLECTIONS)
      return storage
    })
  }, 60_000)

  it('on one PostgreSQL schema: no false break', () => verifyWhileChaining(openPostgres), 60_000)

  it('a cut tail is still a break when the chain stops growing during the walk', async () => {
    const path = join(dir, 'verify-cut.db')
    const storage = createSqliteStorage({ path })
    await storage.init(COLLECTIONS)
    const trail = new StoredAuditTrail(storage, Date.now, MANUAL)
    try {
      for (let i = 0; i < 4; i++) await storage.transaction((tx) => act(trail, tx, `cut-${i}`))
      await trail.chainPending(CHAIN, 1_000)
      const chain = await chainOf(storage)
      await collectionOf(storage, AUDIT_RECORDS).delete(chain[chain.length - 1].id)
      const report = await verifyChain(storage, CHAIN)
      expect(report.break).toMatchObject({
        seq: chain.length,
        problem: `the head names record ${chain.length}, the chain ends at ${chain.length - 1}`,
      })
    } finally {
      await trail.close()
      await storage.close()
    }
  })
})

describe('records not chained yet are lag, not a break', () => {
  it('verifyChain reports them beside an intact chain; GET /audit chains at most 1,000 first and reports the rest', async () => {
    const h = await startHarness({ storage: 'sqlite', service: { auditChaining: MANUAL } })
    try {
      const api = h.service.as({ authorization: `Bearer ${TENANT_A}` })
      for (let i = 0; i < 3; i++) await api.generateWallet({})
      await h.service.chainAuditRecords()
      await api.generateWallet({})
      await api.generateWallet({})
      const report = await verifyChain(h.storage, CHAIN)
      expect(report).toMatchObject({ tenant: CHAIN, records: 3, unchained: { records: 2 } })
      expect(report.break).toBeUndefined()
      expect(Date.now() - report.unchained!.oldestAppendedAt).toBeGreaterThanOrEqual(0)

      // 1,200 acts in one transaction (an embedder's own trail on the same storage): more than one GET chains.
      const trail = new StoredAuditTrail(h.storage, Date.now, MANUAL)
      const many = Array.from({ length: 1_200 }, (_, i) => ({ action: 'wallet.create' as const, target: { type: 'wallet', id: `w${i}` } }))
      await h.storage.transaction((tx) => trail.append(tx, { tenantId: CHAIN, dids: [] }, many))
      await trail.close()
      // close() chained them: append 1,200 more, left pending.
      const other = new StoredAuditTrail(h.storage, Date.now, MANUAL)
      await h.storage.transaction((tx) => other.append(tx, { tenantId: CHAIN, dids: [] }, many))
      const first = await h.request('GET', '/audit?limit=1')
      expect(first.status).toBe(200)
      expect(first.body.lag).toMatchObject({ records: 200 })
      expect(first.body.lag.ageMs).toBeGreaterThanOrEqual(0)
      expect(Date.parse(first.body.lag.oldest)).not.toBeNaN()
      const second = await h.request('GET', '/audit?limit=1')
      expect(second.body.lag).toBeUndefined()
      expect(await verifyChain(h.storage, CHAIN)).toEqual({ tenant: CHAIN, records: 3 + 2 + 2_400 })
      await other.close()
    } finally {
      await h.close()
    }
  })
})

describe('chained after commit, without being asked', () => {
  it('the records of several chains are chained within the delay after their commits', async () => {
    const h = await startHarness({ storage: 'sqlite', service: { auditChaining: { delayMs: 20, sweepMs: 3_600_000 } } })
    try {
      await Promise.all(
        [TENANT_A, TENANT_B].flatMap((token) => [0, 1, 2].map(() => h.service.as({ authorization: `Bearer ${token}` }).generateWallet({}))),
      )
      // Polled, not timed: the test asserts that the timer chains them, not how fast.
      const pending = () => collectionOf(h.storage, AUDIT_APPENDS).count({ and: [] })
      for (let polls = 0; (await pending()) > 0 && polls < 500; polls++) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(await pending()).toBe(0)
      for (const tenant of ['tenant-a', 'tenant-b']) expect(await verifyChain(h.storage, tenant)).toEqual({ tenant, records: 3 })
    } finally {
      await h.close()
    }
  })
})

describe('appends: the records of acts written by the caller (one insertAll), chained like append’s', () => {
  it('appends writes nothing; once an insertAll of them commits, the sequencer chains them without being asked', async () => {
    const given = createMemoryStorage()
    await given.init(COLLECTIONS)
    const trail = new StoredAuditTrail(given, Date.now, { delayMs: 20, sweepMs: 3_600_000 })
    const storage = afterCommits(given, () => trail.committed())
    try {
      const acts = ['w1', 'w2'].map((id) => ({ action: 'wallet.create' as const, target: { type: 'wallet', id } }))
      const write = trail.appends({ tenantId: CHAIN, dids: [] }, acts)
      expect(write.collection).toBe(AUDIT_APPENDS.name)
      expect(write.records.map((record) => record.targetId)).toEqual(['w1', 'w2'])
      const pending = () => collectionOf(storage, AUDIT_APPENDS).count({ and: [] })
      expect(await pending()).toBe(0)
      await storage.insertAll([write])
      for (let polls = 0; (await pending()) > 0 && polls < 500; polls++) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(await pending()).toBe(0)
      expect(await verifyChain(given, CHAIN)).toEqual({ tenant: CHAIN, records: 2 })
      expect((await chainOf(given)).map((record) => [record.seq, record.targetId])).toEqual([
        [1, 'w1'],
        [2, 'w2'],
      ])
      expect(trail.appends({ tenantId: CHAIN, dids: [] }, [])).toEqual({ collection: AUDIT_APPENDS.name, records: [] })
    } finally {
      await trail.close()
      await given.close()
    }
  })
})

describe('PostgreSQL: serialization retries are counted', () => {
  it('onRetry is told of each transaction run again; didvault_storage_transaction_retries_total counts them', async () => {
    const metrics = new ServiceMetrics(() => 0, { defaults: false })
    let retries = 0
    const storage = await createPostgresStorage({
      connectionString: pg.url,
      schema: pg.schema,
      onRetry: () => {
        retries += 1
        metrics.storageTransactionRetried()
      },
    })
    await storage.init(COLLECTIONS)
    try {
      const heads = collectionOf(storage, AUDIT_HEADS)
      await heads.insert({ id: 'counter', tenantId: 'counter', seq: 0, createdAt: 0 })
      // Both read the row, then both write it: under SERIALIZABLE one fails and runs again.
      const bothRead = gate()
      let reads = 0
      const bump = () =>
        storage.transaction(async (tx) => {
          const head = (await collectionOf(tx, AUDIT_HEADS).get('counter'))!
          if (++reads === 2) bothRead.open()
          await Promise.race([bothRead.wait, new Promise((resolve) => setTimeout(resolve, 2_000))])
          await collectionOf(tx, AUDIT_HEADS).update('counter', { seq: head.seq + 1 })
        })
      await Promise.all([bump(), bump()])
      expect(await heads.get('counter')).toMatchObject({ seq: 2 })
      expect(retries).toBeGreaterThanOrEqual(1)
      expect(await metrics.registry.metrics()).toContain(`didvault_storage_transaction_retries_total ${retries}`)
    } finally {
      await storage.close()
    }
  })
})

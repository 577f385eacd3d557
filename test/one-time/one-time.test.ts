/**
 * One-time values (`ctx.oneTime`, issue 33 §3) on memory, a real SQLite file and a real PostgreSQL
 * schema, through the service: single use under concurrency and across services on one database,
 * expiry, tx_code attempts burning a value, replay detection, tenants apart, and no value in the
 * database's bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MAX_ATTEMPTS, isOneTimeTaken, OneTimeConflictError } from '../../src/one-time/index.js'
import type { IdentityService } from '../../src/service/identity-service.js'
import { clock, freshTenant, openBackend, randomValue, type Backend } from './backends.js'

const TTL = 60_000

describe.each(['memory', 'sqlite', 'postgres'] as const)('one-time values on %s', (name) => {
  let backend: Backend
  let a: IdentityService
  /** A second service on the same database (memory: the same service). */
  let b: IdentityService
  beforeAll(async () => {
    backend = await openBackend(name)
    a = backend.service
    b = backend.open ? await backend.open() : a
  }, 120_000)
  afterAll(() => backend?.close())

  it('a consumed value gives its data once; peek leaves it in place', async () => {
    const tenant = freshTenant()
    const code = randomValue()
    await a.oneTime.issue(tenant, 'pre-auth-code', code, { ttlMs: TTL, data: { offerId: 'o1', configurations: ['Degree'] } })
    expect(await a.oneTime.peek(tenant, 'pre-auth-code', code)).toEqual({ offerId: 'o1', configurations: ['Degree'] })
    expect(await b.oneTime.consume(tenant, 'pre-auth-code', code)).toEqual({ offerId: 'o1', configurations: ['Degree'] })
    expect(await a.oneTime.consume(tenant, 'pre-auth-code', code)).toBeUndefined()
    expect(await a.oneTime.peek(tenant, 'pre-auth-code', code)).toBeUndefined()
    // Without data: still something to the one consumer.
    const nonce = randomValue('nonce')
    await a.oneTime.issue(tenant, 'c-nonce', nonce, { ttlMs: TTL })
    expect(await a.oneTime.consume(tenant, 'c-nonce', nonce)).toEqual({})
    expect(await a.oneTime.consume(tenant, 'c-nonce', nonce)).toBeUndefined()
  })

  it('50 concurrent consumes (through two services where the database allows) give the data to exactly one', async () => {
    for (let round = 0; round < 3; round++) {
      const tenant = freshTenant()
      const code = randomValue()
      await a.oneTime.issue(tenant, 'auth-code', code, { ttlMs: TTL, data: { round } })
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).oneTime.consume(tenant, 'auth-code', code)),
      )
      expect(results.filter((r) => r !== undefined)).toEqual([{ round }])
    }
  })

  it('inside a transaction (within): writes commit with it, a rollback leaves the value; a look saves the read', async () => {
    const tenant = freshTenant()
    const code = randomValue()
    await a.oneTime.issue(tenant, 'pre-auth-code', code, { ttlMs: TTL, data: { offer: 'o1' } })
    const seen = await a.oneTime.look(tenant, 'pre-auth-code', code)
    expect(seen?.data).toEqual({ offer: 'o1' })
    const token = randomValue('token')
    // A refusal after the consume in the same transaction: nothing written, the code still there.
    await expect(
      backend.storage.transaction(async (tx) => {
        const oneTime = a.oneTime.within(tx)
        expect(await oneTime.consume(tenant, 'pre-auth-code', code, seen)).toEqual({ offer: 'o1' })
        await oneTime.issue(tenant, 'access-token', token, { ttlMs: TTL })
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    expect(await b.oneTime.peek(tenant, 'pre-auth-code', code)).toEqual({ offer: 'o1' })
    expect(await b.oneTime.peek(tenant, 'access-token', token)).toBeUndefined()
    // Committed: the code taken once (what was seen before is no second take), the token stored, a jti remembered once.
    await backend.storage.transaction(async (tx) => {
      const oneTime = a.oneTime.within(tx)
      expect(await oneTime.consume(tenant, 'pre-auth-code', code, seen)).toEqual({ offer: 'o1' })
      await oneTime.issue(tenant, 'access-token', token, { ttlMs: TTL })
      expect(await oneTime.remember(tenant, 'dpop-jti', 'jti-1', TTL)).toBe(true)
      expect(await oneTime.remember(tenant, 'dpop-jti', 'jti-1', TTL)).toBe(false)
    })
    expect(await b.oneTime.consume(tenant, 'pre-auth-code', code, seen)).toBeUndefined()
    expect(await b.oneTime.peek(tenant, 'access-token', token)).toEqual({})
    expect(await b.oneTime.remember(tenant, 'dpop-jti', 'jti-1', TTL)).toBe(false)
    // A look of another tenant's value sees nothing; what was seen expires with the value.
    expect(await a.oneTime.look(freshTenant(), 'access-token', token)).toBeUndefined()
    const nonce = randomValue('nonce')
    await a.oneTime.issue(tenant, 'c-nonce', nonce, { ttlMs: 1_000 })
    const nonceSeen = await a.oneTime.look(tenant, 'c-nonce', nonce)
    clock.now += 1_000
    expect(await a.oneTime.consume(tenant, 'c-nonce', nonce, nonceSeen)).toBeUndefined()
  })

  it('a value of one kind is not a value of another', async () => {
    const tenant = freshTenant()
    const value = randomValue()
    await a.oneTime.issue(tenant, 'pre-auth-code', value, { ttlMs: TTL })
    expect(await a.oneTime.consume(tenant, 'auth-code', value)).toBeUndefined()
    expect(await a.oneTime.consume(tenant, 'pre-auth-code', value)).toEqual({})
  })

  it('an expired value is absent to every operation, can be issued again, and the sweep deletes it', async () => {
    const tenant = freshTenant()
    const [short, long] = [randomValue(), randomValue()]
    await a.oneTime.issue(tenant, 'offer', short, { ttlMs: 1_000, data: { n: 1 } })
    await a.oneTime.issue(tenant, 'offer', long, { ttlMs: TTL })
    await expect(b.oneTime.issue(tenant, 'offer', short, { ttlMs: 1_000 })).rejects.toBeInstanceOf(OneTimeConflictError)
    expect(await a.oneTime.remember(tenant, 'offer', short, 1_000)).toBe(false)
    clock.now += 999
    expect(await b.oneTime.peek(tenant, 'offer', short)).toEqual({ n: 1 })
    clock.now += 1
    try {
      expect(await b.oneTime.peek(tenant, 'offer', short)).toBeUndefined()
      expect(await b.oneTime.consume(tenant, 'offer', short)).toBeUndefined()
      expect(await b.oneTime.attempt(tenant, 'offer', short)).toEqual({ burned: true, attempts: 0 })
      // Swept: the expired record is gone from storage, the live one stays.
      expect(await a.oneTime.sweep()).toBeGreaterThanOrEqual(1)
      expect(await a.oneTime.peek(tenant, 'offer', long)).toEqual({})
      // The same value issued again after expiry is a new value.
      await a.oneTime.issue(tenant, 'offer', short, { ttlMs: TTL, data: { n: 2 } })
      expect(await b.oneTime.consume(tenant, 'offer', short)).toEqual({ n: 2 })
    } finally {
      clock.now += TTL
    }
  })

  it('an expired record not yet swept is replaced by a new issue of its value (not answered as live)', async () => {
    const tenant = freshTenant()
    const jti = randomValue('jti')
    expect(await a.oneTime.remember(tenant, 'dpop-jti', jti, 1_000)).toBe(true)
    clock.now += 1_000
    expect(await b.oneTime.remember(tenant, 'dpop-jti', jti, 1_000)).toBe(true)
    expect(await a.oneTime.remember(tenant, 'dpop-jti', jti, 1_000)).toBe(false)
    clock.now += 1_000
  })

  it(`failed attempts burn the value at the ${DEFAULT_MAX_ATTEMPTS}th by default: it never consumes again`, async () => {
    const tenant = freshTenant()
    const code = randomValue()
    await a.oneTime.issue(tenant, 'pre-auth-code', code, { ttlMs: TTL })
    for (let n = 1; n < DEFAULT_MAX_ATTEMPTS; n++) {
      expect(await (n % 2 ? a : b).oneTime.attempt(tenant, 'pre-auth-code', code)).toEqual({ burned: false, attempts: n })
    }
    expect(await a.oneTime.peek(tenant, 'pre-auth-code', code)).toEqual({})
    expect(await b.oneTime.attempt(tenant, 'pre-auth-code', code)).toEqual({ burned: true, attempts: DEFAULT_MAX_ATTEMPTS })
    expect(await a.oneTime.consume(tenant, 'pre-auth-code', code)).toBeUndefined()
    expect(await a.oneTime.attempt(tenant, 'pre-auth-code', code)).toEqual({ burned: true, attempts: 0 })
  })

  it('the maximum is the caller’s; concurrent failed attempts are each counted once and one of them burns', async () => {
    const tenant = freshTenant()
    const code = randomValue()
    await a.oneTime.issue(tenant, 'tx-code', code, { ttlMs: TTL })
    expect(await a.oneTime.attempt(tenant, 'tx-code', code, 2)).toEqual({ burned: false, attempts: 1 })
    expect(await a.oneTime.attempt(tenant, 'tx-code', code, 2)).toEqual({ burned: true, attempts: 2 })

    const raced = randomValue()
    await a.oneTime.issue(tenant, 'tx-code', raced, { ttlMs: TTL })
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).oneTime.attempt(tenant, 'tx-code', raced, 5)))
    const counted = results.filter((r) => r.attempts > 0).map((r) => r.attempts)
    // Every try counted exactly once until the value was gone: 1..5 among the answers, no number twice.
    expect(counted.filter((n) => n <= 5).sort()).toEqual([1, 2, 3, 4, 5])
    expect(new Set(counted).size).toBe(counted.length)
    expect(
      results
        .filter((r) => !r.burned)
        .map((r) => r.attempts)
        .sort(),
    ).toEqual([1, 2, 3, 4])
    expect(await b.oneTime.consume(tenant, 'tx-code', raced)).toBeUndefined()
  })

  it('remember is true once, then false, across services; 20 concurrent remembers: one true', async () => {
    const tenant = freshTenant()
    const jti = randomValue('jti')
    expect(await a.oneTime.remember(tenant, 'dpop-jti', jti, TTL)).toBe(true)
    expect(await a.oneTime.remember(tenant, 'dpop-jti', jti, TTL)).toBe(false)
    expect(await b.oneTime.remember(tenant, 'dpop-jti', jti, TTL)).toBe(false)
    const raced = randomValue('jti')
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).oneTime.remember(tenant, 'dpop-jti', raced, TTL)),
    )
    expect(results.filter(Boolean)).toHaveLength(1)
  })

  it('rememberUntil (a value carrying its expiry) is true once, in or out of a transaction; a rolled-back one is not used', async () => {
    const tenant = freshTenant()
    const nonce = randomValue('nonce')
    const until = clock.now + TTL
    // Expired already: false, nothing written.
    const rows = await backend.storage.collection('one_time').count()
    expect(await a.oneTime.rememberUntil(tenant, 'c-nonce', nonce, clock.now)).toBe(false)
    expect(await backend.storage.collection('one_time').count()).toBe(rows)
    // Remembered in a transaction that rolls back: still unused.
    await expect(
      backend.storage.transaction(async (tx) => {
        expect(await a.oneTime.within(tx).rememberUntil(tenant, 'c-nonce', nonce, until)).toBe(true)
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    // Used in a committed transaction: then false everywhere, inside a transaction too (which is not to go on).
    await backend.storage.transaction(async (tx) => {
      expect(await a.oneTime.within(tx).rememberUntil(tenant, 'c-nonce', nonce, until)).toBe(true)
    })
    expect(await b.oneTime.rememberUntil(tenant, 'c-nonce', nonce, until)).toBe(false)
    await expect(
      backend.storage.transaction(async (tx) => {
        if (!(await b.oneTime.within(tx).rememberUntil(tenant, 'c-nonce', nonce, until))) throw new Error('used')
      }),
    ).rejects.toThrow('used')
    // Another tenant's value of the same text is its own; 20 concurrent uses of a value: one true.
    expect(await b.oneTime.rememberUntil(freshTenant(), 'c-nonce', nonce, until)).toBe(true)
    const raced = randomValue('nonce')
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).oneTime.rememberUntil(tenant, 'c-nonce', raced, until)),
    )
    expect(results.filter(Boolean)).toHaveLength(1)
  })

  it('rememberedUntil: the record rememberUntil inserts, written by the caller with its own writes (insertAll), all or none', async () => {
    const tenant = freshTenant()
    const nonce = randomValue('nonce')
    const until = clock.now + TTL
    const rows = await backend.storage.collection('one_time').count()
    expect(a.oneTime.rememberedUntil(tenant, 'c-nonce', nonce, clock.now)).toBeUndefined()
    const record = a.oneTime.rememberedUntil(tenant, 'c-nonce', nonce, until)!
    expect(record).toMatchObject({ tenantId: tenant, kind: 'c-nonce', expiresAt: until })
    expect(record.id).not.toContain(nonce)
    expect(await backend.storage.collection('one_time').count()).toBe(rows)
    const use = () => [{ collection: 'one_time', records: [a.oneTime.rememberedUntil(tenant, 'c-nonce', nonce, until)!] }]
    await backend.storage.insertAll(use())
    // Used: rememberUntil says so, and a second insertAll of it conflicts on the one-time collection.
    expect(await b.oneTime.rememberUntil(tenant, 'c-nonce', nonce, until)).toBe(false)
    const error = await backend.storage.insertAll(use()).catch((err: unknown) => err)
    expect(isOneTimeTaken(error)).toBe(true)
    expect(isOneTimeTaken(new Error('other'))).toBe(false)
  })

  it('rememberAll: rememberedUntil’s records of several values, all inserted or none (one used before, or expired)', async () => {
    const tenant = freshTenant()
    const [used, fresh, other] = [randomValue('nonce'), randomValue('nonce'), randomValue('nonce')]
    const until = clock.now + TTL
    const record = (value: string) => a.oneTime.rememberedUntil(tenant, 'c-nonce', value, until)!
    const rows = () => backend.storage.collection('one_time').count()
    expect(await a.oneTime.rememberAll([])).toBe(true)
    expect(await a.oneTime.rememberUntil(tenant, 'c-nonce', used, until)).toBe(true)
    const before = await rows()
    // One of them used before: false, and the fresh one is not written (still usable).
    expect(await b.oneTime.rememberAll([record(fresh), record(used)])).toBe(false)
    expect(await rows()).toBe(before)
    // An expired record: false, nothing written.
    expect(await a.oneTime.rememberAll([record(fresh), { ...record(other), expiresAt: clock.now }])).toBe(false)
    expect(await rows()).toBe(before)
    expect(await b.oneTime.rememberAll([record(fresh), record(other)])).toBe(true)
    expect(await rows()).toBe(before + 2)
    expect(await a.oneTime.rememberUntil(tenant, 'c-nonce', fresh, until)).toBe(false)
    expect(await a.oneTime.rememberAll([record(other)])).toBe(false)
    // Inside a transaction: true once; a rolled-back one uses nothing.
    const inTx = randomValue('nonce')
    await expect(
      backend.storage.transaction(async (tx) => {
        expect(await a.oneTime.within(tx).rememberAll([record(inTx)])).toBe(true)
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    expect(await b.oneTime.rememberAll([record(inTx)])).toBe(true)
    expect(await b.oneTime.rememberAll([record(inTx)])).toBe(false)
  })

  it('another tenant’s value is invisible to every operation and leaves it intact', async () => {
    const [mine, theirs] = [freshTenant(), freshTenant()]
    const code = randomValue()
    await a.oneTime.issue(mine, 'pre-auth-code', code, { ttlMs: TTL, data: { who: 'mine' } })
    expect(await b.oneTime.peek(theirs, 'pre-auth-code', code)).toBeUndefined()
    expect(await b.oneTime.consume(theirs, 'pre-auth-code', code)).toBeUndefined()
    expect(await b.oneTime.attempt(theirs, 'pre-auth-code', code, 1)).toEqual({ burned: true, attempts: 0 })
    // The same value is theirs to use independently.
    expect(await b.oneTime.remember(theirs, 'pre-auth-code', code, TTL)).toBe(true)
    expect(await a.oneTime.consume(mine, 'pre-auth-code', code)).toEqual({ who: 'mine' })
  })
})

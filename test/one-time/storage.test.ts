/**
 * One-time values in the database itself: a second process on the same SQLite file and the same
 * PostgreSQL database (a real child process) consumes and remembers concurrently with this one,
 * each value going to exactly one; the database's bytes (SQLite file and WAL, PostgreSQL rows)
 * hold no value in clear; the sweep deletes expired values in bounded rounds.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { killAll, spawnNode } from '../helpers/spawn.js'
import { clock, freshTenant, openBackend, randomValue, type Backend } from './backends.js'

const ROOT = join(import.meta.dirname, '../..')
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href
const CONSUMER = join(import.meta.dirname, 'consumer.ts')
const TTL = 600_000

afterEach(killAll)

describe.each(['sqlite', 'postgres'] as const)('one-time values on %s, read from the database', (name) => {
  let backend: Backend
  beforeAll(async () => {
    backend = await openBackend(name)
  }, 120_000)
  afterAll(() => backend?.close())

  it('a second process consumes and remembers concurrently with this one: each value goes to exactly one of them', async () => {
    const { service } = backend
    const tenantId = freshTenant()
    const codes = Array.from({ length: 40 }, () => randomValue())
    const jtis = Array.from({ length: 40 }, () => randomValue('jti'))
    for (const code of codes) await service.oneTime.issue(tenantId, 'pre-auth-code', code, { ttlMs: TTL })
    const dir = mkdtempSync(join(tmpdir(), 'didvault-one-time-child-'))
    const valuesFile = join(dir, `values-${tenantId}.json`)
    const go = join(dir, `go-${tenantId}`)
    writeFileSync(valuesFile, JSON.stringify({ tenantId, codes, jtis }))
    const child = spawnNode(['--import', TSX, CONSUMER, ...backend.target!, go, valuesFile], {
      cwd: ROOT,
      env: { DIDVAULT_TEST_MASTER_KEY: backend.masterKey, DIDVAULT_TEST_NOW: String(clock.now) },
    })
    await child.waitFor(/^ready$/m, 60_000)
    writeFileSync(go, '')
    const [mine, remembered] = await Promise.all([
      Promise.all(codes.map(async (code) => ((await service.oneTime.consume(tenantId, 'pre-auth-code', code)) ? code : undefined))),
      Promise.all(jtis.map(async (jti) => ((await service.oneTime.remember(tenantId, 'dpop-jti', jti, TTL)) ? jti : undefined))),
    ])
    const theirs = JSON.parse((await child.waitFor(/^(\{.*\})$/m, 60_000))[1]) as { consumed: string[]; remembered: string[] }
    const consumedHere = mine.filter((c): c is string => c !== undefined)
    const rememberedHere = remembered.filter((j): j is string => j !== undefined)
    expect([...consumedHere, ...theirs.consumed].sort()).toEqual([...codes].sort())
    expect([...rememberedHere, ...theirs.remembered].sort()).toEqual([...jtis].sort())
    expect((await child.exited).code).toBe(0)
    rmSync(dir, { recursive: true, force: true })
  }, 120_000)

  it('the database holds no value in clear, only its keyed hash (the data beside it is there)', async () => {
    const { service } = backend
    const tenantId = freshTenant()
    const code = randomValue()
    const jti = randomValue('jti')
    const marker = `marker-${randomValue('m')}`
    await service.oneTime.issue(tenantId, 'pre-auth-code', code, { ttlMs: TTL, data: { marker } })
    expect(await service.oneTime.remember(tenantId, 'dpop-jti', jti, TTL)).toBe(true)
    let bytes: string
    if (backend.path) {
      const wal = `${backend.path}-wal`
      bytes = readFileSync(backend.path, 'latin1') + (existsSync(wal) ? readFileSync(wal, 'latin1') : '')
    } else {
      const client = new pg.Client({ connectionString: backend.postgres!.url })
      await client.connect()
      try {
        const tables = await client.query<{ table_name: string }>(
          'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
          [backend.postgres!.schema],
        )
        const rows: string[] = []
        for (const { table_name } of tables.rows) {
          const result = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${backend.postgres!.schema}"."${table_name}" t`)
          rows.push(...result.rows.map((r) => r.row))
        }
        bytes = rows.join('\n')
      } finally {
        await client.end()
      }
    }
    // The read reaches the records: the data stored beside the value is found.
    expect(bytes).toContain(marker)
    for (const secret of [code, jti, code.slice(5), jti.slice(4)]) expect(bytes).not.toContain(secret)
    expect(await service.oneTime.consume(tenantId, 'pre-auth-code', code)).toEqual({ marker })
  })

  it('the sweep deletes expired values only; every 64th issue of a process sweeps on the way', async () => {
    const { service } = backend
    const tenantId = freshTenant()
    // Expired values of earlier tests are swept first.
    clock.now += 2 * TTL
    await service.oneTime.sweep()
    const short = Array.from({ length: 130 }, () => randomValue())
    const kept = randomValue()
    await service.oneTime.issue(tenantId, 'offer', kept, { ttlMs: TTL })
    for (const [i, code] of short.entries()) await service.oneTime.issue(tenantId, 'offer', code, { ttlMs: 1_000 + i })
    clock.now += 2_000
    expect(await service.oneTime.sweep()).toBe(short.length)
    expect(await service.oneTime.sweep()).toBe(0)
    expect(await service.oneTime.peek(tenantId, 'offer', kept)).toEqual({})
    // Expired again: 64 issues later, the process has swept them itself.
    for (const code of short.slice(0, 64)) await service.oneTime.issue(tenantId, 'offer', code, { ttlMs: 1_000 })
    clock.now += 1_000
    for (let n = 0; n < 64; n++) await service.oneTime.remember(tenantId, 'dpop-jti', randomValue('jti'), TTL)
    expect(await service.oneTime.sweep()).toBe(0)
    expect(await service.oneTime.peek(tenantId, 'offer', kept)).toEqual({})
    clock.now += TTL
  }, 60_000)
})

/**
 * The databases the one-time tests run on — memory, a real SQLite file, a real PostgreSQL schema —
 * and services over them sharing one master key and one settable clock. `open()` makes another
 * service on the same database (a second process would see what it sees); memory has one service only.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IdentityService } from '../../src/service/identity-service.js'
import { staticTenants } from '../../src/auth/tenants.js'
import { createMemoryStorage } from '../../src/storage/memory/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { createPostgresStorage } from '../../src/storage/postgres/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'

/** A clock the tests move: every service of a backend reads it. */
export const clock = { now: Date.UTC(2030, 0, 1) }

export interface Backend {
  name: 'memory' | 'sqlite' | 'postgres'
  /** A service on the backend's database (the first one is kept; more are made by {@link Backend.open}). */
  service: IdentityService
  /** The storage of {@link service} (its transactions, for `OneTimeStore.within`). */
  storage: StorageAdapter
  /** Another service on the same database; undefined for memory (one process only). */
  open?: () => Promise<IdentityService>
  /** The master key, hex (a child process opens the same database with it). */
  masterKey: string
  /** What a child process needs to reach the database: `sqlite <path>` or `postgres <url> <schema>`. */
  target?: string[]
  /** SQLite: the database file. */
  path?: string
  /** PostgreSQL: server and schema. */
  postgres?: TestPostgres
  close(): Promise<void>
}

async function serviceOn(storage: StorageAdapter, masterKey: string): Promise<IdentityService> {
  return IdentityService.create({ storage, masterKey, tenants: staticTenants({}), audit: false, now: () => clock.now })
}

export async function openBackend(name: Backend['name']): Promise<Backend> {
  const masterKey = randomBytes(32).toString('hex')
  const extra: IdentityService[] = []
  const track = async (made: Promise<IdentityService>) => {
    const service = await made
    extra.push(service)
    return service
  }
  if (name === 'memory') {
    const storage = createMemoryStorage()
    const service = await serviceOn(storage, masterKey)
    return { name, service, storage, masterKey, close: () => service.close() }
  }
  if (name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'didvault-one-time-'))
    const path = join(dir, 'one-time.db')
    const storage = createSqliteStorage({ path })
    let opened = 0
    const open = () => track(serviceOn(opened++ === 0 ? storage : createSqliteStorage({ path }), masterKey))
    const service = await open()
    return {
      name,
      service,
      storage,
      open,
      masterKey,
      path,
      target: ['sqlite', path],
      async close() {
        for (const s of extra) await s.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }
  const postgres = await startTestPostgres('one-time values')
  const connect = () => createPostgresStorage({ connectionString: postgres.url, schema: postgres.schema })
  const first = await connect()
  let opened = 0
  const open = async () => track(serviceOn(opened++ === 0 ? first : await connect(), masterKey))
  const service = await open()
  return {
    name,
    service,
    storage: first,
    open,
    masterKey,
    postgres,
    target: ['postgres', postgres.url, postgres.schema],
    async close() {
      for (const s of extra) await s.close()
      await postgres.stop()
    },
  }
}

/** A random value, as a code or nonce would be. */
export const randomValue = (prefix = 'code') => `${prefix}-${randomBytes(24).toString('base64url')}`
/** A tenant no other test uses. */
export const freshTenant = () => `t-${randomBytes(6).toString('hex')}`

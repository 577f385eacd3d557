/** The queries of the DID registry and walletConfig code, as SQLite plans them: each searches an index. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSqliteStorage, type SqliteStorage } from '../../src/storage/sqlite/index.js'
import { COLLECTIONS } from '../../src/storage/collections.js'
import type { FindOptions, Where } from '../../src/storage/port.js'

let dir: string
let storage: SqliteStorage
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-plan-'))
  storage = createSqliteStorage({ path: join(dir, 'db') })
  await storage.init(COLLECTIONS)
})
afterAll(async () => {
  await storage.close()
  rmSync(dir, { recursive: true, force: true })
})

const scoped = (w: Where): Where => ({ and: [{ field: 'tenantId', op: 'eq', value: 't' }, w] })
const identity: Where[] = [
  { field: 'network', op: 'eq', value: 'dev' },
  { field: 'identity', op: 'eq', value: '0x' },
]

const cases: Array<[string, string, Where, FindOptions, string]> = [
  ['history of an identity up to its head', 'didEvents', { and: [...identity, { field: 'seq', op: 'lte', value: 5 }] }, { orderBy: { field: 'seq' }, limit: 1000 }, 'didEvents/ux/network,identity,seq'],
  ['delegate keys of a wallet', 'delegateKeys', scoped({ field: 'walletId', op: 'eq', value: 'w' }), { limit: 1000 }, 'delegateKeys/ix/tenantId,walletId,createdAt'],
  ['owner wallet by address in a tenant', 'wallets', scoped({ field: 'ethereumAddress', op: 'eq', value: '0x' }), { limit: 1 }, 'wallets/ix/tenantId,ethereumAddress,createdAt'],
]

describe('query plans of the DID registry queries', () => {
  it.each(cases)('%s searches its index', async (_name, collection, where, options, index) => {
    const plan = (await storage.explain(collection, where, options)).join('\n')
    expect(plan).toContain(`USING INDEX ${index}`)
    expect(plan).not.toMatch(/\bSCAN (didEvents|delegateKeys|wallets)\b/)
  })
})

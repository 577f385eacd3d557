/**
 * Several `didvault serve` processes (real child processes of the built CLI) on one SQLite
 * file, and on one PostgreSQL database (a throw-away cluster), create wallets in one MPC vault
 * concurrently: indexes are unique and gap-free, and each wallet's key is the public derivation at
 * its index from the vault's account public key.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CLI, ensureBuilt } from './helpers/build.js'
import { http, killAll, spawnNode, type HttpResult } from './helpers/spawn.js'
import { approvals, member, mpcVaultBody } from './helpers/mpc.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { createPostgresStorage } from '../src/storage/postgres/index.js'
import type { StorageAdapter } from '../src/storage/port.js'
import { startTestPostgres, type TestPostgres } from './helpers/postgres.js'
import { COLLECTIONS } from '../src/service/collections.js'
import { type VaultRecord } from '../src/vaults/records.js'
import { deriveChildPublicKey } from '../src/keys/hd.js'
import { addressOf, hexToBytes } from '../src/keys/secp256k1.js'

const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)"/
const API_KEY = 'key-acme-123456789'
const PROCESSES = 3
const WALLETS = 30

function ok(res: HttpResult): any {
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}

let dir: string
let postgres: TestPostgres | undefined
beforeAll(async () => {
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'didvault-mpc-multiprocess-'))
  // `didvault serve` uses the database's `public` schema: only a throw-away cluster's is this test's alone.
  if (!process.env.DIDVAULT_TEST_POSTGRES_URL) postgres = await startTestPostgres('mpc-multiprocess')
}, 180_000)
afterEach(killAll)
afterAll(async () => {
  await postgres?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** A shared database: what `--storage` names, and the same database opened in the test. */
interface Target {
  storage: () => string
  open: () => Promise<StorageAdapter>
}

const targets: Array<[string, Target]> = [
  [
    'one SQLite file',
    { storage: () => `sqlite:${join(dir, 'mpc.db')}`, open: async () => createSqliteStorage({ path: join(dir, 'mpc.db') }) },
  ],
  ...(process.env.DIDVAULT_TEST_POSTGRES_URL
    ? []
    : [
        [
          'one PostgreSQL database',
          { storage: () => postgres!.url, open: () => createPostgresStorage({ connectionString: postgres!.url }) },
        ] as [string, Target],
      ]),
]

describe.each(targets)(`${PROCESSES} didvault serve processes on %s`, (_name, target) => {
  it(`create ${WALLETS} wallets in one MPC vault concurrently: indexes 0..${WALLETS - 1} exactly once, each the public derivation at its index`, async () => {
    const env = { DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex'), DIDVAULT_API_KEYS: `acme:${API_KEY}` }
    const procs = await Promise.all(
      Array.from({ length: PROCESSES }, async () => {
        const proc = spawnNode([CLI, 'serve', '--port', '0', '--storage', target.storage()], { cwd: dir, env })
        return { proc, url: (await proc.waitFor(LISTENING, 30_000))[1] }
      }),
    )
    const urls = procs.map((p) => p.url)
    const members = await Promise.all([member(), member(), member()])
    const headers = { 'x-did-auth': await approvals(members[0], members[2]) }

    const { vault } = ok(await http(`${urls[0]}/vaults`, { method: 'POST', token: API_KEY, json: mpcVaultBody(members) }))
    ok(await http(`${urls[1]}/vaults/${vault.id}/initialize`, { method: 'POST', token: API_KEY, json: {}, headers }))
    const created = await Promise.all(
      Array.from({ length: WALLETS }, (_, i) =>
        http(`${urls[i % PROCESSES]}/vaults/${vault.id}/wallet`, { method: 'POST', token: API_KEY, json: {}, headers }),
      ),
    )
    const wallets = created.map((res) => ok(res).wallet)
    expect(wallets.map((w) => w.index).sort((a, b) => a - b)).toEqual(Array.from({ length: WALLETS }, (_, i) => i))

    const storage = await target.open()
    await storage.init(COLLECTIONS)
    try {
      const record = (await storage.collection<VaultRecord>('vaults').get(vault.id))!
      expect(record.hdIndex).toBe(WALLETS - 1)
      const account = { publicKey: hexToBytes(record.mpcPublicKey!), chainCode: hexToBytes(record.mpcChainCode!) }
      for (const w of wallets) expect(w.ethereumAddress).toBe(addressOf(deriveChildPublicKey(account, w.index)))
    } finally {
      await storage.close()
    }
    for (const url of urls) expect(ok(await http(`${url}/wallets?vaultId=${vault.id}`, { token: API_KEY })).wallets).toHaveLength(WALLETS)
    for (const { proc } of procs) expect(proc.stderr()).not.toMatch(/INTERNAL_ERROR|SQLITE_BUSY|database is locked/)
  }, 120_000)
})

/**
 * Several `didvault serve` processes (real child processes of the built CLI) sharing one
 * database: concurrent BIP44 wallet creation in one vault, then concurrent batch renames and
 * overlapping batch deletes. Runs on one SQLite file; on a real PostgreSQL (test/helpers/postgres.ts;
 * each case in a schema of its own, named by `?schema=`), where the three processes also migrate
 * the new schema at once and exactly one migration is recorded, an API key revoked through the CLI
 * is refused by all three, and role assignment on one process racing role deletion on another
 * leaves no assignment of the deleted role (without the assignment's in-transaction role check it
 * leaves all five in the first round); on the MongoDB wire-protocol stand-in as a
 * replica set (server transactions) and as a standalone server (fallback transactions: see the
 * note on that case); and on the real MongoDB of `MONGODB_URL` when it is set.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync } from '@scure/bip39'
import { computeAddress, hexlify } from 'ethers'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { SCHEMA_VERSION } from '../src/storage/postgres/migrate.js'
import { CLI, ensureBuilt } from './helpers/build.js'
import { MongoWireServer } from './helpers/mongo-wire-server.js'
import { startTestPostgres, type TestPostgres } from './helpers/postgres.js'
import pg from 'pg'
import { http, killAll, spawnNode, type HttpResult, type Spawned } from './helpers/spawn.js'

const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)"/
const API_KEY = 'key-acme-123456789'
const PROCESSES = 3
const WALLETS = 60

function addressAt(mnemonic: string, index: number): string {
  const key = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(`m/44'/60'/0'/0/${index}`)
  return computeAddress(hexlify(key.publicKey!))
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Fails with the response when a request did not succeed: no failure here is one the caller could fix. */
function ok(res: HttpResult): any {
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}

let dir: string
let postgres: TestPostgres
const standIn = new MongoWireServer()
const replicaSetStandIn = new MongoWireServer({ replicaSet: true })
beforeAll(async () => {
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'didvault-multiprocess-'))
  await Promise.all([standIn.start(), replicaSetStandIn.start()])
  postgres = await startTestPostgres('multiprocess')
}, 180_000)
afterEach(killAll)
afterAll(async () => {
  await Promise.all([standIn.stop(), replicaSetStandIn.stop(), postgres?.stop()])
  rmSync(dir, { recursive: true, force: true })
})

/** `--storage` for a schema of the test server (the CLI takes it from `?schema=`); the test's own schema is dropped by `stop()`. */
const postgresStorage = (schema: string) => `${postgres.url}?schema=${schema}`

/** A MONGODB_URL with its database replaced by a fresh one. */
function freshMongoDatabase(url: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/didvault_multiprocess_${Date.now().toString(36)}`
  return parsed.toString()
}

/**
 * Starts every server at the same instant on a new database: schema creation, the keyring
 * record and the DIDVAULT_API_KEYS registration race, and must all come out right.
 */
async function startServers(storage: string, env: Record<string, string>): Promise<Array<{ proc: Spawned; url: string }>> {
  const start = async () => {
    const proc = spawnNode([CLI, 'serve', '--port', '0', '--storage', storage], { cwd: dir, env })
    return { proc, url: (await proc.waitFor(LISTENING, 30_000))[1] }
  }
  return Promise.all(Array.from({ length: PROCESSES }, start))
}

const realUrl = process.env.MONGODB_URL
if (!realUrl) console.log('[multiprocess] MONGODB_URL is not set: the real-MongoDB case is skipped')

const targets: Array<[string, () => string]> = [
  ['one SQLite file', () => `sqlite:${join(dir, 'shared.db')}`],
  ['PostgreSQL (a schema of its own: `?schema=`)', () => postgresStorage(postgres.schema)],
  // Standalone: transactions fall back to in-process compensation. Wallet creation stays unique
  // and gap-free here because the HD index comes from one atomic $inc and no insert fails; a
  // failed insert in another process could not be compensated safely (docs/storage.md).
  ['the MongoDB stand-in (standalone, fallback transactions)', () => `${standIn.url}/multiprocess`],
  ['the MongoDB stand-in (replica set, server transactions)', () => `${replicaSetStandIn.url}/multiprocess`],
]

describe.each(targets)(`${PROCESSES} didvault serve processes on %s`, (_name, storageOf) => {
  it(`create ${WALLETS} wallets in one BIP44 vault concurrently, then rename and delete in concurrent batches`, async () => {
    const storage = storageOf()
    const env = { DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex'), DIDVAULT_API_KEYS: `acme:${API_KEY}` }
    const procs = await startServers(storage, env)
    const urls = procs.map((proc) => proc.url)
    if (storage === postgresStorage(postgres.schema)) {
      // The three processes started together on a new schema: one of them migrated it, once.
      const client = new pg.Client({ connectionString: postgres.url })
      await client.connect()
      const migrations = (await client.query(`SELECT schema_version FROM ${postgres.schema}._didvault_migrations`)).rows
      await client.end()
      expect(migrations).toEqual([{ schema_version: SCHEMA_VERSION }])
    }

    const { vault } = ok(await http(`${urls[0]}/vaults`, { method: 'POST', token: API_KEY, json: { name: 'shared', hierarchy: 'BIP44' } }))
    const issuer = vault.wallets[0].did
    const { jwt } = ok(await http(`${urls[1]}/did-auth-jwt`, { method: 'POST', token: API_KEY, json: { iss: issuer } }))
    const headers = { 'x-did-auth': jwt }

    // Wallets: every index 1..N exactly once, each address the mnemonic's derivation at it.
    const created = await Promise.all(
      Array.from({ length: WALLETS }, (_, i) =>
        http(`${urls[i % PROCESSES]}/vaults/${vault.id}/wallet`, { method: 'POST', token: API_KEY, json: {}, headers }),
      ),
    )
    // A failure names the servers' logs: the response body of a 500 says nothing of its cause.
    const failed = created.filter((res) => res.status !== 200)
    expect(
      failed.map((res) => res.body),
      procs.map(({ proc }) => proc.stderr()).join('\n'),
    ).toEqual([])
    const wallets = created.map((res) => ok(res).wallet)
    expect(wallets.map((w) => w.index).sort((a, b) => a - b)).toEqual(Array.from({ length: WALLETS }, (_, i) => i + 1))
    for (const wallet of wallets) expect(wallet.ethereumAddress).toBe(addressAt(vault.mnemonic, wallet.index))
    for (const url of urls) {
      const listed = ok(await http(`${url}/wallets?vaultId=${vault.id}`, { token: API_KEY })).wallets
      expect(listed).toHaveLength(WALLETS + 1)
      expect(new Set(listed.map((w: { did: string }) => w.did)).size).toBe(WALLETS + 1)
    }

    // Renames: each process renames its own slice in one batch, all batches at once.
    const slices = urls.map((_, p) => wallets.filter((_, i) => i % PROCESSES === p))
    const renamed = await Promise.all(
      urls.map((url, p) =>
        http(`${url}/wallet/rename`, {
          method: 'POST',
          token: API_KEY,
          headers,
          json: { wallets: slices[p].map((w) => ({ did: w.did, alias: `renamed-${w.index}` })) },
        }),
      ),
    )
    renamed.forEach((res, p) => {
      const body = ok(res)
      expect(body.errors).toEqual([])
      expect(body.wallets).toHaveLength(slices[p].length)
    })
    for (const url of urls) {
      const listed = ok(await http(`${url}/wallets?vaultId=${vault.id}`, { token: API_KEY })).wallets
      for (const w of listed) if (w.index > 0) expect(w.alias).toBe(`renamed-${w.index}`)
    }

    // Deletes: overlapping batches (and one repeated in full), all at once: each wallet is
    // deleted exactly once, every other attempt is reported NOT_FOUND in `errors`.
    const dids = wallets.map((w) => w.did)
    const batches = [dids.slice(0, 40), dids.slice(20), dids, dids.slice(10, 50)]
    const deleted = await Promise.all(
      batches.map((ids, b) => http(`${urls[b % PROCESSES]}/wallet`, { method: 'DELETE', token: API_KEY, headers, json: { ids } })),
    )
    const removed: string[] = []
    deleted.forEach((res, b) => {
      const body = ok(res)
      expect(body.ids.length + body.errors.length).toBe(batches[b].length)
      for (const error of body.errors) expect(error.error.errorType).toBe('NOT_FOUND')
      removed.push(...body.ids)
    })
    expect([...removed].sort()).toEqual([...dids].sort())
    for (const url of urls) {
      const listed = ok(await http(`${url}/wallets?vaultId=${vault.id}`, { token: API_KEY })).wallets
      expect(listed.map((w: { did: string }) => w.did)).toEqual([issuer])
    }
    for (const { proc } of procs) expect(proc.stderr()).not.toMatch(/INTERNAL_ERROR|SQLITE_BUSY|database is locked/)
  }, 120_000)
})

describe.skipIf(!realUrl)(`${PROCESSES} didvault serve processes on the MongoDB of MONGODB_URL`, () => {
  it(`create ${WALLETS} wallets concurrently: indexes 1..${WALLETS} exactly once`, async () => {
    const env = { DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex'), DIDVAULT_API_KEYS: `acme:${API_KEY}` }
    const storage = freshMongoDatabase(realUrl!)
    const procs = await startServers(storage, env)
    const urls = procs.map((proc) => proc.url)
    const { vault } = ok(await http(`${urls[0]}/vaults`, { method: 'POST', token: API_KEY, json: { name: 'shared', hierarchy: 'BIP44' } }))
    const { jwt } = ok(await http(`${urls[1]}/did-auth-jwt`, { method: 'POST', token: API_KEY, json: { iss: vault.wallets[0].did } }))
    const created = await Promise.all(
      Array.from({ length: WALLETS }, (_, i) =>
        http(`${urls[i % PROCESSES]}/vaults/${vault.id}/wallet`, {
          method: 'POST',
          token: API_KEY,
          json: {},
          headers: { 'x-did-auth': jwt },
        }),
      ),
    )
    const wallets = created.map((res) => ok(res).wallet)
    expect(wallets.map((w) => w.index).sort((a, b) => a - b)).toEqual(Array.from({ length: WALLETS }, (_, i) => i + 1))
    for (const wallet of wallets) expect(wallet.ethereumAddress).toBe(addressAt(vault.mnemonic, wallet.index))
  }, 120_000)
})

/**
 * Runs `fn` on a fresh schema of the test server (its name passed in), dropped afterwards. The servers are stopped
 * first: their background work (audit sequencer, status publisher) holds locks a concurrent DROP would deadlock with.
 */
async function withSchema(suffix: string, fn: (schema: string) => Promise<void>): Promise<void> {
  const schema = `${postgres.schema}_${suffix}`
  try {
    await fn(schema)
  } finally {
    await killAll()
    const admin = new pg.Client({ connectionString: postgres.url })
    admin.on('error', () => {})
    await admin.connect()
    try {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    } finally {
      await admin.end()
    }
  }
}

describe(`${PROCESSES} didvault serve processes on one PostgreSQL database`, () => {
  it(
    'an API key revoked by `didvault keys revoke` is refused by every process from its next request on',
    () =>
      withSchema('revocation', async (schema) => {
        const storage = postgresStorage(schema)
        const env = { DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex'), DIDVAULT_API_KEYS: `acme:${API_KEY}` }
        const urls = (await startServers(storage, env)).map((proc) => proc.url)
        const cliEnv = { PATH: process.env.PATH ?? '', DIDVAULT_STORAGE: storage, DIDVAULT_MASTER_KEY: env.DIDVAULT_MASTER_KEY }
        const created = JSON.parse(
          execFileSync(process.execPath, [CLI, 'keys', 'create', '--tenant', 'acme', '--json'], {
            cwd: dir,
            env: cliEnv,
            encoding: 'utf8',
          }),
        ) as { id: string; key: string }
        for (const url of urls) ok(await http(`${url}/vaults`, { token: created.key }))

        execFileSync(process.execPath, [CLI, 'keys', 'revoke', created.id], { cwd: dir, env: cliEnv })
        for (const url of urls) {
          const refused = await http(`${url}/vaults`, { token: created.key })
          expect({ status: refused.status, errorType: (refused.body as { errorType?: string }).errorType }).toEqual({
            status: 403,
            errorType: 'UNAUTHENTICATED',
          })
          // The tenant's other key still works there.
          ok(await http(`${url}/vaults`, { token: API_KEY }))
        }
      }),
    120_000,
  )

  it(
    'role assignment on one process racing role deletion on another leaves no assignment of the deleted role',
    () =>
      withSchema('roles', async (schema) => {
        const env = { DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex'), DIDVAULT_API_KEYS: `acme:${API_KEY}` }
        const urls = (await startServers(postgresStorage(schema), env)).map((proc) => proc.url)
        const creator = ok(await http(`${urls[0]}/wallet`, { method: 'POST', token: API_KEY, json: {} })).wallet.did
        const { jwt } = ok(await http(`${urls[0]}/did-auth-jwt`, { method: 'POST', token: API_KEY, json: { iss: creator } }))
        const headers = { 'x-did-auth': jwt }
        const targets: string[] = []
        for (let i = 0; i < 5; i++)
          targets.push(ok(await http(`${urls[i % PROCESSES]}/wallet`, { method: 'POST', token: API_KEY, json: {} })).wallet.did)
        const db = new pg.Client({ connectionString: postgres.url })
        await db.connect()
        const left = async (table: string, field: string, did: string) =>
          Number((await db.query(`SELECT count(*) AS n FROM ${schema}."${table}" WHERE data ->> '${field}' = $1`, [did])).rows[0].n)
        const outcomes = new Set<string>()
        try {
          for (let round = 0; round < 12; round++) {
            const json = { permissions: ['Read'] }
            const role = ok(await http(`${urls[round % PROCESSES]}/roles`, { method: 'POST', token: API_KEY, headers, json })).role.did
            const assignments = targets.map((did) => ({ role, did }))
            const [assigned, deleted] = await Promise.all([
              http(`${urls[(round + 1) % PROCESSES]}/roles/assignments`, {
                method: 'POST',
                token: API_KEY,
                headers,
                json: { assignments },
              }),
              // Sent later each round, so the deletion meets the assignments at every stage of their work.
              delay(round * 3).then(() =>
                http(`${urls[(round + 2) % PROCESSES]}/roles`, { method: 'DELETE', token: API_KEY, headers, json: { dids: [role] } }),
              ),
            ])
            expect(ok(deleted).errors).toEqual([])
            const refused = ok(assigned).errors as Array<{ error: { errorType: string } }>
            for (const { error } of refused) expect(error.errorType).toBe('NOT_FOUND')
            outcomes.add(refused.length === 0 ? 'assigned first' : refused.length === targets.length ? 'deleted first' : 'interleaved')
            expect(await left('roleAssignments', 'role', role), `round ${round}: assignments of the deleted role`).toBe(0)
            expect(await left('roles', 'did', role)).toBe(0)
          }
        } finally {
          await db.end()
        }
        console.log(`[multiprocess] role race across processes on PostgreSQL: ${[...outcomes].join(', ')}`)
      }),
    120_000,
  )
})

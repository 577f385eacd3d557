/**
 * A database of the release before roles opens with the current code and keeps working:
 * test/fixtures/release-0.1.0.db was written by that release (see make-release-db.ts). Its
 * SQLite file is opened in place (a copy): init adds the roles collections, their columns and
 * indexes. The same records, copied into a MongoDB database made with that release's
 * collections (the stand-in server), and into a real PostgreSQL schema made with them, go
 * through the same upgrade. Then the old records read and sign as before (their keys sealed in
 * the wallet records), beside wallets made after the upgrade (their keys in the key port), and
 * roles work on top of them.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { IdentityService, staticTenants, type StorageAdapter } from '../../src/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { createMongoStorage } from '../../src/storage/mongo/index.js'
import { createPostgresStorage } from '../../src/storage/postgres/index.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { MongoWireServer } from '../helpers/mongo-wire-server.js'
import { startTestPostgres } from '../helpers/postgres.js'
import { RELEASE_DB } from '../fixtures/release-db.js'
import type { WalletRecord } from '../../src/wallets/records.js'

const FIXTURE = new URL('../fixtures/release-0.1.0.db', import.meta.url).pathname
const made = JSON.parse(readFileSync(new URL('../fixtures/release-0.1.0.json', import.meta.url), 'utf8')) as {
  vaultId: string
  rootDid: string
  standaloneDid: string
}
/** The collections the release had: the tables of its file (whatever later releases add). */
const RELEASE_COLLECTIONS = (() => {
  // Read through a copy: even a read-only open of a WAL database creates its -shm next to it.
  const copy = join(mkdtempSync(join(tmpdir(), 'didvault-release-tables-')), 'release.db')
  copyFileSync(FIXTURE, copy)
  const fixture = new Database(copy, { readonly: true, fileMustExist: true })
  try {
    const tables = new Set(
      (fixture.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((t) => t.name),
    )
    return COLLECTIONS.filter((c) => tables.has(c.name))
  } finally {
    fixture.close()
    rmSync(join(copy, '..'), { recursive: true, force: true })
  }
})()

const dir = mkdtempSync(join(tmpdir(), 'didvault-upgrade-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const open = (storage: StorageAdapter) =>
  IdentityService.create({ storage, masterKey: RELEASE_DB.masterKey, tenants: staticTenants({ [RELEASE_DB.apiKey]: RELEASE_DB.tenantId }) })
const authorization = `Bearer ${RELEASE_DB.apiKey}`

/** What the release's records must still do, and roles on top of them. */
async function expectWorks(service: IdentityService): Promise<void> {
  const api = service.as({ authorization })
  const { vaults } = await api.getVaults()
  expect(vaults).toHaveLength(1)
  expect(vaults[0]).toMatchObject({ id: made.vaultId, hierarchy: 'BIP44', status: 'INITIALIZED' })
  expect(vaults[0].wallets.map((w) => w.alias)).toEqual([made.rootDid, 'payroll', 'hub'])
  expect((await api.getWallets()).wallets.map((w) => w.did)).toContain(made.standaloneDid)
  // the embedded registry's events: the hub wallet's service endpoint and generated delegate
  const hub = vaults[0].wallets[2]
  const { didDocument } = await service.resolveDid({ did: hub.did })
  expect(didDocument?.service).toEqual([expect.objectContaining({ type: 'Hub', serviceEndpoint: 'https://hub.example.com' })])
  expect(didDocument?.verificationMethod?.map((vm) => vm.id)).toEqual([`${hub.did}#controller`, `${hub.did}#delegate-1`])
  // the sealed keys open: a token signed by the root wallet, and vault control with it (the next HD index is 3)
  const { jwt } = await api.generateToken({ iss: made.rootDid })
  const holder = service.as({ authorization, didAuth: jwt })
  expect((await holder.createVaultWallet({ vaultID: made.vaultId })).wallet.index).toBe(3)
  // roles on top
  const { role } = await holder.createRole({ permissions: ['Read'], description: 'after the upgrade' })
  expect(role.creator).toBe(made.rootDid)
  expect((await holder.createRoleAssignments({ assignments: [{ role: role.did, did: made.standaloneDid }] })).errors).toEqual([])
  const { jwt: standalone } = await api.generateToken({ iss: made.standaloneDid })
  expect((await service.as({ authorization, didAuth: standalone }).getRoles()).roles.map((r) => r.did)).toEqual([role.did])
}

describe('a SQLite database of the release before roles', () => {
  it('opens in place, gains the roles collections and keeps working; opening it again changes nothing', async () => {
    const path = join(dir, 'release.db')
    copyFileSync(FIXTURE, path)
    const service = await open(createSqliteStorage({ path }))
    await expectWorks(service)
    await service.close()
    const raw = new Database(path, { readonly: true })
    const indexes = (
      raw.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('roles', 'roleAssignments')").all() as Array<{
        name: string
      }>
    ).map((r) => r.name)
    // Layout version 2 (release 0.2.0): a 0.1.0 process, which refuses versions above 1, cannot write beside this one.
    const version = raw.prepare("SELECT value FROM _didvault_meta WHERE key = 'schemaVersion'").get()
    raw.close()
    expect(version).toEqual({ value: '2' })
    expect(indexes).toEqual(
      expect.arrayContaining(['roles/ux/tenantId,did', 'roleAssignments/ux/tenantId,role,did', 'roleAssignments/ix/tenantId,did,role']),
    )
    const again = await open(createSqliteStorage({ path }))
    const { jwt } = await again.as({ authorization }).generateToken({ iss: made.rootDid })
    expect((await again.as({ authorization, didAuth: jwt }).getRoles()).roles.map((r) => r.description)).toEqual(['after the upgrade'])
    await again.close()
  })
})

/**
 * The release's records (sealed secrets included) copied from its SQLite file into `release`, a
 * storage initialized with that release's collections only; how many were copied.
 */
async function copyReleaseRecords(release: StorageAdapter, copyName: string): Promise<number> {
  await release.init(RELEASE_COLLECTIONS)
  // A copy: even a read-only open of a WAL database creates its -shm file next to it.
  const copy = join(dir, copyName)
  copyFileSync(FIXTURE, copy)
  const fixture = new Database(copy, { readonly: true })
  let copied = 0
  try {
    for (const { name } of RELEASE_COLLECTIONS) {
      const rows = fixture.prepare(`SELECT data FROM "${name}"`).all() as Array<{ data: string }>
      await release.collection(name).insertMany(rows.map((r) => JSON.parse(r.data)))
      copied += rows.length
    }
  } finally {
    fixture.close()
    await release.close()
  }
  return copied
}

describe('a MongoDB database of the release before roles (stand-in server)', () => {
  it('the same records under the release’s collections: init adds the roles collections, and it keeps working', async () => {
    const server = await new MongoWireServer().start()
    try {
      const url = `${server.url}/release`
      expect(await copyReleaseRecords(await createMongoStorage({ url }), 'release-for-mongo.db')).toBeGreaterThanOrEqual(9)
      const service = await open(await createMongoStorage({ url }))
      await expectWorks(service)
      await service.close()
    } finally {
      await server.stop()
    }
  })
})

describe('a PostgreSQL database of the release before roles', () => {
  it('the same records under the release’s tables: wallets with their key sealed in their record keep signing beside new ones', async () => {
    const server = await startTestPostgres('release upgrade')
    try {
      const storage = () => createPostgresStorage({ connectionString: server.url, schema: server.schema })
      expect(await copyReleaseRecords(await storage(), 'release-for-postgres.db')).toBeGreaterThanOrEqual(9)
      const service = await open(await storage())
      await expectWorks(service)
      // the wallet made after the upgrade (index 3) holds its key in the key port; the release's wallets keep theirs
      const wallets = (await service.as({ authorization }).getVaults()).vaults[0].wallets
      expect(wallets.map((w) => w.index)).toEqual([0, 1, 2, 3])
      await service.close()
      const after = await storage()
      await after.init(COLLECTIONS)
      const records = (await after.collection<WalletRecord>('wallets').find({ field: 'vaultId', op: 'eq', value: made.vaultId })).items
      await after.close()
      const byIndex = new Map(records.map((r) => [r.index, r]))
      expect([0, 1, 2].map((i) => byIndex.get(i)?.privateKey)).toEqual([expect.any(String), expect.any(String), expect.any(String)])
      expect(byIndex.get(3)).toMatchObject({ keyRef: expect.stringMatching(/^sealed:/) })
      expect(byIndex.get(3)?.privateKey).toBeUndefined()
      // and they sign again in a fresh process's view of the database
      const again = await open(await storage())
      for (const w of wallets) expect((await again.as({ authorization }).generateToken({ iss: w.did })).jwt).toMatch(/^eyJ/)
      await again.close()
    } finally {
      await server.stop()
    }
  })
})

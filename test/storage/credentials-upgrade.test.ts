/**
 * A database written by main at 992c473, before issue 16 (test/fixtures/credentials-992c473.db;
 * see make-credentials-db.ts), opens with the current code: its unique index, one record per
 * content and tenant, is dropped in favour of one per content and storer, so another user
 * storing the same content gets a record of its own (issue 16, finding 6) instead of a
 * unique-constraint failure or the issuer's record. The same records go through the same
 * upgrade on the MongoDB stand-in server.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { IdentityService, staticTenants, type StorageAdapter } from '../../src/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { createMongoStorage } from '../../src/storage/mongo/index.js'
import { createPostgresStorage } from '../../src/storage/postgres/index.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import type { CollectionSpec } from '../../src/storage/port.js'
import type { CredentialRecord } from '../../src/credentials/records.js'
import { MongoWireServer } from '../helpers/mongo-wire-server.js'
import { RELEASE_DB } from '../fixtures/release-db.js'
import { startTestPostgres } from '../helpers/postgres.js'

const FIXTURE = new URL('../fixtures/credentials-992c473.db', import.meta.url).pathname
const made = JSON.parse(readFileSync(new URL('../fixtures/credentials-992c473.json', import.meta.url), 'utf8')) as {
  issuer: string
  holder: string
  other: string
  role: string
  credential: { _id: string; id: string; jsonld: Record<string, unknown> }
}
const VOCAB_URL = 'https://example.com/contexts/vocab/v1'

/** The collections as 992c473 declared them: credentials unique per (tenant, content). */
const RELEASE_COLLECTIONS: CollectionSpec[] = COLLECTIONS.map((spec) =>
  spec.name !== 'credentials'
    ? spec
    : {
        ...spec,
        fields: spec.fields.filter((f) => f !== 'storerKey'),
        indexes: [{ fields: ['tenantId', 'hash'], unique: true }, ...spec.indexes.filter((i) => !i.fields.includes('storerKey'))],
      },
)

const dir = mkdtempSync(join(tmpdir(), 'didvault-credentials-upgrade-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const open = (storage: StorageAdapter) =>
  IdentityService.create({
    storage,
    masterKey: RELEASE_DB.masterKey,
    tenants: staticTenants({ [RELEASE_DB.apiKey]: RELEASE_DB.tenantId }),
    contexts: { [VOCAB_URL]: { '@context': { '@version': 1.1, '@vocab': 'https://example.com/vocab#' } } },
  })
const authorization = `Bearer ${RELEASE_DB.apiKey}`

async function expectUpgraded(service: IdentityService, storage: StorageAdapter): Promise<void> {
  const api = service.as({ authorization })
  const as = async (did: string) => service.as({ authorization, didAuth: (await api.generateToken({ iss: did })).jwt })
  const jsonld = made.credential.jsonld
  // The issuer re-storing gets its record back; another user gets a record of its own.
  expect((await (await as(made.issuer)).storeClaims({ claims: [{ jsonld }] })).vcs[0]._id).toBe(made.credential._id)
  const others = (await (await as(made.other)).storeClaims({ claims: [{ jsonld }] })).vcs[0]
  expect(others._id).not.toBe(made.credential._id)
  expect(others).toMatchObject({ storedBy: [made.other], roles: [] })
  expect((await (await as(made.other)).storeClaims({ claims: [{ jsonld }] })).vcs[0]._id).toBe(others._id)
  // The holder of the role the record lists still reads it; the old assignment of that
  // role to the credential's DID governs nothing now (made under the old rule).
  expect((await (await as(made.holder)).getClaims({ ids: [made.credential.id] })).vcs.map((v) => v._id)).toEqual([made.credential._id])
  const listed = await (await as(made.issuer)).getRoleAssignments({ role: made.role })
  expect(listed.assignments.find((a) => a.did === made.credential.id)).toMatchObject({ governsCredentials: false })
  // The record of that release (one member per format) reads, verifies and deletes as it did (upgraded on read).
  const issuer = await as(made.issuer)
  const fetched = (await issuer.getClaims({ issuer: made.issuer })).vcs
  // (the issuer reads the other user's copy too: it names the issuer)
  expect(fetched).toContainEqual(expect.objectContaining({ _id: made.credential._id, id: made.credential.id, jsonld }))
  expect((await issuer.verifyClaims({ claims: [{ jsonld }] })).vcs[0]).toMatchObject({ verified: true, issuer: made.issuer })
  const credentials = storage.collection<CredentialRecord>('credentials')
  expect(await credentials.get(made.credential._id)).toMatchObject({ format: 'JSON-LD', jsonld })
  // A write rewrites it in the current shape: after Add Proof it is { format, encoded } without its old member.
  const proved = await (await as(made.credential.id)).addProofs({ claims: [{ _id: made.credential._id }] })
  expect(proved.errors).toEqual([])
  const proofed = proved.vcs[0].jsonld
  expect(proofed.proof).toHaveLength(2)
  const record = await credentials.get(made.credential._id)
  expect(record).toMatchObject({ format: 'JSON-LD', encoded: proofed })
  expect(record).not.toHaveProperty('jsonld')
  const accessToken = (await api.generateToken({ iss: made.issuer })).jwt
  const deleted = await service.as({ authorization: `Bearer ${accessToken}` }).deleteClaims({ ids: [made.credential._id] })
  expect(deleted).toMatchObject({ errors: [], vcs: [{ _id: made.credential._id, jsonld: proofed }] })
  expect((await issuer.getClaims({ issuer: made.issuer })).vcs.map((v) => v._id)).not.toContain(made.credential._id)
}

/** The fixture's records copied into `release`, a storage with 992c473's collections. */
async function copyFixture(release: StorageAdapter, copyName: string): Promise<void> {
  await release.init(RELEASE_COLLECTIONS)
  const copy = join(dir, copyName)
  copyFileSync(FIXTURE, copy)
  const fixture = new Database(copy, { readonly: true })
  try {
    for (const { name } of RELEASE_COLLECTIONS) {
      const table = fixture.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name)
      if (table === undefined) continue
      const rows = fixture.prepare(`SELECT data FROM "${name}"`).all() as Array<{ data: string }>
      if (rows.length > 0) await release.collection(name).insertMany(rows.map((r) => JSON.parse(r.data)))
    }
  } finally {
    fixture.close()
    await release.close()
  }
}

describe('a SQLite database written before issue 16 (992c473)', () => {
  it('opens in place: the per-tenant unique content index is dropped, one per content and storer made', async () => {
    const path = join(dir, 'release.db')
    copyFileSync(FIXTURE, path)
    const indexes = () => {
      const raw = new Database(path, { readonly: true })
      try {
        return (
          raw.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'credentials'").all() as Array<{ name: string }>
        ).map((r) => r.name)
      } finally {
        raw.close()
      }
    }
    expect(indexes()).toContain('credentials/ux/tenantId,hash')
    const storage = createSqliteStorage({ path })
    const service = await open(storage)
    await expectUpgraded(service, storage)
    await service.close()
    expect(indexes()).not.toContain('credentials/ux/tenantId,hash')
    expect(indexes()).toContain('credentials/ux/tenantId,hash,storerKey')
  })
})

describe('a MongoDB database written before issue 16 (stand-in server, not a real MongoDB)', () => {
  it('the same records under that code’s collections: init drops the old unique index, and storing works as on SQLite', async () => {
    const server = await new MongoWireServer().start()
    try {
      const url = `${server.url}/release`
      await copyFixture(await createMongoStorage({ url }), 'release-for-mongo.db')
      const client = await MongoClient.connect(url)
      const names = async () => (await client.db('release').collection('credentials').listIndexes().toArray()).map((i) => i.name as string)
      try {
        expect(await names()).toContain('ux_tenantId_hash')
        const storage = await createMongoStorage({ url })
        const service = await open(storage)
        await expectUpgraded(service, storage)
        await service.close()
        expect(await names()).not.toContain('ux_tenantId_hash')
        expect(await names()).toContain('ux_tenantId_hash_storerKey')
      } finally {
        await client.close()
      }
    } finally {
      await server.stop()
    }
  })
})

describe('a PostgreSQL database written before issue 16 and before the { format, encoded } record', () => {
  it('the same records under that code’s tables: its credential reads, verifies and deletes; storing works as on SQLite', async () => {
    const server = await startTestPostgres('credentials upgrade')
    try {
      const storage = () => createPostgresStorage({ connectionString: server.url, schema: server.schema })
      await copyFixture(await storage(), 'release-for-postgres.db')
      const opened = await storage()
      const service = await open(opened)
      await expectUpgraded(service, opened)
      await service.close()
    } finally {
      await server.stop()
    }
  })
})

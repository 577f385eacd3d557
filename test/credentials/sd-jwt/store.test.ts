/**
 * Store, Fetch and Delete of SD-JWT VCs (issue 31 §2 *Store / fetch / delete*, *Precisely: Store*) through the router on
 * loopback HTTP (a SQLite file) and the embedded API: the record keeps the issuer-signed JWT and its index fields from
 * the always-visible claims; the disclosures are sealed with the record's tenant, collection, id and field as
 * associated data — never in plaintext in the database files (WAL included) or in PostgreSQL's rows; Fetch answers the
 * credential with its disclosures only to those the read rule admits; the content hash is per disclosure set; Delete
 * follows the deletion rule; every refusal is its error body with nothing written.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openKeyring } from '../../../src/custody/keyring-store.js'
import type { CredentialRecord } from '../../../src/credentials/records.js'
import type { KeyType } from '../../../src/keys/key-types.js'
import { randomMasterKey } from '../../../src/keys/keyring.js'
import { secretContext } from '../../../src/keys/secret-context.js'
import { expectError, snapshot, startHarness, TENANT_A, TENANT_B, walletWithToken, type Harness } from '../../helpers/harness.js'
import { decodeDisclosure, partsOf } from './helpers.js'

const masterKey = randomMasterKey()
const VCT = 'https://credentials.example.com/identity'
/** Values that occur nowhere but in the disclosures (so finding one in the database is finding a disclosure). */
const secretName = () => `Erika-${Math.random().toString(36).slice(2)}-${Date.now()}`

async function walletOf(h: Harness, keyType: KeyType, token = TENANT_A): Promise<{ did: string; jwt: string }> {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'jwk', keyType } }, token })
  expect(made.status).toBe(200)
  const did: string = made.body.wallet.did
  const auth = await h.request('POST', '/did-auth-jwt', { json: { iss: did }, token })
  return { did, jwt: auth.body.jwt }
}

/** An SD-JWT VC of `issuer` to `holder` whose `given_name` (disclosable) is `given`. */
async function issued(h: Harness, issuer: { did: string; jwt: string }, holder: string, given: string): Promise<string> {
  const res = await h.request('POST', '/claims/sign', {
    json: {
      iss: issuer.did,
      format: 'SD-JWT',
      sub: holder,
      claims: [{ vct: VCT, payload: { given_name: given, family_name: 'Mustermann', age: 42 } }],
    },
    didAuth: issuer.jwt,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.vcs[0].sdjwt as string
}

/** SQLite: the bytes of every file of the database (the WAL and its index included). PostgreSQL: every row as text. */
async function databaseText(h: Harness): Promise<string> {
  if (h.postgres === undefined) {
    const files = readdirSync(h.dir!)
    expect(files.some((f) => f.endsWith('-wal'))).toBe(true)
    return Buffer.concat(files.map((f) => readFileSync(join(h.dir!, f)))).toString('latin1')
  }
  const client = new pg.Client({ connectionString: h.postgres.url })
  await client.connect()
  try {
    const { schema } = h.postgres
    const tables = await client.query<{ name: string }>('SELECT tablename AS name FROM pg_tables WHERE schemaname = $1', [schema])
    const texts: string[] = []
    for (const { name } of tables.rows) {
      texts.push(...(await client.query<{ row: string }>(`SELECT t::text AS row FROM "${schema}"."${name}" AS t`)).rows.map((r) => r.row))
    }
    return texts.join('\n')
  } finally {
    await client.end()
  }
}

/** Every secret a stored SD-JWT VC's disclosures carry: each disclosure, its salt, and the disclosed value. */
function secretsOf(compact: string, given: string): string[] {
  const { disclosures } = partsOf(compact)
  expect(disclosures).toHaveLength(3)
  return [...disclosures, ...disclosures.map((d) => decodeDisclosure(d)[0] as string), given]
}

describe('Store, Fetch, Delete of SD-JWT VCs (router on a SQLite file)', () => {
  let h: Harness
  let issuer: { did: string; jwt: string }
  let holder: { did: string; jwt: string }
  let stranger: { did: string; _id: string; jwt: string }
  beforeAll(async () => {
    h = await startHarness({ storage: 'sqlite', service: { masterKey } })
    issuer = await walletOf(h, 'Ed25519')
    holder = await walletOf(h, 'P-256')
    stranger = await walletWithToken(h)
  })
  afterAll(() => h?.close())

  const store = (json: unknown, didAuth = issuer.jwt) => h.request('POST', '/claims', { json, didAuth })
  const fetchAs = (query: string, didAuth: string, token?: string) => h.request('GET', `/claims${query}`, { didAuth, token })

  it('keeps the issuer-signed JWT and index fields of the always-visible claims, the disclosures sealed; Fetch gives it back whole', async () => {
    const given = secretName()
    const sdjwt = await issued(h, issuer, holder.did, given)
    const res = await store({ claims: [{ sdjwt }] })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.errors).toEqual([])
    const stored = res.body.vcs[0]
    expect(stored).toEqual({
      _id: expect.any(String),
      id: null,
      format: 'SD-JWT',
      isPublicAccess: false,
      roles: [],
      issuer: issuer.did,
      subject: holder.did,
      type: [VCT],
      storedBy: [issuer.did],
      createdAt: expect.any(String),
      sdjwt,
    })

    // the record: format, the issuer-signed JWT, an envelope bound to this record and field; no plaintext disclosure
    const record = (await h.storage.collection<CredentialRecord>('credentials').get(stored._id))!
    const { jwt, disclosures } = partsOf(sdjwt)
    expect(record).toMatchObject({ format: 'SD-JWT', encoded: jwt, types: [VCT], issuer: issuer.did, subject: holder.did })
    expect(record).not.toHaveProperty('sdjwt')
    const envelope = record.disclosures!
    for (const secret of secretsOf(sdjwt, given)) expect(JSON.stringify(record)).not.toContain(secret)
    const keyring = await openKeyring(h.storage, masterKey)
    const opened = JSON.parse(new TextDecoder().decode(keyring.open(envelope, secretContext('credentials', record, 'disclosures'))))
    expect(opened).toEqual(disclosures)
    // the associated data binds it: another record, tenant or field does not open it
    for (const [ref, field] of [
      [{ tenantId: record.tenantId, id: 'another-record' }, 'disclosures'],
      [{ tenantId: 'another-tenant', id: record.id }, 'disclosures'],
      [record, 'encoded'],
    ] as const) {
      expect(() => keyring.open(envelope, secretContext('credentials', ref, field))).toThrow()
    }

    // the database files (WAL included), audit records and all, hold no disclosure, salt or disclosed value
    const text = await databaseText(h)
    expect(text).toContain(jwt.split('.')[1])
    for (const secret of secretsOf(sdjwt, given)) expect(text.includes(secret), secret).toBe(false)

    // Fetch by issuer, by subject, by type (vct): the whole SD-JWT VC, disclosures unsealed
    for (const query of [`?issuer=${issuer.did}`, `?subject=${holder.did}`, `?type=${encodeURIComponent(VCT)}&issuer=${issuer.did}`]) {
      const page = await fetchAs(query, issuer.jwt)
      expect(page.status).toBe(200)
      expect(page.body.vcs.filter((v: any) => v._id === stored._id)).toEqual([stored])
    }
    expect((await fetchAs(`?type=Other&issuer=${issuer.did}`, issuer.jwt)).body.vcs).toEqual([])
    // the subject reads it too (the read rule); the embedded API answers the same
    expect((await fetchAs('', holder.jwt)).body.vcs.map((v: any) => v.sdjwt)).toContain(sdjwt)
    const embedded = await h.service.as({ authorization: `Bearer ${TENANT_A}`, didAuth: holder.jwt }).getClaims({ issuer: issuer.did })
    expect(embedded.vcs.find((v) => v._id === stored._id)).toEqual(stored)
  })

  it('a reader the rule does not admit, or another tenant, gets nothing; isPublicAccess admits the tenant', async () => {
    const given = secretName()
    const sdjwt = await issued(h, issuer, holder.did, given)
    const stored = (await store({ claims: [{ sdjwt }] })).body.vcs[0]
    const page = await fetchAs('', stranger.jwt)
    expect(page.status).toBe(200)
    expect(JSON.stringify(page.body)).not.toContain(partsOf(sdjwt).disclosures[0])
    expect(page.body.vcs.map((v: any) => v._id)).not.toContain(stored._id)
    expect((await fetchAs(`?issuer=${issuer.did}`, stranger.jwt)).body.vcs).toEqual([])
    const other = await walletWithToken(h, TENANT_B)
    expect((await fetchAs('', other.jwt, TENANT_B)).body.vcs).toEqual([])
    // the same content stored public by the stranger: a record of its own (it may not read the issuer's), readable by the tenant
    const mine = (await store({ isPublicAccess: true, claims: [{ sdjwt }] }, stranger.jwt)).body.vcs[0]
    expect(mine._id).not.toBe(stored._id)
    const anyone = await walletWithToken(h)
    const seen = (await fetchAs('', anyone.jwt)).body.vcs.filter((v: any) => [mine._id, stored._id].includes(v._id))
    expect(seen).toEqual([expect.objectContaining({ sdjwt, isPublicAccess: true })])
    expect((await fetchAs('', other.jwt, TENANT_B)).body.vcs).toEqual([])
  })

  it('roles given at store admit their holders, and only them', async () => {
    const sdjwt = await issued(h, issuer, holder.did, secretName())
    const role = await h.request('POST', '/roles', { json: { description: 'Auditors', permissions: ['Read'] }, didAuth: issuer.jwt })
    const auditor = await walletWithToken(h)
    const assigned = await h.request('POST', '/roles/assignmnets', {
      json: { assignments: [{ role: role.body.role.did, did: auditor.did }] },
      didAuth: issuer.jwt,
    })
    expect(assigned.body.errors).toEqual([])
    const stored = (await store({ claims: [{ sdjwt, roles: [role.body.role.did] }] })).body.vcs[0]
    expect(stored).toMatchObject({ roles: [role.body.role.did], sdjwt })
    expect((await fetchAs('', auditor.jwt)).body.vcs.filter((v: any) => v._id === stored._id)).toEqual([stored])
    expect((await fetchAs('', stranger.jwt)).body.vcs.map((v: any) => v._id)).not.toContain(stored._id)
  })

  it('deduplicates per disclosure set: the same set (in any order) is the same record, another set another record', async () => {
    const sdjwt = await issued(h, issuer, holder.did, secretName())
    const { jwt, disclosures } = partsOf(sdjwt)
    const first = (await store({ claims: [{ sdjwt }] })).body.vcs[0]
    const reordered = `${jwt}~${[...disclosures].reverse().join('~')}~`
    const fewer = `${jwt}~${disclosures[0]}~`
    const res = await store({ claims: [{ sdjwt: reordered }, { sdjwt: fewer }] })
    expect(res.body.errors).toEqual([])
    expect(res.body.vcs[0]._id).toBe(first._id)
    expect(res.body.vcs[0].sdjwt).toBe(sdjwt)
    expect(res.body.vcs[1]._id).not.toBe(first._id)
    expect(res.body.vcs[1].sdjwt).toBe(fewer)
    // none disclosed at all is a credential too
    const none = (await store({ claims: [{ sdjwt: `${jwt}~` }] })).body.vcs[0]
    expect(none.sdjwt).toBe(`${jwt}~`)
    expect((await h.storage.collection<CredentialRecord>('credentials').get(none._id))!.disclosures).toBeUndefined()
  })

  it('verify: true verifies SD-JWT items; a bad one is an element of errors, and nothing of it is written', async () => {
    const sdjwt = await issued(h, issuer, holder.did, secretName())
    const { jwt, disclosures } = partsOf(sdjwt)
    const other = partsOf(await issued(h, issuer, holder.did, secretName()))
    const [header, payload, signature] = jwt.split('.')
    const forged = `${header}.${payload}.${Buffer.from('x'.repeat(64)).toString('base64url')}~${disclosures.join('~')}~`
    expect(signature).not.toBe(forged.split('.')[2].split('~')[0])
    const cases = [
      // a signature that does not verify (with verify: true)
      { sdjwt: forged, message: /^the credential does not verify: / },
      // a presentation (with a KB-JWT) instead of a credential
      { sdjwt: `${sdjwt}${other.jwt}`, message: /^sdjwt: a credential, not a presentation/ },
      // a disclosure swapped in from another credential
      { sdjwt: `${jwt}~${other.disclosures[0]}~`, message: /^sdjwt: a disclosure is referenced by no digest/ },
      // a disclosure given twice
      { sdjwt: `${jwt}~${disclosures[0]}~${disclosures[0]}~`, message: /^sdjwt: a disclosure is given twice/ },
    ]
    const before = await snapshot(h)
    const res = await store({ verify: true, claims: cases.map(({ sdjwt: s }) => ({ sdjwt: s })) })
    expect(res.status).toBe(200)
    expect(res.body.vcs).toEqual([])
    expect(res.body.errors).toEqual(
      cases.map((_, claim) => ({ claim, error: { statusCode: 422, errorType: 'VALIDATION_ERROR', errorMessage: expect.any(String) } })),
    )
    cases.forEach(({ message }, i) => expect(res.body.errors[i].error.errorMessage).toMatch(message))
    expect(await snapshot(h)).toEqual(before)
    // and the good one verifies and stores
    const ok = await store({ verify: true, claims: [{ sdjwt }] })
    expect(ok.body).toMatchObject({ errors: [], vcs: [{ sdjwt }] })
  })

  it('refuses a whole request that is no store request (the error body, nothing written)', async () => {
    const sdjwt = await issued(h, issuer, holder.did, secretName())
    const before = await snapshot(h)
    for (const claims of [
      [{ sdjwt: '' }],
      [{ sdjwt: 42 }],
      [{ sdjwt: 'x'.repeat(512 * 1024 + 1) }],
      [{ sdjwt, jwt: partsOf(sdjwt).jwt }],
      [{ sdjwt, alias: 'a' }],
    ]) {
      expectError(await store({ claims }), 422, 'VALIDATION_ERROR')
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('Delete follows the deletion rule: the storer deletes (the answer carries the credential), others are refused', async () => {
    const sdjwt = await issued(h, issuer, holder.did, secretName())
    const stored = (await store({ claims: [{ sdjwt }] })).body.vcs[0]
    const before = await snapshot(h)
    const refused = await h.request('DELETE', '/claims', { json: { ids: [stored._id] }, token: stranger.jwt })
    expect(refused.status).toBe(200)
    expect(refused.body).toMatchObject({ vcs: [], errors: [{ _id: stored._id, error: { statusCode: 403, errorType: 'FORBIDDEN' } }] })
    expect(await snapshot(h)).toEqual(before)
    const deleted = await h.request('DELETE', '/claims', { json: { ids: [stored._id] }, token: issuer.jwt })
    expect(deleted.body).toEqual({ resolver: expect.any(String), vcs: [stored], errors: [] })
    expect(await h.storage.collection('credentials').get(stored._id)).toBeUndefined()
  })
})

describe('a stored SD-JWT VC elsewhere: the embedded API, W3C presentations, master-key rotation', () => {
  let h: Harness
  let issuer: { did: string; jwt: string }
  let holder: { did: string; jwt: string }
  beforeAll(async () => {
    h = await startHarness({ storage: 'sqlite', service: { masterKey } })
    issuer = await walletOf(h, 'P-256')
    holder = await walletOf(h, 'Ed25519')
  })
  afterAll(() => h?.close())

  it('stores and fetches through the embedded API as through the router', async () => {
    const sdjwt = await issued(h, issuer, holder.did, secretName())
    const api = h.service.as({ authorization: `Bearer ${TENANT_A}`, didAuth: holder.jwt })
    const stored = await api.storeClaims({ claims: [{ sdjwt }], verify: true })
    expect(stored).toMatchObject({ errors: [], vcs: [{ sdjwt, issuer: issuer.did, subject: holder.did, type: [VCT] }] })
    expect((await api.getClaims({ type: VCT })).vcs).toEqual(stored.vcs)
  })

  it('its _id in a W3C presentation is refused by name (422, nothing written): the stored record loads as { sdjwt }', async () => {
    const sdjwt = await issued(h, issuer, holder.did, secretName())
    const stored = (await h.request('POST', '/claims', { json: { claims: [{ sdjwt }] }, didAuth: holder.jwt })).body.vcs[0]
    const before = await snapshot(h)
    const res = await h.request('POST', '/presentations/sign', {
      json: { holder: holder.did, format: 'JWT', vcs: [{ _id: stored._id }] },
      didAuth: holder.jwt,
    })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(/^vcs\.0\._id: an SD-JWT VC is not carried in a W3C presentation/)
    expect(await snapshot(h)).toEqual(before)
  })

  it('master-key rotation reseals the disclosures; Fetch still gives them back', async () => {
    const sdjwt = await issued(h, issuer, holder.did, secretName())
    const stored = (await h.request('POST', '/claims', { json: { claims: [{ sdjwt }] }, didAuth: holder.jwt })).body.vcs[0]
    const envelope = async () => (await h.storage.collection<CredentialRecord>('credentials').get(stored._id))!.disclosures!
    const before = await envelope()
    const next = randomMasterKey()
    expect((await h.service.rotateMasterKey(next)).resealed).toBeGreaterThan(0)
    const after = await envelope()
    expect(after).not.toBe(before)
    const keyring = await openKeyring(h.storage, next)
    const record = (await h.storage.collection<CredentialRecord>('credentials').get(stored._id))!
    expect(JSON.parse(new TextDecoder().decode(keyring.open(after, secretContext('credentials', record, 'disclosures'))))).toEqual(
      partsOf(sdjwt).disclosures,
    )
    const page = await h.request('GET', `/claims?issuer=${issuer.did}`, { didAuth: holder.jwt })
    expect(page.body.vcs.find((v: any) => v._id === stored._id)?.sdjwt).toBe(sdjwt)
  })
})

describe('SD-JWT VC disclosures at rest on PostgreSQL', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ storage: 'postgres', service: { masterKey } })
  })
  afterAll(() => h?.close())

  it('no row holds a disclosure, salt or disclosed value; Fetch gives them back', async () => {
    const issuer = await walletOf(h, 'secp256k1')
    const holder = await walletOf(h, 'Ed25519')
    const given = secretName()
    const sdjwt = await issued(h, issuer, holder.did, given)
    const stored = await h.request('POST', '/claims', { json: { claims: [{ sdjwt }] }, didAuth: issuer.jwt })
    expect(stored.body.vcs[0].sdjwt).toBe(sdjwt)
    const text = await databaseText(h)
    expect(text).toContain(partsOf(sdjwt).jwt.split('.')[1])
    for (const secret of secretsOf(sdjwt, given)) expect(text.includes(secret), secret).toBe(false)
    const page = await h.request('GET', `/claims?issuer=${issuer.did}`, { didAuth: holder.jwt })
    expect(page.body.vcs.map((v: any) => v.sdjwt)).toEqual([sdjwt])
  })
})

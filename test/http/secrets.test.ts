/**
 * No plaintext secret reaches storage or a response: the SQLite files' bytes, every PostgreSQL
 * table of the harness's schema read back as text, and every response body are searched for
 * every private key and mnemonic the test creates.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync } from '@scure/bip39'
import { randomMasterKey } from '../../src/keys/keyring.js'
import { openKeyring } from '../../src/custody/keyring-store.js'
import { secretContext } from '../../src/keys/secret-context.js'
import { startHarness, tokenFor, type Harness } from '../helpers/harness.js'
import { openDelegateKey } from '../helpers/delegate-keys.js'

const masterKey = randomMasterKey()
let h: Harness
const responses: string[] = []
let mnemonic = ''
let mnemonicResponse = ''

async function call(method: string, path: string, init: Parameters<Harness['request']>[2] = {}) {
  const res = await h.request(method, path, init)
  responses.push(JSON.stringify(res.body))
  return res
}

/** Starts a harness on `storage` and makes every kind of secret through the HTTP API. */
async function makeSecrets(storage: 'sqlite' | 'postgres'): Promise<void> {
  responses.length = 0
  h = await startHarness({ storage, service: { masterKey } })
  const hd = await h.request('POST', '/vaults', { json: { name: 'hd', hierarchy: 'BIP44' } })
  mnemonic = hd.body.vault.mnemonic
  mnemonicResponse = JSON.stringify(hd.body)
  const v = hd.body.vault
  const jwt = await tokenFor(h, v.wallets[0].did)
  for (let i = 0; i < 3; i++) await call('POST', `/vaults/${v.id}/wallet`, { json: {}, didAuth: jwt })
  await call('POST', '/vaults', { json: { name: 'plain' } })
  await call('POST', '/wallet', { json: { wallet: { alias: 'w' } } })
  await call('GET', '/vaults')
  await call('GET', '/wallets')
  await call('POST', '/did-auth-jwt', { json: { iss: v.wallets[0].did } })
  await call('DELETE', '/wallet', { json: { ids: ['nope'] }, didAuth: jwt })
  await call('POST', '/vaults', { json: { name: 'bad', hierarchy: 'X' } })
  // Claim DIDs: wallets made by Sign Verifiable Credentials, in both formats, one with a generated delegate key
  const signed = await call('POST', '/claims/sign', {
    json: {
      iss: v.wallets[0].did,
      claims: [
        { alias: 'claim-ld', payload: {} },
        { payload: {}, walletConfig: { txsInput: [{ delegate: { validity: 60_000 } }] } },
      ],
    },
    didAuth: jwt,
  })
  await call('POST', '/claims/sign', {
    json: { iss: v.wallets[0].did, format: 'JWT', claims: [{ alias: 'claim-jwt', payload: { a: 1 } }] },
    didAuth: jwt,
  })
  await call('POST', '/claims/verify', { json: { claims: signed.body.vcs.map((vc: any) => ({ jsonld: vc.jsonld })) }, didAuth: jwt })
}

/**
 * Every plaintext private key (vault wallets' in their records, generated wallets', claim DIDs' and delegates' in the key port's `keys`
 * collection, delegates made before it in theirs): opened from the stored envelopes with the master key.
 */
async function plaintextKeys(): Promise<Uint8Array[]> {
  const keyring = await openKeyring(h.storage, masterKey)
  const wallets = await h.storage.collection('wallets').find({ and: [] }, { limit: 1_000 })
  const keys = await h.storage.collection('keys').find({ and: [] }, { limit: 1_000 })
  const delegates = await h.storage.collection('delegateKeys').find({ and: [] }, { limit: 1_000 })
  expect(delegates.items.length).toBeGreaterThan(0)
  expect(keys.items.length).toBeGreaterThan(0)
  return [
    ...wallets.items
      .filter((w: any) => w.privateKey !== undefined)
      .map((w: any) => keyring.open(w.privateKey, secretContext('wallets', w, 'privateKey'))),
    ...keys.items.map((k: any) => keyring.open(k.privateKey, secretContext('keys', k, 'privateKey'))),
    ...(await Promise.all(delegates.items.map((d: any) => openDelegateKey(h.storage, keyring, d)))),
  ]
}

/** SQLite: the bytes of the database files. PostgreSQL: every row of every table of the schema, read back as text. */
async function databaseBytes(): Promise<Buffer> {
  if (h.postgres === undefined) {
    const dir = h.dir!
    return Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))))
  }
  const { url, schema } = h.postgres
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const tables = await client.query<{ name: string }>('SELECT tablename AS name FROM pg_tables WHERE schemaname = $1', [schema])
    expect(tables.rows.map((table) => table.name)).toContain('wallets')
    const texts: string[] = []
    for (const { name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${schema}"."${name}" AS t`)
      texts.push(...rows.rows.map((row) => row.row))
    }
    return Buffer.from(texts.join('\n'))
  } finally {
    await client.end()
  }
}

describe.each(['sqlite', 'postgres'] as const)('secrets at rest and in responses on %s', (storage) => {
  beforeAll(() => makeSecrets(storage))
  afterAll(() => h.close())

  it('the database (files, or tables read as text) holds no private key (hex, either case, or raw bytes) and no mnemonic', async () => {
    const keys = await plaintextKeys()
    expect(keys.length).toBeGreaterThanOrEqual(9)
    const bytes = await databaseBytes()
    const text = bytes.toString('latin1')
    for (const key of keys) {
      const hex = Buffer.from(key).toString('hex')
      expect(text.includes(hex)).toBe(false)
      expect(text.includes(hex.toUpperCase())).toBe(false)
      expect(bytes.includes(Buffer.from(key))).toBe(false)
    }
    expect(mnemonic.split(' ')).toHaveLength(12)
    expect(text.includes(mnemonic)).toBe(false)
    // the seed and account node are secrets too
    const seed = mnemonicToSeedSync(mnemonic)
    expect(bytes.includes(Buffer.from(seed))).toBe(false)
    const account = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0")
    expect(text.includes(account.privateExtendedKey)).toBe(false)
    expect(bytes.includes(Buffer.from(account.privateKey!))).toBe(false)
    expect(text.includes(Buffer.from(account.privateKey!).toString('hex'))).toBe(false)
    expect(bytes.includes(Buffer.from(account.chainCode!))).toBe(false)
  })

  it('no response carries a plaintext key; the mnemonic appears only in its one create response', async () => {
    const keys = (await plaintextKeys()).map((k) => Buffer.from(k).toString('hex'))
    for (const body of [...responses, mnemonicResponse]) {
      for (const hex of keys) expect(body.toLowerCase().includes(hex)).toBe(false)
    }
    for (const body of responses) expect(body.includes(mnemonic)).toBe(false)
    expect(mnemonicResponse.includes(mnemonic)).toBe(true)
  })
})

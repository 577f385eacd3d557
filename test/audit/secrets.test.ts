/**
 * No secret in any audit record: flows that make private keys, a mnemonic, delegate keys, MPC
 * shares, API keys, DID-auth tokens and a passphrase master key (rotated to another), then the
 * audit tables' raw rows, read from the SQLite database file, searched for each.
 */
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHarness, type Harness } from '../helpers/harness.js'
import { approvals, member, mpcVaultBody } from '../helpers/mpc.js'
import { openKeyring } from '../../src/custody/keyring-store.js'
import { secretContext } from '../../src/keys/secret-context.js'

const PASSPHRASE = 'correct horse battery staple, audit edition'
const NEXT_PASSPHRASE = 'another long passphrase for the rotation'
let h: Harness
const secrets: string[] = []

beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { tenants: undefined, masterKey: PASSPHRASE } })
  const key = await h.service.apiKeys!.create('tenant-a')
  secrets.push(key.key, PASSPHRASE, NEXT_PASSPHRASE)
  const api = (didAuth?: string) => h.service.as({ authorization: key.key, didAuth })
  const { vault } = await api().createVault({ name: 'hd', hierarchy: 'BIP44', keyManagement: 'ECS' })
  secrets.push(vault.mnemonic!)
  const root = vault.wallets[0].did
  const jwt = (await api().generateToken({ iss: root })).jwt
  secrets.push(jwt)
  await api(jwt).createVaultWallet({ vaultID: vault.id })
  await api(jwt).configureWallet({ wallet: { did: root }, walletConfig: { txsInput: [{ delegate: { validity: 60_000 } }] } })
  await api(jwt).signClaims({ iss: root, claims: [{ payload: { a: 1 } }] })
  const members = [await member(), await member()]
  const mpc = await api().createVault(mpcVaultBody(members))
  const quorum = await approvals(...members)
  secrets.push(...quorum.split(','))
  await api(quorum).initializeVault({ vaultID: mpc.vault.id })
  const { wallet } = await api(quorum).createVaultWallet({ vaultID: mpc.vault.id })
  await api(quorum).generateToken({ iss: wallet.did })
  // Plaintext keys and shares, opened from their envelopes with the master key.
  const keyring = await openKeyring(h.storage, PASSPHRASE)
  for (const name of ['wallets', 'keys', 'delegateKeys', 'mpcShares']) {
    const field = name === 'mpcShares' ? 'share' : 'privateKey'
    for (const record of (
      await h.storage.collection<{ id: string; tenantId: string; [field: string]: unknown }>(name).find({ and: [] }, { limit: 1_000 })
    ).items) {
      if (typeof record[field] === 'string')
        secrets.push(Buffer.from(keyring.open(record[field], secretContext(name, record, field))).toString('hex'))
    }
  }
  await h.service.apiKeys!.revoke(key.id)
  await h.service.rotateMasterKey(NEXT_PASSPHRASE)
}, 60_000)
afterAll(() => h?.close())

/** Every row of the audit tables (records, their array side tables, heads) as stored in the file. */
function auditRows(): string {
  const db = new Database(h.dbPath, { readonly: true })
  try {
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'audit%'`).all() as Array<{ name: string }>
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['auditRecords', 'auditHeads']))
    return tables
      .flatMap(({ name }) =>
        db
          .prepare(`SELECT * FROM "${name}"`)
          .all()
          .map((row) => JSON.stringify(row)),
      )
      .join('\n')
  } finally {
    db.close()
  }
}

describe('audit records hold no secret', () => {
  it('the flows were recorded, and no secret appears in the audit tables’ rows (hex in either case, or text)', () => {
    const rows = auditRows()
    for (const action of ['vault.create', 'wallet.create', 'did.update', 'credential.sign', 'mpc.initialize', 'mpc.sign']) {
      expect(rows).toContain(action)
    }
    for (const action of ['apiKey.create', 'apiKey.revoke', 'masterKey.rotate']) expect(rows).toContain(action)
    expect(secrets.length).toBeGreaterThan(12)
    for (const secret of secrets) {
      expect(rows.includes(secret)).toBe(false)
      expect(rows.toLowerCase().includes(secret.toLowerCase())).toBe(false)
    }
    // A mnemonic's words, however joined.
    const words = secrets[3].split(' ')
    expect(words).toHaveLength(12)
    expect(rows.includes(words.join(''))).toBe(false)
  })
})

/**
 * HD wallet indexes stay unique and gap-free under concurrent requests on the backends whose
 * transactions run concurrently: on PostgreSQL, 30 simultaneous wallet creations in one vault
 * meet serialization failures and row locks, which the adapter's retried SERIALIZABLE
 * transactions must absorb (every request answers 200).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHarness, tokenFor, type Harness } from '../helpers/harness.js'

describe('concurrent HD wallet creation on PostgreSQL', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ storage: 'postgres' })
  })
  afterAll(() => h?.close())

  it('30 simultaneous wallet creations in one BIP44 vault all succeed, with indexes 0..30', async () => {
    const { vault } = (await h.request('POST', '/vaults', { json: { name: 'hd', hierarchy: 'BIP44' } })).body
    const jwt = await tokenFor(h, vault.wallets[0].did)
    const created = await Promise.all(
      Array.from({ length: 30 }, () => h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: jwt })),
    )
    expect(created.map((res) => res.status)).toEqual(Array(30).fill(200))
    const wallets = await h.storage.collection('wallets').find({ field: 'vaultId', op: 'eq', value: vault.id }, { limit: 100 })
    const indexes = wallets.items.map((wallet) => wallet.index as number).sort((a, b) => a - b)
    expect(indexes).toEqual(Array.from({ length: 31 }, (_, i) => i))
  }, 60_000)
})

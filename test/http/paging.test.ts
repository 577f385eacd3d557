/** Lists are pages: `limit` + `cursor` in, `nextCursor` out while more follow — never cut at a silent cap. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, startHarness, TENANT_B, type Harness } from '../helpers/harness.js'

for (const storage of ['memory', 'sqlite'] as const) {
  describe(`paged lists (${storage})`, () => {
    let h: Harness
    beforeAll(async () => {
      h = await startHarness({ storage })
    })
    afterAll(() => h.close())

    /** Follows `nextCursor` from the first page to the last. */
    async function everyPage(path: string, key: 'wallets' | 'vaults', limit: number) {
      const pages: Array<Array<{ did?: string; id?: string }>> = []
      let cursor: string | undefined
      do {
        const sep = path.includes('?') ? '&' : '?'
        const res = await h.request('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
        expect(res.status).toBe(200)
        expect(res.body[key].length).toBeLessThanOrEqual(limit)
        pages.push(res.body[key])
        cursor = res.body.nextCursor
      } while (cursor !== undefined)
      return pages
    }

    it('GET /wallets pages through every wallet exactly once, oldest first', async () => {
      const made: string[] = []
      for (let i = 0; i < 7; i++) made.push((await h.request('POST', '/wallet', { json: { wallet: { alias: `w${i}` } } })).body.wallet.did)
      const pages = await everyPage('/wallets', 'wallets', 3)
      expect(pages.map((p) => p.length)).toEqual([3, 3, 1])
      expect(pages.flat().map((w) => w.did)).toEqual(made)
      // the last page has no nextCursor; the default page holds them all
      const all = await h.request('GET', '/wallets')
      expect(all.body.wallets).toHaveLength(7)
      expect(all.body).not.toHaveProperty('nextCursor')
    })

    it('GET /vaults pages too, each vault with all its wallets (one query for the page)', async () => {
      const ids: string[] = []
      for (let i = 0; i < 5; i++) ids.push((await h.request('POST', '/vaults', { json: { name: `v${i}` } })).body.vault.id)
      const pages = await everyPage('/vaults', 'vaults', 2)
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1])
      expect(pages.flat().map((v) => v.id)).toEqual(ids)
      for (const v of pages.flat() as Array<{ wallets: unknown[] }>) expect(v.wallets).toHaveLength(1)
    })

    it('bad paging input is 422: limit 0, over 1,000, not a number; a cursor edited or from another list', async () => {
      for (const q of [
        'limit=0',
        'limit=1001',
        'limit=abc',
        'limit=1.5',
        'limit=-1',
        'limit=1&limit=2',
        'cursor=',
        'cursor=not-a-cursor',
      ]) {
        expectError(await h.request('GET', `/wallets?${q}`), 422, 'VALIDATION_ERROR')
      }
      const { nextCursor } = (await h.request('GET', '/wallets?limit=1')).body
      expect(typeof nextCursor).toBe('string')
      const edited = Buffer.from(JSON.stringify({ tampered: true })).toString('base64url')
      expectError(await h.request('GET', `/wallets?cursor=${edited}`), 422, 'VALIDATION_ERROR')
      // a cursor only moves where a page starts within the caller's own tenant
      const other = await h.request('GET', `/wallets?cursor=${encodeURIComponent(nextCursor)}`, { token: TENANT_B })
      expect(other.status).toBe(200)
      expect(other.body.wallets).toEqual([])
    })

    it('the embedded API takes limit as a number', async () => {
      const api = h.service.as({ authorization: `Bearer token-tenant-a-0123456789` })
      const first = await api.getWallets({ limit: 2 })
      expect(first.wallets).toHaveLength(2)
      const next = await api.getWallets({ limit: 2, cursor: first.nextCursor })
      expect(next.wallets[0].did).not.toBe(first.wallets[0].did)
    })
  })
}

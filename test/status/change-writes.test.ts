/**
 * Change Credential Status writes a request's changes in one transaction; when that transaction
 * fails, item by item: a failing item is its own error (500, reported to `onError`), nothing
 * written for it, and the other items are written. The storage here fails the change-log
 * insert of one chosen entry.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { IdentityService, createMemoryStorage, randomMasterKey, staticTenants, type StorageAdapter } from '../../src/index.js'
import type { StatusEntryRecord } from '../../src/status/records.js'

const API_KEY = 'change-writes-api-key-0123456789'
const authorization = `Bearer ${API_KEY}`
/** Index of the entry whose change record the storage refuses to insert (none until set). */
let poisoned: number | undefined
const memory = createMemoryStorage()

/** `storage` (and its transactions), except that inserting change records of the poisoned index fails. */
function failing(storage: StorageAdapter): StorageAdapter {
  return new Proxy(storage, {
    get(target, key) {
      if (key === 'transaction') return <R>(fn: (tx: StorageAdapter) => Promise<R>) => target.transaction((tx) => fn(failing(tx)))
      if (key === 'collection')
        return (name: string) => {
          const collection = target.collection(name)
          if (name !== 'status_changes') return collection
          return new Proxy(collection, {
            get(c, k) {
              if (k !== 'insertMany') return (c as never as Record<string | symbol, unknown>)[k]
              return (records: Array<{ index: number }>) => {
                if (records.some((r) => r.index === poisoned)) throw new Error('storage: write failed')
                return c.insertMany(records as never)
              }
            },
          })
        }
      const value = (target as never as Record<string | symbol, unknown>)[key]
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
}

const errors: unknown[] = []
let service: IdentityService
beforeAll(async () => {
  service = await IdentityService.create({
    storage: failing(memory),
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [API_KEY]: 'tenant-a' }),
    publicUrl: 'https://status.example.com',
    statusPublishIntervalMs: 60_000,
    onError: (_operation, err) => errors.push(err),
  })
})
afterAll(() => service?.close())

it('a write that fails in the request’s transaction fails its item only: the other items are written', async () => {
  const { wallet } = await service.as({ authorization }).generateWallet({})
  const as = service.as({ authorization, didAuth: (await service.as({ authorization }).generateToken({ iss: wallet.did })).jwt })
  const { vcs } = await as.signClaims({
    iss: wallet.did,
    format: 'JWT',
    status: { purposes: ['suspension'] },
    claims: [{ payload: { n: 1 } }, { payload: { n: 2 } }],
  })
  const [first, second] = (vcs as Array<{ jwt: string }>).map(
    (vc) =>
      (JSON.parse(Buffer.from(vc.jwt.split('.')[1], 'base64url').toString()) as { vc: { credentialStatus: Record<string, string> } }).vc
        .credentialStatus,
  )
  poisoned = Number(first.statusListIndex)
  const item = (e: Record<string, string>) => ({
    statusListCredential: e.statusListCredential,
    statusListIndex: e.statusListIndex,
    purpose: 'suspension' as const,
    value: true,
  })
  const res = await as.changeStatus({ items: [item(first), item(second)] })
  expect(res.items.map((i) => [i.index, i.entries[0].changed])).toEqual([[1, true]])
  expect(res.errors.map((e) => [e.index, e.error.statusCode])).toEqual([[0, 500]])
  expect(errors).toEqual([expect.objectContaining({ message: 'storage: write failed' })])
  const entries = await memory
    .collection<StatusEntryRecord>('status_entries')
    .find({ field: 'listId', op: 'eq', value: first.statusListCredential.split('/').pop()! })
  const byIndex = Object.fromEntries(entries.items.map((e) => [e.index, e.value]))
  expect(byIndex).toEqual({ [first.statusListIndex]: false, [second.statusListIndex]: true })
  const log = await memory.collection('status_changes').find({ field: 'index', op: 'eq', value: Number(second.statusListIndex) })
  expect(log.items).toHaveLength(1)
  expect((await memory.collection('status_changes').find({ field: 'index', op: 'eq', value: poisoned })).items).toHaveLength(0)
})

/**
 * A 500 through HTTP with the service's default `onError`: the response names the operation
 * only, and the log line on stderr says why — the cause's message and the stack — without the
 * secrets the failure carried (the master key, an rpcUrl's provider key, a URL password).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createMemoryStorage, randomMasterKey } from '../../src/index.js'
import type { Collection, StorageAdapter } from '../../src/storage/port.js'
import { expectError, startHarness, type Harness } from '../helpers/harness.js'

const masterKey = randomMasterKey()
const PROVIDER_KEY = 'SECRET-PROVIDER-KEY-456'
const RPC_URL = `http://127.0.0.1:9/v3/${PROVIDER_KEY}`
const CAUSE = 'the disk under /var/lib/didvault is full'
const logged: string[] = []
let h: Harness

/** The failure a broken database could give: a driver error whose cause carries the real reason and secrets. */
function storageFailure(): Error {
  const secrets = `master key ${Buffer.from(masterKey).toString('hex')}, ${RPC_URL}, mongodb://admin:hunter2secret@db:27017`
  return new Error('find failed', { cause: new Error(`${CAUSE} (${secrets})`) })
}

/** `inner`, except that every `find` on `collection` rejects with {@link storageFailure}. */
function failingFinds(inner: StorageAdapter, collection: string): StorageAdapter {
  const wrap = <T extends Collection>(c: T): T =>
    new Proxy(c, {
      get(target, property) {
        if (property === 'find') return () => Promise.reject(storageFailure())
        const value: unknown = Reflect.get(target, property, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  return {
    name: inner.name,
    capabilities: inner.capabilities,
    init: (specs) => inner.init(specs),
    collection: (name) => (name === collection ? wrap(inner.collection(name)) : inner.collection(name)),
    transaction: (fn) => inner.transaction(fn),
    insertAll: (writes) => inner.insertAll(writes),
    explain: (name, where, options) => inner.explain(name, where, options),
    close: () => inner.close(),
  }
}

beforeAll(async () => {
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')))
  const chain = { name: 'chain', chainId: 1, rpcUrl: RPC_URL, registry: '0xdca7ef03e98e0dc2b855be647c39abe984fcf21b' }
  const networks = [{ name: 'dev', chainId: 1337 }, chain]
  h = await startHarness({ service: { masterKey, networks, storage: failingFinds(createMemoryStorage(), 'vaults') } })
})
afterAll(async () => {
  vi.restoreAllMocks()
  await h.close()
})

describe('the default error log of a 500', () => {
  it('the response names the operation; the log carries the cause’s message and the stack, and no secret', async () => {
    const res = await h.request('GET', '/vaults')
    expectError(res, 500, 'INTERNAL_ERROR')
    expect(res.body.errorMessage).toBe('Get Identity Vaults failed')
    expect(JSON.stringify(res.body)).not.toContain(CAUSE)

    // The log names the operation as the table does, with the request's id (the router made one).
    const line = logged.find((l) => /^didvault: getVaults failed \[request [0-9a-f-]{36}\]: /.test(l))
    expect(line, logged.join('\n---\n')).toBeDefined()
    expect(line).toContain('Error: find failed')
    expect(line).toContain(`caused by: Error: ${CAUSE}`)
    expect(line).toMatch(/\n\s+at .*error-log\.test\.ts/)
    for (const secret of [Buffer.from(masterKey).toString('hex'), PROVIDER_KEY, 'hunter2secret']) expect(line).not.toContain(secret)
    expect(line).toContain('http://127.0.0.1:9')
  })
})

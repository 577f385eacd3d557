/**
 * The embedded registry's write path under failures a real database produces: a collision with a
 * concurrent writer (retried from the new head) and a commit whose acknowledgement was lost
 * (applied once, never twice).
 */
import { describe, expect, it } from 'vitest'
import { createMemoryStorage } from '../../src/index.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { UniqueConstraintError, type StorageAdapter } from '../../src/storage/port.js'
import { EmbeddedRegistry } from '../../src/did/methods/ethr/registry/embedded.js'
import { LocalSigner, generatePrivateKey } from '../../src/keys/secp256k1.js'
import { DEV_NETWORK } from '../../src/did/methods/ethr/ethr.js'

/** A storage whose next transactions fail as scripted, after (or before) running. */
function flaky(inner: StorageAdapter, script: Array<'collide' | 'lose-ack'>): StorageAdapter {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop !== 'transaction') return Reflect.get(target, prop, receiver)
      return async <R>(fn: (tx: StorageAdapter) => Promise<R>): Promise<R> => {
        const next = script.shift()
        if (next === 'collide') throw new UniqueConstraintError('didEvents', ['network', 'identity', 'seq'])
        const result = await target.transaction(fn)
        if (next === 'lose-ack') throw new Error('connection reset after commit')
        return result
      }
    },
  })
}

async function setup(script: Array<'collide' | 'lose-ack'>) {
  const storage = createMemoryStorage()
  await storage.init(COLLECTIONS)
  const owner = new LocalSigner(generatePrivateKey())
  const registry = new EmbeddedRegistry(flaky(storage, script), DEV_NETWORK)
  const did = `did:ethr:dev:${owner.address}`
  return { registry, owner, did, events: () => storage.collection('didEvents').count({ and: [] }) }
}

const change = {
  op: 'setAttribute',
  name: 'did/svc/Hub',
  value: '0x' + Buffer.from('https://hub.example.com').toString('hex'),
  validity: 60,
} as const

describe('embedded registry writes', () => {
  it('a collision is retried from the new head', async () => {
    const { registry, owner, events } = await setup(['collide', 'collide'])
    expect((await registry.apply(owner.address, change, owner)).versionId).toBe('1')
    expect(await events()).toBe(1)
  })

  it('a commit whose acknowledgement was lost is applied once, not twice', async () => {
    const { registry, owner, did, events } = await setup(['lose-ack'])
    expect((await registry.apply(owner.address, change, owner)).versionId).toBe('1')
    expect(await events()).toBe(1)
    const doc = (await registry.resolve(did)).didDocument!
    expect(doc.service).toHaveLength(1)
  })
})

describe('embedded registry limits', () => {
  it('refuses names and delegate types over a bytes32 string, as the contract does', async () => {
    const { registry, owner, events } = await setup([])
    await expect(registry.apply(owner.address, { ...change, name: 'did/svc/' + 'x'.repeat(30) }, owner)).rejects.toThrow(/bytes32/)
    await expect(
      registry.apply(owner.address, { op: 'addDelegate', delegateType: 'v'.repeat(32), delegate: owner.address, validity: 60 }, owner),
    ).rejects.toThrow(/bytes32/)
    expect(await events()).toBe(0)
  })
})

/**
 * did:web (the service's own documents, and foreign DIDs with no origin allowed) runs the DID-method conformance suite
 * of `didvault/testing`, over real storage (memory and a SQLite file). `create` is followed by what a wallet's creation
 * does — the wallet stored — through the wallets' port, here a map.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { p256 } from '@noble/curves/nist.js'
import { describe, expect, it } from 'vitest'
import {
  DidWebResolver,
  didWebMethod,
  MAX_DID_WEB_VERSIONS,
  OwnDidWebDocuments,
  type OwnDidWebWallet,
} from '../../../src/did/methods/index.js'
import { keyTypeOfJwk, type PublicJwk } from '../../../src/keys/key-types.js'
import { createMemoryStorage } from '../../../src/storage/memory/index.js'
import { createSqliteStorage } from '../../../src/storage/sqlite/index.js'
import { COLLECTIONS } from '../../../src/service/collections.js'
import { runDidMethodConformance } from '../../../src/testing/index.js'

const PUBLIC_URL = 'https://didvault.example:8443/identity'

for (const kind of ['memory', 'sqlite'] as const) {
  runDidMethodConformance(`did:web (${kind})`, async () => {
    const dir = kind === 'sqlite' ? mkdtempSync(join(tmpdir(), 'didvault-didweb-conf-')) : undefined
    const storage = dir === undefined ? createMemoryStorage() : createSqliteStorage({ path: join(dir, 'didweb.db') })
    await storage.init(COLLECTIONS)
    const wallets = new Map<string, OwnDidWebWallet>()
    const now = Date.now
    const own = new OwnDidWebDocuments({ storage, publicUrl: PUBLIC_URL, now, wallets: { walletOfDid: async (did) => wallets.get(did) } })
    const foreign = new DidWebResolver({ publicUrl: PUBLIC_URL, own })
    const keyManager = { stageKey: () => Promise.reject(new Error('no key is generated in the conformance suite')) }
    const method = didWebMethod({ publicUrl: PUBLIC_URL, own, foreign, storage, keyManager, now })
    let walletId = ''
    return {
      method: {
        ...method,
        async create(input) {
          const created = await method.create(input)
          const keyType = keyTypeOfJwk(input.publicJwk)!
          wallets.set(created.did, {
            id: walletId,
            tenantId: 't',
            did: created.did,
            keyType,
            publicKeyJwk: input.publicJwk,
            createdAt: now(),
          })
          return created
        },
      },
      createInput: () => ({ walletId: (walletId = randomUUID()) }),
      cleanup: async () => {
        await storage.close()
        if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
      },
    }
  })
}

describe('did:web update through the port', () => {
  it('applies txsInput to a DID the service holds (each a version), refuses foreign DIDs and bad elements (422, nothing written)', async () => {
    const storage = createMemoryStorage()
    await storage.init(COLLECTIONS)
    const now = Date.now
    const wallets = new Map<string, OwnDidWebWallet>()
    const own = new OwnDidWebDocuments({ storage, publicUrl: PUBLIC_URL, now, wallets: { walletOfDid: async (did) => wallets.get(did) } })
    const keyManager = { stageKey: () => Promise.reject(new Error('no key is generated here')) }
    const method = didWebMethod({
      publicUrl: PUBLIC_URL,
      own,
      foreign: new DidWebResolver({ publicUrl: PUBLIC_URL, own }),
      storage,
      keyManager,
      now,
    })
    const point = p256.getPublicKey(p256.utils.randomSecretKey(), false)
    const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')
    const publicJwk: PublicJwk = { kty: 'EC', crv: 'P-256', x: b64(point.subarray(1, 33)), y: b64(point.subarray(33)) }
    const walletId = randomUUID()
    const { did } = await method.create({ publicJwk, walletId })
    wallets.set(did, { id: walletId, tenantId: 't', did, keyType: 'P-256', publicKeyJwk: publicJwk, createdAt: now() })

    const service = { service: { name: 'Hub', value: 'https://hub.example/', validity: 60_000 } }
    const document = await method.update({ did, txsInput: [service, { newOwner: 'did:example:owner' }] })
    expect(document).toMatchObject({ controller: 'did:example:owner', service: [{ id: `${did}#service-1`, type: 'Hub' }] })
    expect(document.verificationMethod).toBeUndefined()
    expect((await method.resolve(`${did}?versionId=1`)).didDocument?.authentication).toEqual([`${did}#key-0`])
    expect(await method.controllingKeys(did)).toEqual([])

    const foreign = 'did:web:elsewhere.example:dids:x'
    await expect(method.update({ did: foreign, txsInput: [service] })).rejects.toMatchObject({ statusCode: 422 })
    const bad = { delegate: { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', validity: 1 } }
    await expect(method.update({ did, txsInput: [service, bad] })).rejects.toMatchObject({ statusCode: 422 })
    expect((await method.resolve(did)).didDocumentMetadata.versionId).toBe('2')

    // A document keeps at most MAX_DID_WEB_VERSIONS versions: reads of its history stay bounded.
    const fill = Array.from({ length: MAX_DID_WEB_VERSIONS - 2 }, () => service)
    await method.update({ did, txsInput: fill })
    await expect(method.update({ did, txsInput: [service] })).rejects.toMatchObject({ statusCode: 422 })
    const full = await method.resolve(did)
    expect([full.didDocumentMetadata.versionId, full.didDocument?.service?.length]).toEqual([String(MAX_DID_WEB_VERSIONS), 999])
    await storage.close()
  })
})

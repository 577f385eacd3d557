/**
 * did:web (the service's own documents, and foreign DIDs with no origin allowed) runs the DID-method conformance suite
 * of `didvault/testing`, over real storage (memory and a SQLite file). `create` is followed by what a wallet's creation
 * does — the wallet stored — through the wallets' port, here a map.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { DidWebResolver, didWebMethod, OwnDidWebDocuments, type OwnDidWebWallet } from '../../../src/did/methods/index.js'
import { keyTypeOfJwk } from '../../../src/keys/key-types.js'
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

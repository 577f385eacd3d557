/** did:key, did:jwk and did:ethr (over the embedded registry) run the DID-method conformance suite of `didvault/testing` (src/testing/did-method-conformance.ts). */
import { didMethodNamed } from '../../../src/did/methods/index.js'
import { DEV_NETWORK, didEthrMethod, Registries } from '../../../src/did/methods/ethr/index.js'
import { createMemoryStorage } from '../../../src/index.js'
import { COLLECTIONS } from '../../../src/service/collections.js'
import { runDidMethodConformance } from '../../../src/testing/index.js'

for (const name of ['key', 'jwk']) runDidMethodConformance(`did:${name}`, async () => ({ method: didMethodNamed(name)! }))

runDidMethodConformance('did:ethr (embedded registry)', async () => {
  const storage = createMemoryStorage()
  await storage.init(COLLECTIONS)
  return { method: didEthrMethod(Registries.forNetworks([DEV_NETWORK], storage, Date.now), DEV_NETWORK), immutable: false }
})

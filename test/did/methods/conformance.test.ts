/** did:key and did:jwk run the DID-method conformance suite of `didvault/testing` (src/testing/did-method-conformance.ts). */
import { didMethodNamed } from '../../../src/did/methods/index.js'
import { runDidMethodConformance } from '../../../src/testing/index.js'

for (const name of ['key', 'jwk']) runDidMethodConformance(`did:${name}`, async () => ({ method: didMethodNamed(name)! }))

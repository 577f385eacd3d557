/**
 * The W3C VC Data Model 2.0 test suite's input credentials (test/fixtures/vcdm2-test-suite/) issued by
 * @digitalbazaar/vc 7.3 (`issue`: its data model checks, then an eddsa-rdfc-2022 Data Integrity proof over safe-mode
 * JSON-LD canonicalization) with a W3C vector key and the test document loader: proves each input's expectation right,
 * except the declared library gaps.
 *
 * The packages are ESM-only: they are loaded with `import()` of a specifier held in a variable.
 */
import { beforeAll, describe } from 'vitest'
import { loadW3cProofVectors, privateJwkOf, vcdm2InputSuite, w3cDiDocumentLoader, type Vcdm2Issuer } from '../helpers/w3c-di-vectors.js'

const importEsm = (specifier: string): Promise<any> => import(specifier)

const documentLoader = w3cDiDocumentLoader()
const { keyPair } = loadW3cProofVectors().find(({ cryptosuite }) => cryptosuite === 'eddsa-rdfc-2022')!

let issue: Vcdm2Issuer

beforeAll(async () => {
  const [{ DataIntegrityProof }, vc, Ed25519Multikey, { cryptosuite }] = await Promise.all(
    [
      '@digitalbazaar/data-integrity',
      '@digitalbazaar/vc',
      '@digitalbazaar/ed25519-multikey',
      '@digitalbazaar/eddsa-rdfc-2022-cryptosuite',
    ].map(importEsm),
  )
  const { verificationMethod: id, controller } = keyPair
  const key = await Ed25519Multikey.fromJwk({ jwk: privateJwkOf(keyPair), secretKey: true, id, controller })
  issue = async (credential) => {
    const suite = new DataIntegrityProof({ cryptosuite, signer: key.signer() })
    return vc.issue({ credential, suite, documentLoader })
  }
})

describe('W3C VC Data Model 2.0 test-suite inputs, @digitalbazaar/vc issue', () => {
  vcdm2InputSuite((credential) => issue(credential), keyPair.controller, { skipLibraryGaps: true })
})

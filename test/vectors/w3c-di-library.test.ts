/**
 * The W3C Data Integrity vectors (test/fixtures/w3c-di/) proved with digitalbazaar's own libraries:
 * @digitalbazaar/vc's `verifyCredential`, `issue` and `derive` over @digitalbazaar/data-integrity's DataIntegrityProof
 * with the eddsa-rdfc-2022, eddsa-jcs-2022, ecdsa-rdfc-2019, ecdsa-jcs-2019 and ecdsa-sd-2023 cryptosuites, the keys
 * as @digitalbazaar/ed25519-multikey and ecdsa-multikey, and a document loader that serves only bundled contexts, the
 * fixtures' two and the vectors' did:key documents. Proves each fixture's keys, proof options and outputs right.
 *
 * The packages are ESM-only: they are loaded with `import()` of a specifier held in a variable (no ambient module
 * declarations needed; their few calls are typed below).
 */
import { type JsonWebKey } from 'node:crypto'
import { beforeAll, describe } from 'vitest'
import {
  privateJwkOf,
  w3cDiDocumentLoader,
  w3cDiSignerSuite,
  w3cDiVerifierSuite,
  w3cSdSuite,
  type W3cDeriver,
  type W3cSigner,
  type W3cVerifier,
} from '../helpers/w3c-di-vectors.js'

type Loader = ReturnType<typeof w3cDiDocumentLoader>
type Cryptosuite = object
type Suite = object
interface KeyPair {
  signer(): object
}

interface Multikeys {
  fromJwk(options: {
    jwk: JsonWebKey
    secretKey: boolean
    id: string
    controller: string
  }): Promise<KeyPair & { publicKeyMultibase: string }>
}

interface Libraries {
  DataIntegrityProof: new (options: { cryptosuite: Cryptosuite; signer?: object; date?: string }) => Suite
  vc: {
    CredentialIssuancePurpose: new () => object
    issue(options: { credential: object; suite: Suite; documentLoader: Loader }): Promise<any>
    derive(options: { verifiableCredential: object; suite: Suite; documentLoader: Loader }): Promise<any>
    verifyCredential(options: {
      credential: object
      suite: Suite[]
      documentLoader: Loader
      purpose: object
      now: string
    }): Promise<{ verified: boolean; error?: unknown }>
  }
  Ed25519Multikey: Multikeys
  EcdsaMultikey: Multikeys
  eddsaRdfc: Cryptosuite
  eddsaJcs: { createSignCryptosuite(): Cryptosuite; createVerifyCryptosuite(): Cryptosuite }
  ecdsaRdfc: Cryptosuite
  ecdsaJcs: { createSignCryptosuite(): Cryptosuite; createVerifyCryptosuite(): Cryptosuite }
  ecdsaSd: { createVerifyCryptosuite(): Cryptosuite; createDiscloseCryptosuite(options: { selectivePointers: string[] }): Cryptosuite }
}

const importEsm = (specifier: string): Promise<any> => import(specifier)

let lib: Libraries
const documentLoader = w3cDiDocumentLoader()

beforeAll(async () => {
  const [dataIntegrity, vc, ed25519Multikey, ecdsaMultikey, eddsaRdfc, eddsaJcs, ecdsaRdfc, ecdsaJcs, ecdsaSd] = await Promise.all(
    [
      '@digitalbazaar/data-integrity',
      '@digitalbazaar/vc',
      '@digitalbazaar/ed25519-multikey',
      '@digitalbazaar/ecdsa-multikey',
      '@digitalbazaar/eddsa-rdfc-2022-cryptosuite',
      '@digitalbazaar/eddsa-jcs-2022-cryptosuite',
      '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite',
      '@digitalbazaar/ecdsa-jcs-2019-cryptosuite',
      '@digitalbazaar/ecdsa-sd-2023-cryptosuite',
    ].map(importEsm),
  )
  lib = {
    DataIntegrityProof: dataIntegrity.DataIntegrityProof,
    vc,
    Ed25519Multikey: ed25519Multikey,
    EcdsaMultikey: ecdsaMultikey,
    eddsaRdfc: eddsaRdfc.cryptosuite,
    eddsaJcs,
    ecdsaRdfc: ecdsaRdfc.cryptosuite,
    ecdsaJcs,
    ecdsaSd,
  }
})

/**
 * The proof purpose: jsonld-signatures' AssertionProofPurpose (the key is under `assertionMethod` of its controller's
 * document), taken as the parent class of vc's CredentialIssuancePurpose, which also requires the issuer to be the
 * key's controller — none of the vectors' issuers is.
 */
function assertionPurpose(): object {
  const AssertionProofPurpose = Object.getPrototypeOf(lib.vc.CredentialIssuancePurpose) as new () => object
  return new AssertionProofPurpose()
}

/** @digitalbazaar/vc's verifyCredential with every verifying suite: the one matching the proof's cryptosuite runs. */
const libraryVerifier: W3cVerifier = async (credential, { verifyAt }) => {
  const suite = [
    lib.eddsaRdfc,
    lib.eddsaJcs.createVerifyCryptosuite(),
    lib.ecdsaRdfc,
    lib.ecdsaJcs.createVerifyCryptosuite(),
    lib.ecdsaSd.createVerifyCryptosuite(),
  ].map((cryptosuite) => new lib.DataIntegrityProof({ cryptosuite }))
  const result = await lib.vc.verifyCredential({ credential, suite, documentLoader, purpose: assertionPurpose(), now: verifyAt })
  return result.verified
}

/**
 * @digitalbazaar/vc's issue with the vector's key — imported from its private JWK ({@link privateJwkOf}), so the
 * conversion is proved too — and proof options.
 */
const librarySigner: W3cSigner = async (credential, { keyPair, proofOptions: { cryptosuite, created } }) => {
  const { verificationMethod: id, controller } = keyPair
  const multikeys = keyPair.curve === 'Ed25519' ? lib.Ed25519Multikey : lib.EcdsaMultikey
  const key = await multikeys.fromJwk({ jwk: privateJwkOf(keyPair), secretKey: true, id, controller })
  if (key.publicKeyMultibase !== keyPair.publicKeyMultibase) throw new Error(`JWK of ${id} gives ${key.publicKeyMultibase}`)
  const signing = {
    'eddsa-rdfc-2022': () => lib.eddsaRdfc,
    'eddsa-jcs-2022': () => lib.eddsaJcs.createSignCryptosuite(),
    'ecdsa-rdfc-2019': () => lib.ecdsaRdfc,
    'ecdsa-jcs-2019': () => lib.ecdsaJcs.createSignCryptosuite(),
  }[cryptosuite as Exclude<typeof cryptosuite, 'ecdsa-sd-2023'>]
  const suite = new lib.DataIntegrityProof({ cryptosuite: signing(), signer: key.signer(), date: created })
  return lib.vc.issue({ credential, suite, documentLoader })
}

/** @digitalbazaar/vc's derive with ecdsa-sd-2023's disclose cryptosuite. */
const libraryDeriver: W3cDeriver = async (verifiableCredential, { selectivePointers }) => {
  const suite = new lib.DataIntegrityProof({ cryptosuite: lib.ecdsaSd.createDiscloseCryptosuite({ selectivePointers }) })
  return lib.vc.derive({ verifiableCredential, suite, documentLoader })
}

describe('W3C Data Integrity vectors, @digitalbazaar/vc verifyCredential', () => {
  w3cDiVerifierSuite(libraryVerifier)
})

describe('W3C Data Integrity vectors, @digitalbazaar/vc issue with the vector key (as JWK) and created', () => {
  w3cDiSignerSuite(librarySigner, libraryVerifier)
})

describe('W3C ecdsa-sd-2023 vectors, @digitalbazaar/vc derive and verifyCredential', () => {
  w3cSdSuite(libraryVerifier, libraryDeriver)
})

/**
 * The W3C Data Integrity vectors (test/fixtures/w3c-di/) proved with digitalbazaar's own libraries:
 * @digitalbazaar/vc's `verifyCredential`, `issue` and `derive` over @digitalbazaar/data-integrity's DataIntegrityProof
 * with the eddsa-rdfc-2022, eddsa-jcs-2022, ecdsa-rdfc-2019, ecdsa-jcs-2019 and ecdsa-sd-2023 cryptosuites, the keys
 * as @digitalbazaar/ed25519-multikey and ecdsa-multikey, and a document loader that serves only bundled contexts, the
 * fixtures' two and the vectors' did:key documents. Proves each fixture's keys, proof options and outputs right.
 *
 * The packages (ESM-only) are loaded by `loadDigitalbazaarLibraries` (test/helpers/w3c-di-vectors.ts), as
 * test/proofs/data-integrity/vc-interop.test.ts loads them.
 */
import { beforeAll, describe } from 'vitest'
import {
  loadDigitalbazaarLibraries,
  privateJwkOf,
  w3cDiDocumentLoader,
  w3cDiSignerSuite,
  w3cDiVerifierSuite,
  w3cSdSuite,
  type DigitalbazaarLibraries,
  type W3cDeriver,
  type W3cSigner,
  type W3cVerifier,
} from '../helpers/w3c-di-vectors.js'

let lib: DigitalbazaarLibraries
const documentLoader = w3cDiDocumentLoader()

beforeAll(async () => {
  lib = await loadDigitalbazaarLibraries()
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

const CRYPTOSUITES = ['eddsa-rdfc-2022', 'eddsa-jcs-2022', 'ecdsa-rdfc-2019', 'ecdsa-jcs-2019', 'ecdsa-sd-2023'] as const

/** @digitalbazaar/vc's verifyCredential with every verifying suite: the one matching the proof's cryptosuite runs. */
const libraryVerifier: W3cVerifier = async (credential, { verifyAt }) => {
  const suite = CRYPTOSUITES.map((name) => new lib.DataIntegrityProof({ cryptosuite: lib.verifying(name) }))
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
  const suite = new lib.DataIntegrityProof({ cryptosuite: lib.signing(cryptosuite), signer: key.signer(), date: created })
  return lib.vc.issue({ credential, suite, documentLoader })
}

/** @digitalbazaar/vc's derive with ecdsa-sd-2023's disclose cryptosuite. */
const libraryDeriver: W3cDeriver = async (verifiableCredential, { selectivePointers }) => {
  const suite = new lib.DataIntegrityProof({ cryptosuite: lib.disclose(selectivePointers) })
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

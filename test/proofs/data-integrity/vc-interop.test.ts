/**
 * Interop both ways with @digitalbazaar/vc 7.3 and the same cryptosuite packages: credentials it issues (its own
 * Multikey keys, did:key issuers) verify with didvault's suites, and credentials didvault signs through the key port
 * (did:key issuers) pass its `verifyCredential` (with its CredentialIssuancePurpose: the issuer controls the key);
 * for ecdsa-sd-2023, its base proofs derive and verify with ours, and our base proofs derive with its `derive` and
 * verify with ours and its verifier. Its document loader serves only didvault's bundled contexts and the DID
 * documents didvault's method registry resolves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DATA_INTEGRITY_SUITES,
  ecdsaSd2023,
  type DataIntegritySuite,
  type JsonLdDocument,
} from '../../../src/proofs/data-integrity/index.js'
import { documentLoader as contexts } from '../../../src/proofs/jsonld/document-loader.js'
import {
  loadDigitalbazaarLibraries,
  type DigitalbazaarLibraries,
  type LibraryDocumentLoader,
  type LibraryKeyPair,
  type W3cCryptosuite,
} from '../../helpers/w3c-di-vectors.js'
import { openSealedKeys, portIdentity, resolver } from './helpers.js'

/** A did:key key pair of the library, of `keyType`: its verification method id and controller set to the did:key's. */
async function generate(keyType: 'P-256' | 'Ed25519'): Promise<LibraryKeyPair> {
  const key = await (keyType === 'P-256' ? lib.EcdsaMultikey.generate({ curve: 'P-256' }) : lib.Ed25519Multikey.generate())
  const did = `did:key:${key.publicKeyMultibase}`
  return Object.assign(key, { id: `${did}#${key.publicKeyMultibase}`, controller: did })
}

let lib: DigitalbazaarLibraries
let port: Awaited<ReturnType<typeof openSealedKeys>>

beforeAll(async () => {
  lib = await loadDigitalbazaarLibraries()
  port = await openSealedKeys()
})
afterAll(() => port.close())

/** Bundled contexts, then DID documents (and their methods, by DID URL) from didvault's resolver. */
const libraryLoader: LibraryDocumentLoader = async (url) => {
  if (!url.startsWith('did:')) return contexts(url)
  const { didDocument } = await resolver.resolve(url.split('#')[0])
  if (!didDocument) throw new Error(`no DID document for ${url}`)
  const document = url.includes('#')
    ? { '@context': didDocument['@context'], ...didDocument.verificationMethod!.find((m) => m.id === url) }
    : didDocument
  return { contextUrl: null, documentUrl: url, document }
}

function credential(issuer: string): JsonLdDocument {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential'],
    issuer,
    validFrom: '2026-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:holder', name: 'Alice', description: 'BSc, 2026' },
  }
}

const proofOf = (document: JsonLdDocument) => document.proof as Record<string, unknown>
const libraryVerifies = async (credential: JsonLdDocument, cryptosuite: W3cCryptosuite) => {
  const suite = [new lib.DataIntegrityProof({ cryptosuite: lib.verifying(cryptosuite) })]
  const result = await lib.vc.verifyCredential({ credential, suite, documentLoader: libraryLoader })
  return result.verified
}

const WHOLE: Array<[DataIntegritySuite, 'P-256' | 'Ed25519']> = [
  [DATA_INTEGRITY_SUITES['ecdsa-rdfc-2019'], 'P-256'],
  [DATA_INTEGRITY_SUITES['eddsa-rdfc-2022'], 'Ed25519'],
  [DATA_INTEGRITY_SUITES['ecdsa-jcs-2019'], 'P-256'],
  [DATA_INTEGRITY_SUITES['eddsa-jcs-2022'], 'Ed25519'],
]

for (const [suite, keyType] of WHOLE) {
  describe(`${suite.cryptosuite} with @digitalbazaar/vc`, () => {
    it('theirs (issue) verifies with ours, bound to the issuer; tampered, it does not', async () => {
      const key = await generate(keyType)
      const cryptosuite = lib.signing(suite.cryptosuite as W3cCryptosuite)
      const issued = await lib.vc.issue({
        credential: credential(key.controller),
        suite: new lib.DataIntegrityProof({ cryptosuite, signer: key.signer() }),
        documentLoader: libraryLoader,
      })
      const options = { resolver, proofPurpose: 'assertionMethod' as const, controller: key.controller }
      expect(await suite.verify(issued, proofOf(issued), options)).toEqual({
        verified: true,
        verificationMethod: key.id,
        controller: key.controller,
      })
      const tampered = { ...issued, validFrom: '2025-01-01T00:00:00Z' }
      expect(await suite.verify(tampered, proofOf(tampered), options)).toMatchObject({ verified: false, check: 'signature' })
    })

    it('ours (through the key port) verifies with theirs; tampered, it does not', async () => {
      const { signer, did, verificationMethod } = await portIdentity(port.keys, keyType)
      const signed = await suite.sign(credential(did), signer, { verificationMethod })
      expect(await libraryVerifies(signed, suite.cryptosuite as W3cCryptosuite)).toBe(true)
      expect(await libraryVerifies({ ...signed, validFrom: '2025-01-01T00:00:00Z' }, suite.cryptosuite as W3cCryptosuite)).toBe(false)
    })
  })
}

describe('ecdsa-sd-2023 with @digitalbazaar/vc', () => {
  const mandatoryPointers = ['/issuer', '/validFrom']
  it('their base proof: derived and verified by ours, and by theirs', async () => {
    const key = await generate('P-256')
    const base = await lib.vc.issue({
      credential: credential(key.controller),
      suite: new lib.DataIntegrityProof({ cryptosuite: lib.signing('ecdsa-sd-2023', mandatoryPointers), signer: key.signer() }),
      documentLoader: libraryLoader,
    })
    const derived = await ecdsaSd2023.derive(base, ['/credentialSubject/name'])
    expect(derived.credentialSubject).toEqual({ id: 'did:example:holder', name: 'Alice' })
    const options = { resolver, proofPurpose: 'assertionMethod' as const, controller: key.controller }
    expect(await ecdsaSd2023.verify(derived, proofOf(derived), options)).toMatchObject({ verified: true })
    expect(await libraryVerifies(derived, 'ecdsa-sd-2023')).toBe(true)
  })

  it('our base proof (through the key port): derived by theirs, verified by ours and theirs', async () => {
    const { signer, did, verificationMethod } = await portIdentity(port.keys, 'P-256')
    const base = await ecdsaSd2023.sign(credential(did), signer, { verificationMethod, mandatoryPointers })
    const derived = await lib.vc.derive({
      verifiableCredential: base,
      suite: new lib.DataIntegrityProof({ cryptosuite: lib.disclose(['/credentialSubject/description']) }),
      documentLoader: libraryLoader,
    })
    expect(derived.credentialSubject).toEqual({ id: 'did:example:holder', description: 'BSc, 2026' })
    const options = { resolver, proofPurpose: 'assertionMethod' as const, controller: did }
    expect(await ecdsaSd2023.verify(derived, proofOf(derived), options)).toMatchObject({ verified: true })
    expect(await libraryVerifies(derived, 'ecdsa-sd-2023')).toBe(true)
    const revealed = { ...derived, credentialSubject: { ...(derived.credentialSubject as object), name: 'Alice' } }
    expect(await ecdsaSd2023.verify(revealed, proofOf(revealed), options)).toMatchObject({ verified: false, check: 'signature' })
  })
})

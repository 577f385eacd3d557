/**
 * bbs-2023 (src/proofs/data-integrity/, `bbs2023`): the W3C vc-di-bbs vectors (test/fixtures/w3c-di/vc-di-bbs/) —
 * derived proofs verify with ours, a changed claim or a base proof does not, their base proofs derive with ours into
 * the vectors' revealed documents; our base proofs (signed through a {@link BbsSigner}) derive and verify with ours and
 * with @digitalbazaar/vc; @digitalbazaar/vc's base proofs derive with ours; wrong key types and documents are 422.
 */
import { readFileSync } from 'node:fs'
import { base58, hex } from '@scure/base'
import type { DIDDocument } from 'did-resolver'
import { beforeAll, describe, expect, it } from 'vitest'
import type { BbsSigner } from '../../../src/keys/signer.js'
import { bbs2023, ecdsaRdfc2019, type JsonLdDocument } from '../../../src/proofs/data-integrity/index.js'
import { registerContext } from '../../../src/proofs/jsonld/contexts.js'
import { documentLoader as contexts } from '../../../src/proofs/jsonld/document-loader.js'
import { W3C_DI_CONTEXTS } from '../../helpers/w3c-di-vectors.js'
import { fixedResolver, openSealedKeys, portIdentity } from './helpers.js'

for (const [url, context] of W3C_DI_CONTEXTS) registerContext(url, context)

const vector = (path: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/w3c-di/vc-di-bbs/TestVectors/${path}`, import.meta.url), 'utf8')) as JsonLdDocument

interface BlsKey {
  publicKey: Uint8Array
  secretKey: Uint8Array
}

/** The did:key DID, its verification method and document of a BLS12-381 G2 public key (Multikey, multicodec 0xeb). */
function didKeyOf(publicKey: Uint8Array) {
  const multibase = `z${base58.encode(Uint8Array.from([0xeb, 0x01, ...publicKey]))}`
  const did = `did:key:${multibase}`
  const verificationMethod = `${did}#${multibase}`
  const document = {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    verificationMethod: [{ id: verificationMethod, type: 'Multikey', controller: did, publicKeyMultibase: multibase }],
    assertionMethod: [verificationMethod],
    authentication: [verificationMethod],
  } as unknown as DIDDocument
  return { did, verificationMethod, document }
}

const importEsm = (specifier: string): Promise<any> => import(specifier)
let multikey: any
let bbsCryptosuite: any
let dataIntegrity: any
let vc: any

/** A BBS signer over a key pair held in this test (the key port's BBS signing is a separate step). */
async function bbsSignerOf(key: BlsKey): Promise<BbsSigner> {
  const pair = await multikey.fromRaw({ algorithm: 'BBS-BLS12-381-SHA-256', secretKey: key.secretKey, publicKey: key.publicKey })
  const library = pair.signer()
  return {
    keyType: 'Bls12381G2',
    publicKey: key.publicKey,
    multisign: (header, messages) => library.multisign({ header, messages: [...messages] }),
  }
}

const material = vector('BBSKeyMaterial.json') as unknown as { publicKeyHex: string; privateKeyHex: string }
const vectorKey: BlsKey = { publicKey: hex.decode(material.publicKeyHex), secretKey: hex.decode(material.privateKeyHex) }
const vectorDid = didKeyOf(vectorKey.publicKey)

let freshKey: BlsKey
let fresh: ReturnType<typeof didKeyOf>
let resolver: ReturnType<typeof fixedResolver>

beforeAll(async () => {
  ;[multikey, bbsCryptosuite, dataIntegrity, vc] = await Promise.all(
    ['@digitalbazaar/bls12-381-multikey', '@digitalbazaar/bbs-2023-cryptosuite', '@digitalbazaar/data-integrity', '@digitalbazaar/vc'].map(
      importEsm,
    ),
  )
  const pair = await multikey.generateBbsKeyPair({ algorithm: 'BBS-BLS12-381-SHA-256' })
  freshKey = { publicKey: pair.publicKey, secretKey: pair.secretKey }
  fresh = didKeyOf(freshKey.publicKey)
  resolver = fixedResolver([vectorDid.document, fresh.document])
})

const assertion = () => ({ resolver, proofPurpose: 'assertionMethod' as const })
const proofOf = (document: JsonLdDocument) => document.proof as Record<string, unknown>
const withoutProof = ({ proof: _proof, ...rest }: JsonLdDocument) => rest

/** @digitalbazaar's document loader: didvault's bundled contexts, the vectors' contexts and the two did:key documents. */
const loader = async (url: string) => {
  const did = [vectorDid, fresh].find((d) => url.split('#')[0] === d.did)
  if (did) {
    const method = url.includes('#') ? (did.document.verificationMethod![0] as object) : did.document
    return { contextUrl: null, documentUrl: url, document: { '@context': 'https://w3id.org/security/multikey/v1', ...method } }
  }
  return contexts(url)
}

describe('W3C vc-di-bbs vectors (baseline), verified and derived by didvault', () => {
  for (const dir of ['', 'prc/']) {
    it(`${dir || 'wind '}derived document verifies; a changed claim or the base proof does not`, async () => {
      const derived = vector(`${dir}derivedRevealDocument.json`)
      expect(await bbs2023.verify(derived, proofOf(derived), assertion())).toEqual({
        verified: true,
        verificationMethod: vectorDid.verificationMethod,
        controller: vectorDid.did,
      })
      const changed = structuredClone(derived) as { credentialSubject: Record<string, unknown> } & JsonLdDocument
      changed.credentialSubject = { ...changed.credentialSubject, extra: 'claim' }
      expect(await bbs2023.verify(changed, proofOf(changed), assertion())).toMatchObject({ verified: false, check: 'signature' })
      const base = vector(`${dir}addSignedSDBase.json`)
      expect(await bbs2023.verify(base, proofOf(base), assertion())).toMatchObject({ verified: false, check: 'signature' })
    })
  }

  it('their base proofs derive with ours into the vectors’ revealed documents, which verify', async () => {
    for (const [dir, selective] of [
      ['', 'windSelective.json'],
      ['prc/', 'prCredSelective.json'],
    ] as const) {
      const base = vector(`${dir}addSignedSDBase.json`)
      const derived = await bbs2023.derive(base, vector(selective) as unknown as string[])
      expect(withoutProof(derived)).toEqual(withoutProof(vector(`${dir}derivedRevealDocument.json`)))
      expect(await bbs2023.verify(derived, proofOf(derived), assertion())).toMatchObject({ verified: true })
    }
  })
})

const credential = (issuer: string): JsonLdDocument => ({
  '@context': ['https://www.w3.org/ns/credentials/v2', { '@vocab': 'https://example.org/vocab#' }],
  type: ['VerifiableCredential'],
  issuer,
  validFrom: '2026-01-01T00:00:00Z',
  credentialSubject: { id: 'did:example:holder', name: 'Alice', age: 42, country: 'NL' },
})

describe('bbs-2023 signed by didvault', () => {
  it('base proof with mandatory pointers → derive → verified by ours and by @digitalbazaar/vc; the base proof is not', async () => {
    const signer = await bbsSignerOf(freshKey)
    const base = await bbs2023.sign(credential(fresh.did), signer, {
      verificationMethod: fresh.verificationMethod,
      mandatoryPointers: ['/issuer', '/validFrom'],
    })
    expect(proofOf(base)).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'bbs-2023', proofPurpose: 'assertionMethod' })
    expect(await bbs2023.verify(base, proofOf(base), assertion())).toMatchObject({ verified: false, check: 'signature' })
    const derived = await bbs2023.derive(base, ['/credentialSubject/name'])
    expect(derived.credentialSubject).toEqual({ id: 'did:example:holder', name: 'Alice' })
    expect(derived.validFrom).toBe('2026-01-01T00:00:00Z')
    expect(await bbs2023.verify(derived, proofOf(derived), { ...assertion(), controller: fresh.did })).toEqual({
      verified: true,
      verificationMethod: fresh.verificationMethod,
      controller: fresh.did,
    })
    const theirs = await vc.verifyCredential({
      credential: derived,
      suite: new dataIntegrity.DataIntegrityProof({ cryptosuite: bbsCryptosuite.createVerifyCryptosuite() }),
      documentLoader: loader,
    })
    expect(theirs.error).toBeUndefined()
    expect(theirs.verified).toBe(true)
    const dropped = { ...derived, validFrom: '2027-01-01T00:00:00Z' }
    expect(await bbs2023.verify(dropped, proofOf(dropped), assertion())).toMatchObject({ verified: false, check: 'signature' })
  })

  it('@digitalbazaar/vc’s base proof derives with ours and verifies with ours', async () => {
    const pair = await multikey.fromRaw({ algorithm: 'BBS-BLS12-381-SHA-256', ...freshKey })
    const signer = { ...pair.signer(), id: fresh.verificationMethod }
    const suite = new dataIntegrity.DataIntegrityProof({
      signer,
      cryptosuite: bbsCryptosuite.createSignCryptosuite({ mandatoryPointers: ['/issuer'] }),
    })
    const base = await vc.issue({ credential: credential(fresh.did), suite, documentLoader: loader })
    const derived = await bbs2023.derive(base, ['/credentialSubject/age'])
    expect(derived.credentialSubject).toEqual({ id: 'did:example:holder', age: 42 })
    expect(await bbs2023.verify(derived, proofOf(derived), { ...assertion(), controller: fresh.did })).toMatchObject({ verified: true })
  })

  it('refuses with 422: a JOSE key for bbs-2023, a BBS key for ecdsa-rdfc-2019, bad pointers, no base proof', async () => {
    const port = await openSealedKeys()
    try {
      const p256 = await portIdentity(port.keys, 'P-256')
      const options = { verificationMethod: p256.verificationMethod }
      await expect(bbs2023.sign(credential(p256.did), p256.signer as unknown as BbsSigner, options)).rejects.toMatchObject({
        statusCode: 422,
        message: expect.stringContaining('bbs-2023 does not sign with P-256 keys'),
      })
      const signer = await bbsSignerOf(freshKey)
      await expect(ecdsaRdfc2019.sign(credential(fresh.did), signer as never, options)).rejects.toMatchObject({
        statusCode: 422,
        message: expect.stringContaining('ecdsa-rdfc-2019 does not sign with Bls12381G2 keys'),
      })
      const bad = { verificationMethod: fresh.verificationMethod, mandatoryPointers: ['issuer'] }
      await expect(bbs2023.sign(credential(fresh.did), signer, bad)).rejects.toMatchObject({ statusCode: 422 })
      await expect(bbs2023.derive(credential(fresh.did), ['/issuer'])).rejects.toMatchObject({
        statusCode: 422,
        message: expect.stringContaining('exactly one bbs-2023 base proof'),
      })
    } finally {
      await port.close()
    }
  })
})

/**
 * The W3C Data Integrity test vectors of test/fixtures/w3c-di/ (see its SOURCE.md): the `TestVectors/` of the
 * vc-di-eddsa and vc-di-ecdsa Recommendations (eddsa-rdfc-2022, eddsa-jcs-2022, ecdsa-rdfc-2019 and ecdsa-jcs-2019
 * over P-256 and P-384, ecdsa-sd-2023 base and derived proofs), each with its input document, key pair, proof options
 * and expected output. Any verifier (and, for the deterministic EdDSA suites, any signer; for ecdsa-sd-2023, any
 * deriver) runs over them through {@link w3cDiVerifierSuite}, {@link w3cDiSignerSuite} and {@link w3cSdSuite}:
 * digitalbazaar's libraries (test/vectors/w3c-di-library.test.ts) and the service's suites. Also the W3C VC Data
 * Model 2.0 test suite's input credentials ({@link loadVcdm2Inputs}), which any issuer runs over through
 * {@link vcdm2InputSuite} (test/vectors/w3c-di-vcdm2-library.test.ts).
 *
 * No vector's issuer is the controller of the key that signed it (the alumni credential's issuer is
 * `https://vc.example/issuers/5678`, the others name another did:key): a verifier under test checks the proof under
 * the `assertionMethod` purpose of the key's did:key document, not that the issuer made it.
 */
import { ECDH, type JsonWebKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { base58, base64urlnopad } from '@scure/base'
import { expect, it } from 'vitest'
import { getContext } from '../../src/proofs/jsonld/contexts.js'

/** The cryptosuites the vectors cover. */
export type W3cCryptosuite = 'eddsa-rdfc-2022' | 'eddsa-jcs-2022' | 'ecdsa-rdfc-2019' | 'ecdsa-jcs-2019' | 'ecdsa-sd-2023'

/** A JSON-LD document (a credential, with or without `proof`). */
export type JsonLdDocument = Record<string, unknown> & { '@context': unknown }

/** The options a vector's proof was made with (its proof configuration without `@context`). */
export interface W3cProofOptions {
  type: 'DataIntegrityProof'
  cryptosuite: W3cCryptosuite
  created: string
  verificationMethod: string
  proofPurpose: 'assertionMethod'
}

/** A vector's `proof` (a Data Integrity proof as the vectors print it; the JCS suites' also carry `@context`). */
export interface W3cProof extends W3cProofOptions {
  '@context'?: unknown
  proofValue: string
}

/**
 * A vector's key pair, as Multikey: its did:key is `did:key:<publicKeyMultibase>`, and its verification method
 * `<did>#<publicKeyMultibase>` (the vectors' `verificationMethod`).
 */
export interface W3cKeyPair {
  curve: 'Ed25519' | 'P-256' | 'P-384'
  publicKeyMultibase: string
  secretKeyMultibase: string
  /** `did:key:<publicKeyMultibase>`. */
  controller: string
  /** `<controller>#<publicKeyMultibase>`. */
  verificationMethod: string
}

/** One eddsa/ecdsa (non-selective) vector. */
export interface W3cProofVector {
  /** The suite and the input document, e.g. `ecdsa-rdfc-2019 P-384 employment authorization`. */
  name: string
  /** `w3c/<repository>/<path of the signed document>`. */
  source: string
  cryptosuite: Exclude<W3cCryptosuite, 'ecdsa-sd-2023'>
  /** The input document. */
  unsigned: JsonLdDocument
  keyPair: W3cKeyPair
  /**
   * The proof options the vector was signed with (its proof configuration without `@context`): `type`, `cryptosuite`,
   * `created`, `verificationMethod`, `proofPurpose`.
   */
  proofOptions: W3cProofOptions
  /** The vector's signed document, exactly as published. */
  signed: JsonLdDocument & { proof: W3cProof }
  /** An instant within the credential's validity period to verify at (its `validFrom`). */
  verifyAt: string
}

/** One ecdsa-sd-2023 vector: the issuer's base proof and the holder's derived one. */
export interface W3cSdVector {
  name: string
  /** `w3c/<repository>/<folder of the vector's files>`. */
  source: string
  cryptosuite: 'ecdsa-sd-2023'
  unsigned: JsonLdDocument
  /** The issuer's key, which signs the base proof. */
  keyPair: W3cKeyPair
  /** The per-proof ephemeral P-256 key the base proof carries (its public key is in the base `proofValue`). */
  proofKeyPair: W3cKeyPair
  /** The HMAC key (hex) that relabels the blank nodes. */
  hmacKey: string
  /** JSON pointers the issuer makes mandatory (always disclosed). */
  mandatoryPointers: string[]
  /** JSON pointers the holder discloses in `derived`. */
  selectivePointers: string[]
  proofOptions: W3cProofOptions
  /** The issuer's signed document (base proof, `proofValue` starting `u2V0A`). */
  base: JsonLdDocument & { proof: W3cProof }
  /** The holder's derived document (derived proof, `proofValue` starting `u2V0B`): mandatory and selected claims only. */
  derived: JsonLdDocument & { proof: W3cProof }
  /** An instant within the credential's validity period to verify at (its `validFrom`). */
  verifyAt: string
}

/** What a verifier under test is given with each document. */
export interface W3cVerifyOptions {
  verifyAt: string
  /** The signer's public key (also reachable through {@link w3cDiDocumentLoader} as its did:key document). */
  keyPair: Pick<W3cKeyPair, 'curve' | 'publicKeyMultibase' | 'controller' | 'verificationMethod'>
}

/** A verifier under test: `true` when the document's proof verifies; `false` or a rejection when it does not. */
export type W3cVerifier = (document: JsonLdDocument, options: W3cVerifyOptions) => Promise<boolean>

/** A signer under test: signs `unsigned` with the key and exactly these proof options, resolves to the signed document. */
export type W3cSigner = (
  unsigned: JsonLdDocument,
  options: { keyPair: W3cKeyPair; proofOptions: W3cProofOptions },
) => Promise<JsonLdDocument & { proof: Record<string, unknown> }>

/** An ecdsa-sd-2023 deriver under test: from the base document, the derived document disclosing `selectivePointers`. */
export type W3cDeriver = (
  base: JsonLdDocument,
  options: { selectivePointers: string[]; verifyAt: string },
) => Promise<JsonLdDocument & { proof: Record<string, unknown> }>

const FIXTURES = new URL('../fixtures/w3c-di/', import.meta.url)

function fixture(path: string): unknown {
  return JSON.parse(readFileSync(new URL(path, FIXTURES), 'utf8'))
}

/** The curve of a vector's public key, told by the base58btc prefix its multicodec header gives it. */
function curveOf(publicKeyMultibase: string): W3cKeyPair['curve'] {
  if (publicKeyMultibase.startsWith('z6Mk')) return 'Ed25519'
  if (publicKeyMultibase.startsWith('zDna')) return 'P-256'
  if (publicKeyMultibase.startsWith('z82L')) return 'P-384'
  throw new Error(`unexpected multikey ${publicKeyMultibase}`)
}

function keyPairOf(published: { publicKeyMultibase: string; secretKeyMultibase?: string; privateKeyMultibase?: string }): W3cKeyPair {
  const { publicKeyMultibase } = published
  const secretKeyMultibase = published.secretKeyMultibase ?? published.privateKeyMultibase
  if (secretKeyMultibase === undefined) throw new Error(`key pair ${publicKeyMultibase} has no secret key`)
  const controller = `did:key:${publicKeyMultibase}`
  return {
    curve: curveOf(publicKeyMultibase),
    publicKeyMultibase,
    secretKeyMultibase,
    controller,
    verificationMethod: `${controller}#${publicKeyMultibase}`,
  }
}

function proofOptionsOf({ '@context': _context, ...options }: W3cProofOptions & { '@context'?: unknown }): W3cProofOptions {
  return options
}

function validFrom(document: JsonLdDocument): string {
  if (typeof document.validFrom !== 'string') throw new Error('vector without validFrom')
  return document.validFrom
}

interface ProofCase {
  name: string
  repository: string
  cryptosuite: W3cProofVector['cryptosuite']
  unsigned: string
  keyPair: string
  proofConfig: string
  signed: string
}

interface SdCase {
  name: string
  repository: string
  cryptosuite: 'ecdsa-sd-2023'
  unsigned: string
  keyMaterial: string
  mandatoryPointers: string
  selectivePointers: string
  proofConfig: string
  base: string
  derived: string
}

const manifest = fixture('cases.json') as { proofs: ProofCase[]; selectiveDisclosure: SdCase[] }

/** Every eddsa/ecdsa vector of test/fixtures/w3c-di/ (cases.json). */
export function loadW3cProofVectors(): W3cProofVector[] {
  return manifest.proofs.map((entry) => {
    const at = (path: string) => fixture(`${entry.repository}/${path}`)
    const unsigned = at(entry.unsigned) as JsonLdDocument
    return {
      name: entry.name,
      source: `w3c/${entry.repository}/${entry.signed}`,
      cryptosuite: entry.cryptosuite,
      unsigned,
      keyPair: keyPairOf(at(entry.keyPair) as Parameters<typeof keyPairOf>[0]),
      proofOptions: proofOptionsOf(at(entry.proofConfig) as W3cProofOptions),
      signed: at(entry.signed) as W3cProofVector['signed'],
      verifyAt: validFrom(unsigned),
    }
  })
}

/** Every ecdsa-sd-2023 vector of test/fixtures/w3c-di/ (cases.json). */
export function loadW3cSdVectors(): W3cSdVector[] {
  return manifest.selectiveDisclosure.map((entry) => {
    const at = (path: string) => fixture(`${entry.repository}/${path}`)
    const unsigned = at(entry.unsigned) as JsonLdDocument
    const material = at(entry.keyMaterial) as {
      baseKeyPair: Parameters<typeof keyPairOf>[0]
      proofKeyPair: Parameters<typeof keyPairOf>[0]
      hmacKeyString: string
    }
    return {
      name: entry.name,
      source: `w3c/${entry.repository}/${entry.base.slice(0, entry.base.lastIndexOf('/'))}`,
      cryptosuite: entry.cryptosuite,
      unsigned,
      keyPair: keyPairOf(material.baseKeyPair),
      proofKeyPair: keyPairOf(material.proofKeyPair),
      hmacKey: material.hmacKeyString,
      mandatoryPointers: at(entry.mandatoryPointers) as string[],
      selectivePointers: at(entry.selectivePointers) as string[],
      proofOptions: proofOptionsOf(at(entry.proofConfig) as W3cProofOptions),
      base: at(entry.base) as W3cSdVector['base'],
      derived: at(entry.derived) as W3cSdVector['derived'],
      verifyAt: validFrom(unsigned),
    }
  })
}

/**
 * The contexts the vectors use beyond didvault's bundled ones: the VCDM 2.0 examples context and the citizenship
 * vocabulary v4rc1 (test/fixtures/w3c-di/contexts/, see SOURCE.md). A verifier under test registers them.
 */
export const W3C_DI_CONTEXTS: ReadonlyMap<string, Record<string, unknown>> = new Map([
  ['https://www.w3.org/ns/credentials/examples/v2', fixture('contexts/credentials-examples-v2.jsonld') as Record<string, unknown>],
  ['https://w3id.org/citizenship/v4rc1', fixture('contexts/citizenship-v4rc1.jsonld') as Record<string, unknown>],
])

/** The Multikey verification method of a vector key, as its did:key document lists it. */
export function multikeyMethodOf({ controller, verificationMethod, publicKeyMultibase }: W3cKeyPair): Record<string, unknown> {
  return {
    '@context': 'https://w3id.org/security/multikey/v1',
    id: verificationMethod,
    type: 'Multikey',
    controller,
    publicKeyMultibase,
  }
}

/** The did:key document of a vector key: one Multikey method, under `assertionMethod` and `authentication`. */
export function didKeyDocumentOf(keyPair: W3cKeyPair): Record<string, unknown> {
  const { '@context': _context, ...method } = multikeyMethodOf(keyPair)
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: keyPair.controller,
    verificationMethod: [method],
    assertionMethod: [keyPair.verificationMethod],
    authentication: [keyPair.verificationMethod],
  }
}

/** Every key the vectors sign with (the ecdsa-sd-2023 ephemeral proof keys excluded: they are no verification method). */
export function w3cVectorKeys(): W3cKeyPair[] {
  const keys = [...loadW3cProofVectors(), ...loadW3cSdVectors()].map((vector) => vector.keyPair)
  return [...new Map(keys.map((key) => [key.verificationMethod, key])).values()]
}

/**
 * The multicodec headers (unsigned varints) of the vectors' multikeys: `ed25519-pub` 0xed, `p256-pub` 0x1200,
 * `p384-pub` 0x1201; `ed25519-priv` 0x1300, `p256-priv` 0x1306, `p384-priv` 0x1307.
 */
const MULTICODEC: Record<W3cKeyPair['curve'], { publicKey: number[]; secretKey: number[] }> = {
  Ed25519: { publicKey: [0xed, 0x01], secretKey: [0x80, 0x26] },
  'P-256': { publicKey: [0x80, 0x24], secretKey: [0x86, 0x26] },
  'P-384': { publicKey: [0x81, 0x24], secretKey: [0x87, 0x26] },
}

function multikeyBytes(multibase: string, header: number[]): Uint8Array {
  if (!multibase.startsWith('z')) throw new Error(`multikey ${multibase} is not base58btc`)
  const bytes = base58.decode(multibase.slice(1))
  if (header.some((byte, at) => bytes[at] !== byte)) throw new Error(`multikey ${multibase} has another multicodec header`)
  return bytes.subarray(header.length)
}

/**
 * A vector key's private JWK (`d` and the public coordinates), decoded from its multikeys: what a test imports into a
 * key backend to sign with the vector's key.
 */
export function privateJwkOf({ curve, publicKeyMultibase, secretKeyMultibase }: W3cKeyPair): JsonWebKey {
  const header = MULTICODEC[curve]
  const publicKey = multikeyBytes(publicKeyMultibase, header.publicKey)
  const d = base64urlnopad.encode(multikeyBytes(secretKeyMultibase, header.secretKey))
  if (curve === 'Ed25519') return { kty: 'OKP', crv: 'Ed25519', x: base64urlnopad.encode(publicKey), d }
  const point = ECDH.convertKey(publicKey, curve === 'P-256' ? 'prime256v1' : 'secp384r1', undefined, undefined, 'uncompressed') as Buffer
  const size = (point.length - 1) / 2
  return {
    kty: 'EC',
    crv: curve,
    x: base64urlnopad.encode(point.subarray(1, 1 + size)),
    y: base64urlnopad.encode(point.subarray(1 + size)),
    d,
  }
}

/**
 * A jsonld document loader that never touches the network: didvault's bundled contexts, {@link W3C_DI_CONTEXTS}, and
 * the did:key documents and Multikey verification methods of {@link w3cVectorKeys}. Any other URL is refused.
 */
export function w3cDiDocumentLoader(): (url: string) => Promise<{ contextUrl: null; documentUrl: string; document: unknown }> {
  const documents = new Map<string, unknown>(W3C_DI_CONTEXTS)
  for (const key of w3cVectorKeys()) {
    documents.set(key.controller, didKeyDocumentOf(key))
    documents.set(key.verificationMethod, multikeyMethodOf(key))
  }
  return async (url) => {
    const document = getContext(url) ?? documents.get(url)
    if (document === undefined) throw new Error(`w3c-di test loader: no document for ${url}`)
    return { contextUrl: null, documentUrl: url, document: structuredClone(document) }
  }
}

/** `bytes` with the bits of the byte at `at` flipped. */
function withChangedByte(bytes: Uint8Array, at: number): Uint8Array {
  if (at >= bytes.length) throw new Error(`byte ${at} out of a ${bytes.length}-byte value`)
  const changed = Uint8Array.from(bytes)
  changed[at] ^= 0xff
  return changed
}

/**
 * Where an ecdsa-sd-2023 base `proofValue` holds the issuer's signature: after the 3-byte CBOR tag `0xd95d00`, the
 * array header and the 2-byte header of the 64-byte string, i.e. bytes 6 to 69. Byte 38 is in its middle.
 */
export const SD_BASE_SIGNATURE_BYTE = 38

/**
 * A signed document whose `proofValue` has one byte changed: byte `at` (by default the middle one) of the decoded value
 * (multibase `z`, base58btc, or `u`, base64url without padding), encoded back the same way.
 */
export function withChangedProofValue<T extends { proof: W3cProof }>(signed: T, at?: number): T {
  const { proofValue } = signed.proof
  const codec = proofValue.startsWith('z') ? base58 : proofValue.startsWith('u') ? base64urlnopad : undefined
  if (codec === undefined) throw new Error(`proofValue ${proofValue} is not multibase z or u`)
  const decoded = codec.decode(proofValue.slice(1))
  const changed = proofValue[0] + codec.encode(withChangedByte(decoded, at ?? decoded.length >> 1))
  return { ...signed, proof: { ...signed.proof, proofValue: changed } }
}

/**
 * A signed document whose signed content has one character changed: the last letter of the first string claim of its
 * `credentialSubject` that is neither `id` nor `type` (for the derived ecdsa-sd-2023 documents, a disclosed one).
 */
export function withChangedClaim<T extends { proof: W3cProof }>(signed: T): T {
  const copy = structuredClone(signed) as T & { credentialSubject: Record<string, unknown> }
  const subject = copy.credentialSubject
  const claim = Object.keys(subject).find((name) => name !== 'id' && name !== 'type' && typeof subject[name] === 'string')
  if (claim === undefined) throw new Error('no string claim to change')
  const value = subject[claim] as string
  subject[claim] = value.slice(0, -1) + (value.endsWith('x') ? 'y' : 'x')
  return copy
}

function optionsOf(vector: W3cProofVector | W3cSdVector): W3cVerifyOptions {
  const { curve, publicKeyMultibase, controller, verificationMethod } = vector.keyPair
  return { verifyAt: vector.verifyAt, keyPair: { curve, publicKeyMultibase, controller, verificationMethod } }
}

async function refuses(verify: W3cVerifier, document: JsonLdDocument, options: W3cVerifyOptions): Promise<boolean> {
  return verify(document, options).then(
    (verified) => !verified,
    () => true,
  )
}

/**
 * Declares, per eddsa/ecdsa vector (call it inside a `describe`): the vector's signed document verifies; with a
 * character of its `proofValue` changed, or of a claim, it does not.
 */
export function w3cDiVerifierSuite(verify: W3cVerifier): void {
  for (const vector of loadW3cProofVectors()) {
    it(`${vector.name}: verifies`, async () => {
      expect(await verify(structuredClone(vector.signed), optionsOf(vector))).toBe(true)
    })
    it(`${vector.name}: refused with a changed proofValue or claim`, async () => {
      expect(await refuses(verify, withChangedProofValue(vector.signed), optionsOf(vector))).toBe(true)
      expect(await refuses(verify, withChangedClaim(vector.signed), optionsOf(vector))).toBe(true)
    })
  }
}

/**
 * Declares, per vector: `sign` over the vector's input document, key and proof options (its `created` included) gives
 * the vector's signed document — for EdDSA (deterministic) with a byte-identical `proofValue`; for ECDSA (a random
 * nonce per signature; declared only when `verify` is given) with the vector's proof options and a proof `verify`
 * accepts.
 */
export function w3cDiSignerSuite(sign: W3cSigner, verify?: W3cVerifier): void {
  for (const vector of loadW3cProofVectors()) {
    const signVector = () => sign(structuredClone(vector.unsigned), { keyPair: vector.keyPair, proofOptions: { ...vector.proofOptions } })
    if (vector.cryptosuite.startsWith('eddsa-')) {
      it(`${vector.name}: re-signed byte-identical`, async () => {
        const signed = await signVector()
        expect(signed.proof.proofValue).toBe(vector.signed.proof.proofValue)
        expect(signed).toEqual(vector.signed)
      })
      continue
    }
    if (verify === undefined) continue
    it(`${vector.name}: re-signed with the vector's options, verifies`, async () => {
      const { proof, ...document } = await signVector()
      const { proofValue: _signature, ...options } = proof
      const { proof: expected, ...expectedDocument } = vector.signed
      const { proofValue: _proofValue, ...expectedOptions } = expected
      expect(document).toEqual(expectedDocument)
      expect(options).toEqual(expectedOptions)
      expect(await verify({ ...document, proof }, optionsOf(vector))).toBe(true)
    })
  }
}

/**
 * Declares, per ecdsa-sd-2023 vector: the derived document verifies, and not with a changed `proofValue` or disclosed
 * claim; the base document does not verify as it is (a base proof is for the holder, not for a verifier). With
 * `derive`: deriving from the base with the vector's selective pointers gives the vector's derived document (an
 * ecdsa-sd-2023 derivation only selects the issuer's signatures: it is deterministic), which verifies; from a base
 * whose issuer signature has a byte changed, derivation fails or gives a document that does not verify.
 */
export function w3cSdSuite(verify: W3cVerifier, derive?: W3cDeriver): void {
  for (const vector of loadW3cSdVectors()) {
    it(`${vector.name}: derived proof verifies`, async () => {
      expect(await verify(structuredClone(vector.derived), optionsOf(vector))).toBe(true)
    })
    it(`${vector.name}: derived proof refused with a changed proofValue or claim`, async () => {
      expect(await refuses(verify, withChangedProofValue(vector.derived), optionsOf(vector))).toBe(true)
      expect(await refuses(verify, withChangedClaim(vector.derived), optionsOf(vector))).toBe(true)
    })
    it(`${vector.name}: base proof is not accepted by a verifier`, async () => {
      expect(await refuses(verify, structuredClone(vector.base), optionsOf(vector))).toBe(true)
    })
    if (derive === undefined) continue
    const options = { selectivePointers: vector.selectivePointers, verifyAt: vector.verifyAt }
    it(`${vector.name}: derived from the base byte-identical, and verifies`, async () => {
      const derived = await derive(structuredClone(vector.base), options)
      expect(derived.proof.proofValue).toBe(vector.derived.proof.proofValue)
      expect(derived).toEqual(vector.derived)
      expect(await verify(derived, optionsOf(vector))).toBe(true)
    })
    it(`${vector.name}: nothing verifiable derived from a base with a changed issuer signature`, async () => {
      const header = base64urlnopad.decode(vector.base.proof.proofValue.slice(1)).subarray(0, 6)
      expect([...header]).toEqual([0xd9, 0x5d, 0x00, 0x85, 0x58, 0x40])
      const derived = await derive(withChangedProofValue(vector.base, SD_BASE_SIGNATURE_BYTE), options).catch(() => undefined)
      if (derived !== undefined) expect(await refuses(verify, derived, optionsOf(vector))).toBe(true)
    })
  }
}

/**
 * What an issuer must do with a VC Data Model 2.0 test-suite input: issue it; refuse it; or refuse it unless it
 * injects the missing base context (`https://www.w3.org/ns/credentials/v2` first in `@context`).
 */
export type Vcdm2Expectation = 'accept' | 'reject' | 'reject-or-inject'

/** One input credential of the W3C VC Data Model 2.0 test suite (test/fixtures/vcdm2-test-suite/, see its SOURCE.md). */
export interface Vcdm2Input {
  /** The input's file name under the suite's `tests/input/`, e.g. `credential-id-multi-fail.json`. */
  name: string
  /** `w3c/vc-data-model-2.0-test-suite/tests/input/<name>`. */
  source: string
  /** The suite's test files that use the input (their names are the data model's sections, e.g. `4.04-identifiers`). */
  sections: string[]
  expect: Vcdm2Expectation
  /** Set where @digitalbazaar/vc 7.3 (with safe-mode JSON-LD expansion) concludes otherwise: why. */
  libraryGap?: string
  /** The input as published: without `issuer`, unless the case is about it ({@link vcdm2IssuanceRequest}). */
  credential: Record<string, unknown>
}

const VCDM2 = new URL('../fixtures/vcdm2-test-suite/', import.meta.url)

/** Every input of test/fixtures/vcdm2-test-suite/ (cases.json). */
export function loadVcdm2Inputs(): Vcdm2Input[] {
  const { cases } = JSON.parse(readFileSync(new URL('cases.json', VCDM2), 'utf8')) as {
    cases: Array<{ file: string; sections: string[]; expect: Vcdm2Expectation; libraryGap?: string }>
  }
  return cases.map(({ file, ...entry }) => ({
    name: file,
    source: `w3c/vc-data-model-2.0-test-suite/tests/input/${file}`,
    ...entry,
    credential: JSON.parse(readFileSync(new URL(`input/${file}`, VCDM2), 'utf8')) as Record<string, unknown>,
  }))
}

/**
 * The credential the test suite sends an issuer for an input: the input with the issuer's `id` filled in where the
 * input leaves it out — as `issuer`, or as `issuer.id` when `issuer` is an object — and left as it is where the input
 * sets it, `null` included (the cases about a missing issuer).
 */
export function vcdm2IssuanceRequest({ credential }: Vcdm2Input, issuerId: string): Record<string, unknown> {
  const request = structuredClone(credential)
  const { issuer } = request
  if (typeof issuer === 'object' && issuer !== null) {
    const object = issuer as Record<string, unknown>
    if (object.id === undefined) object.id = issuerId
  } else if (issuer === undefined) {
    request.issuer = issuerId
  }
  return request
}

/** An issuer under test: resolves to the issued credential, rejects when it refuses the request. */
export type Vcdm2Issuer = (credential: Record<string, unknown>) => Promise<Record<string, unknown>>

/**
 * Declares one test per input (call it inside a `describe`): `issue`, given {@link vcdm2IssuanceRequest} with
 * `issuerId`, resolves for `accept`, rejects for `reject`, and for `reject-or-inject` rejects or resolves to a
 * credential whose `@context` starts with the VCDM 2.0 context. With `skipLibraryGaps`, the inputs @digitalbazaar/vc
 * gets wrong are declared skipped, their reason in the title. `only` picks the inputs an issuer can express.
 */
export function vcdm2InputSuite(
  issue: Vcdm2Issuer,
  issuerId: string,
  { skipLibraryGaps = false, only = () => true }: { skipLibraryGaps?: boolean; only?: (input: Vcdm2Input) => boolean } = {},
): void {
  for (const input of loadVcdm2Inputs().filter(only)) {
    const title = `${input.sections.join(', ')}: ${input.name}`
    if (skipLibraryGaps && input.libraryGap) {
      it.skip(`${title} (library gap: ${input.libraryGap})`, () => {})
      continue
    }
    it(title, async () => {
      const outcome = await issue(vcdm2IssuanceRequest(input, issuerId)).then(
        (issued) => ({ issued }),
        (refusal: unknown) => ({ refusal }),
      )
      if (input.expect === 'accept') {
        expect('refusal' in outcome ? outcome.refusal : undefined).toBeUndefined()
      } else if ('issued' in outcome) {
        expect(input.expect, `issued ${JSON.stringify(outcome.issued)}`).toBe('reject-or-inject')
        expect((outcome.issued['@context'] as unknown[])[0]).toBe('https://www.w3.org/ns/credentials/v2')
      }
    })
  }
}

/** A jsonld document loader as digitalbazaar's libraries take it. */
export type LibraryDocumentLoader = (url: string) => Promise<{ contextUrl: null; documentUrl: string; document: unknown }>

/** A Multikey key pair of digitalbazaar's ed25519-multikey / ecdsa-multikey. */
export interface LibraryKeyPair {
  id: string
  controller: string
  publicKeyMultibase: string
  signer(): object
}

/** The Multikey module of one key type (its few calls the tests make). */
interface LibraryMultikeys {
  generate(options?: { curve: 'P-256' }): Promise<LibraryKeyPair>
  fromJwk(options: { jwk: JsonWebKey; secretKey: boolean; id: string; controller: string }): Promise<LibraryKeyPair>
}

/**
 * digitalbazaar's Data Integrity libraries, their few calls the tests make typed: @digitalbazaar/data-integrity's
 * `DataIntegrityProof`, @digitalbazaar/vc, the Ed25519 and ECDSA Multikeys, and the five cryptosuites by name — to
 * sign (ecdsa-sd-2023 with its mandatory pointers), to verify, and ecdsa-sd-2023's disclose cryptosuite.
 */
export interface DigitalbazaarLibraries {
  DataIntegrityProof: new (options: { cryptosuite: object; signer?: object; date?: string }) => object
  vc: {
    CredentialIssuancePurpose: new () => object
    issue(options: { credential: object; suite: object; documentLoader: LibraryDocumentLoader }): Promise<any>
    derive(options: { verifiableCredential: object; suite: object; documentLoader: LibraryDocumentLoader }): Promise<any>
    verifyCredential(options: {
      credential: object
      suite: object[]
      documentLoader: LibraryDocumentLoader
      purpose?: object
      now?: string
    }): Promise<{ verified: boolean; error?: unknown }>
  }
  Ed25519Multikey: LibraryMultikeys
  EcdsaMultikey: LibraryMultikeys
  signing(cryptosuite: W3cCryptosuite, mandatoryPointers?: string[]): object
  verifying(cryptosuite: W3cCryptosuite): object
  disclose(selectivePointers: string[]): object
}

const importEsm = (specifier: string): Promise<any> => import(specifier)

/**
 * Loads {@link DigitalbazaarLibraries}. The packages are ESM-only: each is loaded with `import()` of a specifier held in
 * a variable (no ambient module declarations needed).
 */
export async function loadDigitalbazaarLibraries(): Promise<DigitalbazaarLibraries> {
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
  const signing: Record<W3cCryptosuite, (mandatoryPointers: string[]) => object> = {
    'eddsa-rdfc-2022': () => eddsaRdfc.cryptosuite,
    'eddsa-jcs-2022': () => eddsaJcs.createSignCryptosuite(),
    'ecdsa-rdfc-2019': () => ecdsaRdfc.cryptosuite,
    'ecdsa-jcs-2019': () => ecdsaJcs.createSignCryptosuite(),
    'ecdsa-sd-2023': (mandatoryPointers) => ecdsaSd.createSignCryptosuite({ mandatoryPointers }),
  }
  const verifying: Record<W3cCryptosuite, () => object> = {
    'eddsa-rdfc-2022': () => eddsaRdfc.cryptosuite,
    'eddsa-jcs-2022': () => eddsaJcs.createVerifyCryptosuite(),
    'ecdsa-rdfc-2019': () => ecdsaRdfc.cryptosuite,
    'ecdsa-jcs-2019': () => ecdsaJcs.createVerifyCryptosuite(),
    'ecdsa-sd-2023': () => ecdsaSd.createVerifyCryptosuite(),
  }
  return {
    DataIntegrityProof: dataIntegrity.DataIntegrityProof,
    vc,
    Ed25519Multikey: ed25519Multikey,
    EcdsaMultikey: ecdsaMultikey,
    signing: (cryptosuite, mandatoryPointers = []) => signing[cryptosuite](mandatoryPointers),
    verifying: (cryptosuite) => verifying[cryptosuite](),
    disclose: (selectivePointers) => ecdsaSd.createDiscloseCryptosuite({ selectivePointers }),
  }
}

/**
 * The Data Integrity suite objects: one per cryptosuite, each signing through the key port and verifying against the
 * controller's current DID document. The proof-suite registry lists them by `(DataIntegrityProof, cryptosuite)`.
 */
import { KEY_TYPES, type BbsKeyType, type KeyType } from '../../keys/key-types.js'
import type { BbsSigner } from '../../keys/signer.js'
import type { JoseSigner } from './key-signer.js'
import { CRYPTOSUITES, type CryptosuiteDefinition, type WholeDocumentCryptosuite } from './cryptosuites.js'
import { deriveSelective } from './derive.js'
import { checkPointers } from './inputs.js'
import type { JsonLdDocument } from './inputs.js'
import { DEFAULT_JSONLD_LIMITS } from '../jsonld/bounds.js'
import { signWith, type DataIntegritySignOptions, type SignedDocument } from './sign.js'
import { verifyWith, type DataIntegrityVerification, type DataIntegrityVerifyOptions } from './verify.js'

/** A Data Integrity suite: a cryptosuite's signing and verification. */
export interface DataIntegritySuite {
  readonly type: 'DataIntegrityProof'
  readonly cryptosuite: CryptosuiteDefinition['name']
  /** The wallet key types it signs with (anything else is a 422 before signing). */
  readonly keyTypes: readonly KeyType[]
  /** `document` with a new proof by `signer`. */
  sign(document: JsonLdDocument, signer: JoseSigner, options: DataIntegritySignOptions): Promise<SignedDocument>
  /** Whether `proof` (one of `document`'s proofs) verifies: a named outcome, never a throw. */
  verify(document: JsonLdDocument, proof: Record<string, unknown>, options: DataIntegrityVerifyOptions): Promise<DataIntegrityVerification>
}

/** ecdsa-sd-2023: the issuer's base proof with mandatory pointers; derivation by any holder; verification of derived proofs. */
export interface SelectiveDisclosureSuite extends Omit<DataIntegritySuite, 'sign'> {
  sign(
    document: JsonLdDocument,
    signer: JoseSigner,
    options: DataIntegritySignOptions & { mandatoryPointers?: string[] },
  ): Promise<SignedDocument>
  /** The document revealing the mandatory claims and those `selectivePointers` select, with a derived proof. */
  derive(
    document: JsonLdDocument,
    selectivePointers: string[],
    options?: Pick<DataIntegritySignOptions, 'limits' | 'hasher'>,
  ): Promise<SignedDocument>
}

/** The JOSE-signing key types of a cryptosuite. */
const joseKeyTypes = (definition: CryptosuiteDefinition): readonly KeyType[] =>
  KEY_TYPES.filter((type) => definition.keyTypes.includes(type))

function wholeDocumentSuite(name: WholeDocumentCryptosuite): DataIntegritySuite {
  const definition = CRYPTOSUITES[name]
  return {
    type: 'DataIntegrityProof',
    cryptosuite: name,
    keyTypes: joseKeyTypes(definition),
    sign: (document, signer, options) => signWith(definition, document, signer, options),
    verify: (document, proof, options) => verifyWith(definition, document, proof, options),
  }
}

/** `DataIntegrityProof` / `ecdsa-rdfc-2019`: RDF canonicalization, ECDSA over P-256 (P-384 verified too). */
export const ecdsaRdfc2019 = wholeDocumentSuite('ecdsa-rdfc-2019')
/** `DataIntegrityProof` / `eddsa-rdfc-2022`: RDF canonicalization, Ed25519. */
export const eddsaRdfc2022 = wholeDocumentSuite('eddsa-rdfc-2022')
/** `DataIntegrityProof` / `ecdsa-jcs-2019`: JSON Canonicalization Scheme, ECDSA over P-256 (P-384 verified too). */
export const ecdsaJcs2019 = wholeDocumentSuite('ecdsa-jcs-2019')
/** `DataIntegrityProof` / `eddsa-jcs-2022`: JSON Canonicalization Scheme, Ed25519. */
export const eddsaJcs2022 = wholeDocumentSuite('eddsa-jcs-2022')

const sd = CRYPTOSUITES['ecdsa-sd-2023']

/** `DataIntegrityProof` / `ecdsa-sd-2023`: selective disclosure over P-256. */
export const ecdsaSd2023: SelectiveDisclosureSuite = {
  type: 'DataIntegrityProof',
  cryptosuite: 'ecdsa-sd-2023',
  keyTypes: joseKeyTypes(sd),
  sign: async (document, signer, { mandatoryPointers = [], ...options }) => {
    checkPointers('mandatoryPointers', mandatoryPointers, (options.limits ?? DEFAULT_JSONLD_LIMITS).maxArrayLength)
    return signWith(sd, document, signer, { ...options, mandatoryPointers })
  },
  derive: (document, selectivePointers, options) => deriveSelective(document, selectivePointers, options),
  verify: (document, proof, options) => verifyWith(sd, document, proof, options),
}

/** bbs-2023: {@link SelectiveDisclosureSuite}'s calls, the issuer's base proof signed by a BLS12-381 key's {@link BbsSigner}. */
export interface BbsSuite extends Omit<SelectiveDisclosureSuite, 'sign' | 'keyTypes'> {
  readonly keyTypes: readonly BbsKeyType[]
  sign(
    document: JsonLdDocument,
    signer: BbsSigner,
    options: DataIntegritySignOptions & { mandatoryPointers?: string[] },
  ): Promise<SignedDocument>
}

const bbs = CRYPTOSUITES['bbs-2023']

/**
 * `DataIntegrityProof` / `bbs-2023` (baseline: no holder binding, pseudonyms or anonymous holder binding): BBS
 * signatures over BLS12-381 (`BBS-BLS12-381-SHA-256`). The base proof is for the holder only (it is not verifiable by
 * design); any holder derives an unlinkable proof of the mandatory claims and those it selects.
 */
export const bbs2023: BbsSuite = {
  type: 'DataIntegrityProof',
  cryptosuite: 'bbs-2023',
  keyTypes: ['Bls12381G2'],
  sign: async (document, signer, { mandatoryPointers = [], ...options }) => {
    checkPointers('mandatoryPointers', mandatoryPointers, (options.limits ?? DEFAULT_JSONLD_LIMITS).maxArrayLength)
    return signWith(bbs, document, signer, { ...options, mandatoryPointers })
  },
  derive: (document, selectivePointers, options) => deriveSelective(document, selectivePointers, options, 'bbs-2023'),
  verify: (document, proof, options) => verifyWith(bbs, document, proof, options),
}

/** Every Data Integrity suite signing through a JOSE signer, by cryptosuite name (bbs-2023 is {@link bbs2023}). */
export const DATA_INTEGRITY_SUITES: Readonly<
  Record<Exclude<CryptosuiteDefinition['name'], 'bbs-2023'>, DataIntegritySuite | SelectiveDisclosureSuite>
> = {
  'ecdsa-rdfc-2019': ecdsaRdfc2019,
  'eddsa-rdfc-2022': eddsaRdfc2022,
  'ecdsa-jcs-2019': ecdsaJcs2019,
  'eddsa-jcs-2022': eddsaJcs2022,
  'ecdsa-sd-2023': ecdsaSd2023,
}

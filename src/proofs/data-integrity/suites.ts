/**
 * The Data Integrity suite objects: one per cryptosuite, each signing through the key port and verifying against the
 * controller's current DID document. The proof-suite registry lists them by `(DataIntegrityProof, cryptosuite)`.
 */
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
  readonly keyTypes: CryptosuiteDefinition['keyTypes']
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

function wholeDocumentSuite(name: WholeDocumentCryptosuite): DataIntegritySuite {
  const definition = CRYPTOSUITES[name]
  return {
    type: 'DataIntegrityProof',
    cryptosuite: name,
    keyTypes: definition.keyTypes,
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
  keyTypes: sd.keyTypes,
  sign: async (document, signer, { mandatoryPointers = [], ...options }) => {
    checkPointers('mandatoryPointers', mandatoryPointers, (options.limits ?? DEFAULT_JSONLD_LIMITS).maxArrayLength)
    return signWith(sd, document, signer, { ...options, mandatoryPointers })
  },
  derive: (document, selectivePointers, options) => deriveSelective(document, selectivePointers, options),
  verify: (document, proof, options) => verifyWith(sd, document, proof, options),
}

/** Every Data Integrity suite, by cryptosuite name. */
export const DATA_INTEGRITY_SUITES: Readonly<Record<CryptosuiteDefinition['name'], DataIntegritySuite | SelectiveDisclosureSuite>> = {
  'ecdsa-rdfc-2019': ecdsaRdfc2019,
  'eddsa-rdfc-2022': eddsaRdfc2022,
  'ecdsa-jcs-2019': ecdsaJcs2019,
  'eddsa-jcs-2022': eddsaJcs2022,
  'ecdsa-sd-2023': ecdsaSd2023,
}

/**
 * The W3C Data Integrity cryptosuites didvault signs and verifies with, each with the key types a wallet may sign it
 * with and the curves a verification method may have, and the @digitalbazaar cryptosuite objects behind it.
 */
import type { BbsKeyType, KeyType } from '../../keys/key-types.js'
import type { Cryptosuite, DataIntegrityLibraries, Multikeys } from './libraries.js'

/** The cryptosuite names, as a `DataIntegrityProof`'s `cryptosuite` spells them. */
export const DATA_INTEGRITY_CRYPTOSUITES = [
  'ecdsa-rdfc-2019',
  'eddsa-rdfc-2022',
  'ecdsa-jcs-2019',
  'eddsa-jcs-2022',
  'ecdsa-sd-2023',
  'bbs-2023',
] as const
export type DataIntegrityCryptosuite = (typeof DATA_INTEGRITY_CRYPTOSUITES)[number]

/** The selective-disclosure cryptosuites: a base proof the issuer signs, derived proofs any holder makes. */
export type SelectiveDisclosureCryptosuite = 'ecdsa-sd-2023' | 'bbs-2023'

/** Whether `name` is a {@link SelectiveDisclosureCryptosuite}. */
export const isSelectiveDisclosure = (name: DataIntegrityCryptosuite): name is SelectiveDisclosureCryptosuite =>
  name === 'ecdsa-sd-2023' || name === 'bbs-2023'

/** The cryptosuites that sign a whole document (all but the selective-disclosure ones). */
export type WholeDocumentCryptosuite = Exclude<DataIntegrityCryptosuite, SelectiveDisclosureCryptosuite>

/** What one cryptosuite needs of keys and of the libraries. */
export interface CryptosuiteDefinition {
  name: DataIntegrityCryptosuite
  /** How it canonicalizes: RDF Dataset Canonicalization, or the JSON Canonicalization Scheme (RFC 8785). */
  canonicalization: 'rdfc' | 'jcs'
  /** The wallet key types that sign with it. */
  keyTypes: readonly (KeyType | BbsKeyType)[]
  /** The curves (the libraries' `algorithm`) a verification method may have to verify it. */
  curves: readonly string[]
  /** The multikey package that reads its verification methods. */
  multikeys(lib: DataIntegrityLibraries): Multikeys
  /** The library cryptosuite that verifies its proofs. */
  verifying(lib: DataIntegrityLibraries): Cryptosuite
}

const ecdsa = { keyTypes: ['P-256'], curves: ['P-256', 'P-384'], multikeys: (lib: DataIntegrityLibraries) => lib.EcdsaMultikey } as const
const eddsa = { keyTypes: ['Ed25519'], curves: ['Ed25519'], multikeys: (lib: DataIntegrityLibraries) => lib.Ed25519Multikey } as const

/** Every cryptosuite, by name. */
export const CRYPTOSUITES: Readonly<Record<DataIntegrityCryptosuite, CryptosuiteDefinition>> = {
  'ecdsa-rdfc-2019': { name: 'ecdsa-rdfc-2019', canonicalization: 'rdfc', ...ecdsa, verifying: (lib) => lib.ecdsaRdfc2019 },
  'eddsa-rdfc-2022': { name: 'eddsa-rdfc-2022', canonicalization: 'rdfc', ...eddsa, verifying: (lib) => lib.eddsaRdfc2022 },
  'ecdsa-jcs-2019': {
    name: 'ecdsa-jcs-2019',
    canonicalization: 'jcs',
    ...ecdsa,
    verifying: (lib) => lib.ecdsaJcs2019.createVerifyCryptosuite(),
  },
  'eddsa-jcs-2022': {
    name: 'eddsa-jcs-2022',
    canonicalization: 'jcs',
    ...eddsa,
    verifying: (lib) => lib.eddsaJcs2022.createVerifyCryptosuite(),
  },
  'ecdsa-sd-2023': {
    name: 'ecdsa-sd-2023',
    canonicalization: 'rdfc',
    ...ecdsa,
    curves: ['P-256'],
    verifying: (lib) => lib.ecdsaSd2023.createVerifyCryptosuite(),
  },
  'bbs-2023': {
    name: 'bbs-2023',
    canonicalization: 'rdfc',
    keyTypes: ['Bls12381G2'],
    curves: ['Bls12381G2'],
    multikeys: (lib) => lib.Bls12381Multikey,
    verifying: (lib) => lib.bbs2023.createVerifyCryptosuite(),
  },
}

/** The library cryptosuites of a selective-disclosure cryptosuite. */
export function selectiveDisclosureCryptosuites(lib: DataIntegrityLibraries, name: SelectiveDisclosureCryptosuite) {
  return name === 'bbs-2023' ? lib.bbs2023 : lib.ecdsaSd2023
}

/** The library cryptosuite that signs with a whole-document cryptosuite. */
export function signingCryptosuite(lib: DataIntegrityLibraries, name: WholeDocumentCryptosuite): Cryptosuite {
  switch (name) {
    case 'ecdsa-rdfc-2019':
      return lib.ecdsaRdfc2019
    case 'eddsa-rdfc-2022':
      return lib.eddsaRdfc2022
    case 'ecdsa-jcs-2019':
      return lib.ecdsaJcs2019.createSignCryptosuite()
    case 'eddsa-jcs-2022':
      return lib.eddsaJcs2022.createSignCryptosuite()
  }
}

/**
 * digitalbazaar's Data Integrity libraries, loaded once per process. They are ESM-only packages; didvault's CommonJS
 * build cannot `require` them, so they are loaded with a dynamic `import()` of a specifier held in a variable (the
 * bundler leaves it a real `import()`, which Node runs from CommonJS too) and the promise is cached. Only the few
 * calls didvault makes are typed here.
 */

/** A cryptosuite object of one of the cryptosuite packages (opaque to didvault). */
export type Cryptosuite = {
  readonly name: string
  readonly requiredAlgorithm: string | string[]
  /** The bytes to sign or verify, from the document and the proof (without `proofValue`). */
  readonly createVerifyData?: (options: {
    document: Record<string, unknown>
    proof: Record<string, unknown>
    /** The library's `DataIntegrityProof` asking (verifying: with the `verificationMethod` it loaded). */
    dataIntegrityProof?: object
    verificationMethod?: Record<string, unknown>
  }) => Promise<Uint8Array>
  /** The verifier of a verification method (its public key imported). */
  readonly createVerifier: (options: { verificationMethod: Record<string, unknown> }) => Promise<LibraryVerifier>
} & object

/** What a cryptosuite checks signatures with: the verification method's id, its algorithm and a verify function. */
export interface LibraryVerifier {
  id: string
  algorithm: string
  verify(options: { data: Uint8Array; signature?: Uint8Array }): Promise<boolean>
}

/** The signer object the libraries sign with: a verification method id, its algorithm and a raw signature function. */
export interface LibrarySigner {
  id: string
  algorithm: string
  sign(options: { data: Uint8Array }): Promise<Uint8Array>
}

/**
 * The signer object bbs-2023 signs with: BBS signs a header and a list of messages (`multisign`), and the base proof
 * carries the signer's public key (96-byte BLS12-381 G2 point).
 */
export interface LibraryBbsSigner {
  id: string
  algorithm: string
  publicKey: Uint8Array
  multisign(options: { header: Uint8Array; messages: Uint8Array[] }): Promise<Uint8Array>
  sign(options: { data: Uint8Array }): Promise<Uint8Array>
}

/** A jsonld document loader. */
export type DocumentLoader = (url: string) => Promise<{ contextUrl: null; documentUrl: string; document: unknown }>

/** What a proof purpose gives the suite: its term, written into the proof (with `challenge`/`domain`). */
export interface LibraryPurpose {
  term: string
  update(proof: Record<string, unknown>): Promise<Record<string, unknown>>
}

/** @digitalbazaar/data-integrity's `DataIntegrityProof`, as didvault drives it (jsonld-signatures' suite interface). */
export interface DataIntegritySuite {
  ensureSuiteContext(options: { document: object; addSuiteContext: boolean }): void
  createProof(options: {
    document: object
    purpose: LibraryPurpose
    proofSet: object[]
    documentLoader: DocumentLoader
  }): Promise<Record<string, unknown>>
  verifyProof(options: {
    proof: object
    proofSet: object[]
    document: object
    documentLoader: DocumentLoader
  }): Promise<{ verified: boolean; error?: unknown }>
  derive(options: {
    document: object
    purpose: LibraryPurpose
    proofSet: object[]
    documentLoader: DocumentLoader
  }): Promise<Record<string, unknown>>
}

/** A key of @digitalbazaar/ecdsa-multikey or ed25519-multikey. */
export interface MultikeyKeyPair {
  export(options: { publicKey: true; includeContext: true }): Promise<Record<string, unknown>>
}

/** The multikey package functions didvault calls. */
export interface Multikeys {
  from(key: object): Promise<MultikeyKeyPair>
  fromJwk(options: { jwk: object; id: string; controller: string }): Promise<MultikeyKeyPair>
}

/** The loaded libraries. */
export interface DataIntegrityLibraries {
  DataIntegrityProof: new (options: {
    cryptosuite: Cryptosuite
    signer?: LibrarySigner | LibraryBbsSigner
    date?: string
  }) => DataIntegritySuite
  EcdsaMultikey: Multikeys
  Ed25519Multikey: Multikeys
  Bls12381Multikey: Multikeys
  eddsaRdfc2022: Cryptosuite
  ecdsaRdfc2019: Cryptosuite
  eddsaJcs2022: { createSignCryptosuite(): Cryptosuite; createVerifyCryptosuite(): Cryptosuite }
  ecdsaJcs2019: { createSignCryptosuite(): Cryptosuite; createVerifyCryptosuite(): Cryptosuite }
  ecdsaSd2023: SelectiveDisclosureCryptosuites
  bbs2023: SelectiveDisclosureCryptosuites
}

/** The cryptosuite factories of a selective-disclosure package (ecdsa-sd-2023, bbs-2023). */
export interface SelectiveDisclosureCryptosuites {
  createSignCryptosuite(options: { mandatoryPointers: string[] }): Cryptosuite
  createVerifyCryptosuite(): Cryptosuite
  createDiscloseCryptosuite(options: { selectivePointers: string[] }): Cryptosuite
}

/** An ES module namespace, its exports read through the types above. */
type Namespace = Record<string, unknown>

const importEsm = (specifier: string): Promise<Namespace> => import(specifier) as Promise<Namespace>

let loading: Promise<DataIntegrityLibraries> | undefined

/** The libraries, imported on first use and cached for the life of the process. */
export function dataIntegrityLibraries(): Promise<DataIntegrityLibraries> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined
    throw error
  })
  return loading
}

async function load(): Promise<DataIntegrityLibraries> {
  const [dataIntegrity, ecdsaMultikey, ed25519Multikey, blsMultikey, eddsaRdfc, ecdsaRdfc, eddsaJcs, ecdsaJcs, ecdsaSd, bbs] =
    await Promise.all(
      [
        '@digitalbazaar/data-integrity',
        '@digitalbazaar/ecdsa-multikey',
        '@digitalbazaar/ed25519-multikey',
        '@digitalbazaar/bls12-381-multikey',
        '@digitalbazaar/eddsa-rdfc-2022-cryptosuite',
        '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite',
        '@digitalbazaar/eddsa-jcs-2022-cryptosuite',
        '@digitalbazaar/ecdsa-jcs-2019-cryptosuite',
        '@digitalbazaar/ecdsa-sd-2023-cryptosuite',
        '@digitalbazaar/bbs-2023-cryptosuite',
      ].map(importEsm),
    )
  return {
    DataIntegrityProof: dataIntegrity.DataIntegrityProof as DataIntegrityLibraries['DataIntegrityProof'],
    EcdsaMultikey: ecdsaMultikey as unknown as Multikeys,
    Ed25519Multikey: ed25519Multikey as unknown as Multikeys,
    Bls12381Multikey: blsMultikey as unknown as Multikeys,
    eddsaRdfc2022: eddsaRdfc.cryptosuite as Cryptosuite,
    ecdsaRdfc2019: ecdsaRdfc.cryptosuite as Cryptosuite,
    eddsaJcs2022: eddsaJcs as unknown as DataIntegrityLibraries['eddsaJcs2022'],
    ecdsaJcs2019: ecdsaJcs as unknown as DataIntegrityLibraries['ecdsaJcs2019'],
    ecdsaSd2023: ecdsaSd as unknown as SelectiveDisclosureCryptosuites,
    bbs2023: bbs as unknown as SelectiveDisclosureCryptosuites,
  }
}

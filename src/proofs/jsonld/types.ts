/** Shapes shared by the JSON-LD proof suites. */
import type { Resolvable } from 'did-resolver'
import type { CanonicalHasher } from './canonical-hasher.js'

/** A JSON-LD document (e.g. a W3C Verifiable Credential), signed or not. */
export type JsonLdDocument = Record<string, unknown>

/** A key a proof may be signed with, as found in the signer's DID document. */
export interface SigningKey {
  /** secp256k1 public key, hex, compressed (33 bytes) or uncompressed (65 bytes, 04 prefix). */
  publicKeyHex?: string
  /** Ethereum address of the key (any letter case). */
  ethereumAddress?: string
  /** CAIP-10 account of the key, `eip155:<chainId>:<address>` (as did:ethr documents state it). */
  blockchainAccountId?: string
}

/** How a verifier finds the keys a proof's `creator` / `verificationMethod` stands for. */
export interface VerifyOptions {
  /**
   * Resolves the current DID document of a proof's method, for the suites that read the verification method itself
   * (Data Integrity); without it their proofs are not verified.
   */
  resolver?: Resolvable
  /**
   * The relationship the proofs' methods must be listed under in their DID documents (Data Integrity suites; the
   * others are told by `resolveSigningKeys`): `assertionMethod` (default, a credential) or `authentication` (a
   * presentation).
   */
  proofPurpose?: 'assertionMethod' | 'authentication'
  /**
   * Resolves a DID URL (a proof's `creator` or `verificationMethod`) to the keys that may
   * have signed with it. Resolve to `[]` for an unknown DID (the proof is then not
   * verified); a rejection propagates to the caller.
   */
  resolveSigningKeys(didUrl: string): Promise<SigningKey[]>
  /**
   * The DID at least one proof must be made by (its `creator` / `verificationMethod` a DID URL
   * of this DID); the other proofs may be by other DIDs, each with a key of its own. Default:
   * the document's `issuer` (a string, or an object's `id`), when it has one; a document
   * without `issuer` requires no proof by a particular DID.
   */
  issuer?: string
  /** Canonicalizes (within its bounds); default: in this thread, default bounds. */
  hasher?: CanonicalHasher
}

/** Outcome of verifying a document. An invalid signature is `verified: false`, never a throw. */
export interface VerifyResult {
  verified: boolean
  /** Why it is not verified. */
  error?: string
}

/** Options of a new proof. */
export interface ProofOptions {
  /** DID URL of the signing key, e.g. `did:ethr:0xabc…#controller`. */
  creator: string
  /** Signing time; now when omitted. */
  created?: Date
  /** Nonce bound into the signature. EcdsaKoblitzSignature2016 generates one when omitted. */
  nonce?: string
  /** Domain the proof is restricted to. */
  domain?: string
  /**
   * Why the proof was made (EcdsaSecp256k1RecoverySignature2020 and Data Integrity): `assertionMethod`
   * (default, a credential) or `authentication` (a presentation, with its `challenge`).
   */
  proofPurpose?: 'assertionMethod' | 'authentication'
  /** The verifier's challenge the proof answers (EcdsaSecp256k1RecoverySignature2020 and Data Integrity). */
  challenge?: string
  /** When the proof stops being valid (EcdsaSecp256k1RecoverySignature2020 only). */
  expires?: Date
  /** Canonicalizes (within its bounds); default: in this thread, default bounds. */
  hasher?: CanonicalHasher
  /**
   * JSON pointers of the claims every derived credential reveals (a selective-disclosure Data Integrity suite's base
   * proof, ecdsa-sd-2023); any other suite refuses them (422).
   */
  mandatoryPointers?: string[]
}

/**
 * The key a Status List Token's `kid` names: a DID URL whose DID's current document lists that verification method
 * under `assertionMethod` (the relationship a credential's issuer signs under), with a key of a type the token's
 * algorithm signs with — or, for `ES256K`, a secp256k1 method that names only the key's address (did:ethr's
 * `#controller`), whose signer is recovered from the signature. Checked by the shared JWS-by-DID verifier
 * (`proofs/jws-by-did.ts`).
 */
import type { Resolvable, VerificationMethod } from 'did-resolver'
import type { SignatureAlgorithm } from '../../keys/key-types.js'
import { jwsSigners, signedByMethod } from '../../proofs/jws-by-did.js'
import { TokenStatusListRejected } from './rejected.js'

/** The signer DID of `kid` and the verification method `kid` names, as `resolver` resolves the DID now. */
export interface IssuerKey {
  did: string
  method: VerificationMethod
}

/**
 * The verification method `kid` names, with a key of a type `alg` signs with.
 * @throws {TokenStatusListRejected} `kid`: not a DID URL with a fragment, its DID unresolved, its document listing no
 * such method under `assertionMethod`, or the method's key missing or of another type than `alg`'s
 */
export async function issuerKeyOf(kid: unknown, alg: SignatureAlgorithm, resolver: Resolvable): Promise<IssuerKey> {
  const signers = await jwsSigners({ alg, kid }, { resolver })
  if (!signers.found) throw new TokenStatusListRejected(signers.reason === 'alg' ? 'alg' : 'kid', signers.error)
  return { did: signers.did, method: signers.methods[0] }
}

/** Whether `signature` (base64url) signs `data` (the JWS signing input) under `alg` by `key`; false for a key OpenSSL refuses. */
export function isSignedBy(key: IssuerKey, alg: SignatureAlgorithm, data: string, signature: string): boolean {
  return signedByMethod(key.method, alg, data, Buffer.from(signature, 'base64url'))
}

/**
 * did-jwt `Signer`s and what a JWT's header names: the signer of a wallet's {@link KeySigner}
 * under the JWS algorithm of its key type, its `kid`, and the signer over a {@link DigestSigner} (keys held in
 * memory: tests, bench).
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { Signer } from 'did-jwt'
import type { Resolvable } from 'did-resolver'
import { didMethodOf, jwkOfMethod, OFFLINE_METHODS, relationshipKeys } from '../did/methods/index.js'
import type { KeyType, PublicJwk, SignatureAlgorithm } from '../keys/key-types.js'
import type { DigestSigner, KeySigner } from '../keys/signer.js'

/** The JWS algorithm of the JWTs (VC-JWT, VP-JWT, status lists) a key type signs. */
const JWT_ALGORITHM_OF: Readonly<Record<KeyType, SignatureAlgorithm>> = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' }

/** What a JWT signed by a wallet's key names in its header, and the did-jwt signer that signs it. */
export interface JwtIssuer {
  did: string
  alg: SignatureAlgorithm
  signer: Signer
  /** The verification method of the DID's document that lists the key; absent for did:ethr (whose JWTs never named one). */
  kid?: string
}

/** How {@link jwtIssuerOf} names the JWT's algorithm and key. */
export interface JwtIssuerOptions {
  /** `ES256K-R` for a did:ethr DID-auth token (its document names the owner by address only). */
  recoverable?: boolean
  /** Resolves the documents of DIDs whose method the registry does not list (did:web): the request's resolver. */
  resolver?: Resolvable
}

/**
 * The issuer of JWTs `did` signs with `signer`'s key: `ES256K`, `ES256` or `EdDSA` by its key type — `ES256K-R` for
 * a did:ethr DID-auth token (`recoverable`: its document names the owner by address only) — and `kid` the id of the
 * verification method of the DID's current document that lists the key (did:key, did:jwk; did:web through `resolver`).
 */
export async function jwtIssuerOf(did: string, signer: KeySigner, options: JwtIssuerOptions = {}): Promise<JwtIssuer> {
  const recoverable = options.recoverable === true && signer.keyType === 'secp256k1' && did.startsWith('did:ethr:')
  const alg = recoverable ? 'ES256K-R' : JWT_ALGORITHM_OF[signer.keyType]
  const kid = await verificationMethodOf(did, signer.publicJwk, options.resolver)
  return { did, alg, signer: keySignerJwtSigner(signer, alg), ...(kid !== undefined && { kid }) }
}

/**
 * The id of the verification method of `did`'s current document that lists `publicJwk` (did:key, did:jwk from the
 * method registry; others, such as did:web, from the document `resolver` answers); undefined when none does, without
 * `resolver` for those, and for did:ethr, whose documents name the owner by address (`<did>#controller`).
 */
export async function verificationMethodOf(did: string, publicJwk: PublicJwk, resolver?: Resolvable): Promise<string | undefined> {
  const method = didMethodOf(did)
  if (!method) return resolver === undefined || did.startsWith('did:ethr:') ? undefined : resolvedMethodOf(did, publicJwk, resolver)
  // A DID derived from its key (did:key, did:jwk) lists the same method for good: resolved once.
  const derived = OFFLINE_METHODS.includes(method)
  const cacheKey = `${did} ${publicJwk.x}`
  if (derived && DERIVED_METHOD_IDS.has(cacheKey)) return DERIVED_METHOD_IDS.get(cacheKey)
  const keys = await method.controllingKeys(did)
  const methodId = keys.find((key) => sameKey(key.publicJwk, publicJwk))?.methodId
  if (derived) {
    if (DERIVED_METHOD_IDS.size >= DERIVED_METHOD_IDS_MAX) DERIVED_METHOD_IDS.delete(DERIVED_METHOD_IDS.keys().next().value!)
    DERIVED_METHOD_IDS.set(cacheKey, methodId)
  }
  return methodId
}

const sameKey = (jwk: PublicJwk | undefined, publicJwk: PublicJwk) =>
  jwk !== undefined && jwk.crv === publicJwk.crv && jwk.x === publicJwk.x && jwk.y === publicJwk.y

/**
 * The id of the verification method of the document `resolver` answers for `did` that lists `publicJwk` (by
 * `publicKeyJwk`) and that `authentication` or `assertionMethod` names; undefined when none does or nothing resolves.
 */
async function resolvedMethodOf(did: string, publicJwk: PublicJwk, resolver: Resolvable): Promise<string | undefined> {
  const { didDocument } = await resolver.resolve(did)
  if (!didDocument) return undefined
  return relationshipKeys(didDocument, ['authentication', 'assertionMethod'], jwkOfMethod).find((key) => sameKey(key.publicJwk, publicJwk))
    ?.methodId
}

/** The verification methods of DIDs derived from their key, by DID and key: bounded, the oldest entry leaves first. */
const DERIVED_METHOD_IDS = new Map<string, string | undefined>()
const DERIVED_METHOD_IDS_MAX = 10_000

/** A did-jwt `Signer` of `signer`'s key under `alg`: the JOSE signature, base64url. */
export function keySignerJwtSigner(signer: KeySigner, alg: SignatureAlgorithm): Signer {
  return async (data) => {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
    return Buffer.from(await signer.sign(alg, bytes)).toString('base64url')
  }
}

/**
 * A did-jwt `Signer` over a {@link DigestSigner} (ES256K and ES256K-R): SHA-256 of the signing input, signed as a
 * digest. For keys held in memory (`LocalSigner`: tests, bench, outside holders); wallets sign through {@link jwtIssuerOf}.
 */
export function didJwtSigner(signer: DigestSigner): Signer {
  return async (data) => {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
    const sig = await signer.sign(sha256(bytes))
    return { r: bytesToHex(sig.r), s: bytesToHex(sig.s), recoveryParam: sig.recovery }
  }
}

/**
 * DID-auth tokens (`x-did-auth`, and the Access Token JWT form of `Authorization`): JWTs
 * (ES256K, ES256K-R, ES256, EdDSA) signed by a key that controls the issuer DID (see credentials/jwt-verifier for the
 * rules). Any failure is 403 UNAUTHENTICATED with a short reason.
 */
import type { Resolvable } from 'did-resolver'
import { IdentityError, unauthenticated } from '../errors.js'
import { parseEthrDid, principalOf } from '../did/methods/ethr/index.js'
import { JwtRejected, verifyDidJwt, type VerifiedJwt } from '../proofs/jwt-verifier.js'
import { authenticationKeyIds, keyIdOfMethod } from '../proofs/method-key-ids.js'
import type { KnownKeys } from '../proofs/known-keys.js'
import type { SignatureMemo } from '../proofs/signature-memo.js'

export interface DidAuthOptions {
  resolver: Resolvable
  /**
   * A resolver for one request, used instead of `resolver` when given: its did:web fetches share one budget
   * (`DidWebResolver.forRequest`), so a document is read afresh by each request and never past the budget.
   */
  resolverForRequest?: () => Resolvable
  audience: string
  /** Known public keys (the service's wallets): their signatures are checked fastest. */
  keys?: KnownKeys
  /** Clock skew allowed for nbf/iat/exp, seconds. Default 60. */
  skewSeconds?: number
  /** Longest token lifetime (`exp` − `iat`) accepted, seconds. Default 24 hours, the longest the service issues. */
  maxLifetimeSeconds?: number
  /** Current time, ms (tests). */
  now?: () => number
  /** Remembers verified tokens' signers (see {@link SignatureMemo}); without it every signature is checked. */
  memo?: SignatureMemo
}

/** Longest token accepted (characters); larger ones are rejected before parsing. */
const MAX_TOKEN = 8 * 1024
/** Most tokens one header may carry. */
const MAX_TOKENS = 10

/** What a verified DID-auth token proves: the key that signed it, and whether that key controls the issuer DID. */
export interface DidAuthProof {
  /** The issuer DID's principal (a did:ethr public-key DID in its address form). */
  did: string
  /**
   * Address of the key that signed, when it is a secp256k1 key: its holder may act wherever that address is the owner.
   * Undefined for a P-256 or Ed25519 key.
   */
  address?: string
  /**
   * The key id (`keys/key-ids.ts`) of a P-256 or Ed25519 key that signed: its RFC 9278 JWK thumbprint URI. Undefined for
   * a secp256k1 key (its key id is `address`).
   */
  key?: string
  /**
   * Whether that key is the owner key of the DID's current document: a did:ethr `#controller`,
   * or a public-key DID's `#controllerKey` (listed only while the key's address owns the DID).
   */
  byOwner: boolean
  /**
   * Whether the issuer is a DID of another method than did:ethr (did:key, did:jwk, did:web) whose current document lists
   * the signing key under `authentication`: its holder controls it (DESIGN §4 "Wallet control"; for did:ethr control is
   * `byOwner`, and a delegate — `sigAuth` included — never controls).
   */
  byKey?: boolean
}

/** Verifies one token; resolves to its issuer's principal (see {@link DidAuthProof.did}) or rejects with 403 UNAUTHENTICATED. */
export async function verifyDidAuthToken(token: string, options: DidAuthOptions): Promise<string> {
  return (await verifyDidAuthProof(token, options)).did
}

/** Verifies one token; resolves to what it proves or rejects with 403 UNAUTHENTICATED. */
export async function verifyDidAuthProof(token: string, options: DidAuthOptions): Promise<DidAuthProof> {
  if (token.length > MAX_TOKEN) throw unauthenticated('invalid DID-auth token: too large')
  options = withRequestResolver(options)
  try {
    const verified = await verifyDidJwt(token, {
      resolver: options.resolver,
      audience: options.audience,
      keys: options.keys,
      skewSeconds: options.skewSeconds,
      maxLifetimeSeconds: options.maxLifetimeSeconds ?? 24 * 3600,
      now: options.now?.(),
      memo: options.memo,
    })
    const did = principalOf(verified.issuer)
    const control = parseEthrDid(verified.issuer) === undefined ? await controlByKey(verified, options.resolver) : undefined
    const key = verified.signerAddress === undefined ? control?.key : undefined
    return {
      did,
      ...(verified.signerAddress !== undefined && { address: verified.signerAddress }),
      ...(key !== undefined && { key }),
      byOwner: verified.signerAddress !== undefined && isOwnerMethod(verified.signer, did),
      ...(control?.byKey === true && { byKey: true }),
    }
  } catch (err) {
    if (err instanceof JwtRejected) throw unauthenticated(`invalid DID-auth token: ${err.reason}`)
    throw err
  }
}

/**
 * For an issuer of another method than did:ethr: the key id of the method that signed, and whether the issuer's current
 * document lists that method under `authentication` (the document the verifier read: did:key and did:jwk offline,
 * did:web from the request's resolver, which read it once for this request).
 */
async function controlByKey(verified: VerifiedJwt, resolver: Resolvable): Promise<{ key?: string; byKey: boolean }> {
  const { didDocument } = await resolver.resolve(verified.issuer)
  if (!didDocument) return { byKey: false }
  const signer = absoluteMethodId(verified.signer, didDocument.id)
  // Every method the document gives under the signer's id: one id naming two keys names neither (the key that signed
  // could be the other one).
  const named = [didDocument.verificationMethod, didDocument.publicKey, didDocument.authentication, didDocument.assertionMethod]
    .flatMap((list) => list ?? [])
    .filter((m): m is Exclude<typeof m, string> => typeof m !== 'string' && absoluteMethodId(m.id, didDocument.id) === signer)
  const keys = new Set(named.map((m) => keyIdOfMethod(m)))
  if (keys.size !== 1) return { byKey: false }
  const [key] = keys
  if (key === undefined) return { byKey: false }
  return { key, byKey: authenticationKeyIds(didDocument).some((m) => m.methodId === signer && m.keyId === key) }
}

const absoluteMethodId = (id: string, did: string) => (id.startsWith('#') ? `${did}${id}` : id)

/** Whether verification method `id` is the owner key of did:ethr principal `did`: its `#controller` or `#controllerKey`. */
function isOwnerMethod(id: string, did: string): boolean {
  const hash = id.indexOf('#')
  const fragment = id.slice(hash + 1)
  return hash > 0 && (fragment === 'controller' || fragment === 'controllerKey') && parseEthrDid(id.slice(0, hash))?.principal === did
}

/** `options` with the resolver of one request (see {@link DidAuthOptions.resolverForRequest}). */
export function withRequestResolver(options: DidAuthOptions): DidAuthOptions {
  if (options.resolverForRequest === undefined) return options
  const { resolverForRequest, ...rest } = options
  return { ...rest, resolver: resolverForRequest() }
}

const tokensOf = (header: string | undefined) =>
  (header ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)

/** Verifies a header that may hold several comma-separated tokens; returns what each proves. */
export async function verifyDidAuthHeader(header: string | undefined, options: DidAuthOptions): Promise<DidAuthProof[]> {
  const tokens = tokensOf(header)
  if (tokens.length === 0) throw unauthenticated('missing DID Auth Token')
  if (tokens.length > MAX_TOKENS) throw unauthenticated(`invalid DID-auth token: at most ${MAX_TOKENS} per request`)
  const request = withRequestResolver(options)
  return Promise.all(tokens.map((t) => verifyDidAuthProof(t, request)))
}

/**
 * What the valid tokens of an optional header prove, ignoring the invalid ones (expired,
 * forged, unknown issuer) and any beyond the first ten: for operations that need no DID-auth
 * token but may count the ones sent as MPC member approvals.
 */
export async function validDidAuthProofs(header: string | undefined, options: DidAuthOptions): Promise<DidAuthProof[]> {
  const request = withRequestResolver(options)
  const settled = await Promise.allSettled(
    tokensOf(header)
      .slice(0, MAX_TOKENS)
      .map((t) => verifyDidAuthProof(t, request)),
  )
  const proofs: DidAuthProof[] = []
  for (const result of settled) {
    if (result.status === 'fulfilled') proofs.push(result.value)
    else if (!(result.reason instanceof IdentityError)) throw result.reason
  }
  return proofs
}

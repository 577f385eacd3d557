/**
 * DID-auth tokens (`x-did-auth`, and the Access Token JWT form of `Authorization`): JWTs
 * (ES256K, ES256K-R, ES256, EdDSA) signed by a key that controls the issuer DID (see credentials/jwt-verifier for the
 * rules). Any failure is 403 UNAUTHENTICATED with a short reason.
 */
import type { Resolvable } from 'did-resolver'
import { IdentityError, unauthenticated } from '../errors.js'
import { parseEthrDid, principalOf } from '../did/methods/ethr/index.js'
import { JwtRejected, verifyDidJwt, type VerifiedJwt } from '../proofs/jwt-verifier.js'
import { OFFLINE_METHODS } from '../did/methods/index.js'
import type { KnownKeys } from '../proofs/known-keys.js'
import type { SignatureMemo } from '../proofs/signature-memo.js'

export interface DidAuthOptions {
  resolver: Resolvable
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

/** What a verified DID-auth token proves: control of a DID, by holding the key of an address. */
export interface DidAuthProof {
  /** The issuer DID's principal (a did:ethr public-key DID in its address form). */
  did: string
  /**
   * Address of the key that signed, when it is a secp256k1 key: its holder may act wherever that address is the owner.
   * Undefined for a P-256 or Ed25519 key (a did:key or did:jwk holder signing ES256 or EdDSA).
   */
  address?: string
  /**
   * Whether that key is the owner key of the DID's current document: a did:ethr `#controller`,
   * or a public-key DID's `#controllerKey` (listed only while the key's address owns the DID).
   */
  byOwner: boolean
  /**
   * Whether the issuer is a DID derived from its key (did:key, did:jwk) whose document lists the signing key under
   * `authentication`: its holder controls it.
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
    return {
      did,
      ...(verified.signerAddress !== undefined && { address: verified.signerAddress }),
      byOwner: verified.signerAddress !== undefined && isOwnerMethod(verified.signer, did),
      ...((await signedByAuthenticationKey(verified)) && { byKey: true }),
    }
  } catch (err) {
    if (err instanceof JwtRejected) throw unauthenticated(`invalid DID-auth token: ${err.reason}`)
    throw err
  }
}

/** Whether the issuer is a did:key / did:jwk DID and the method that signed is one of its `authentication` keys. */
async function signedByAuthenticationKey(verified: VerifiedJwt): Promise<boolean> {
  const method = OFFLINE_METHODS.find((m) => verified.issuer.startsWith(`did:${m.name}:`))
  if (method === undefined) return false
  return (await method.controllingKeys(verified.issuer)).some((key) => key.methodId === verified.signer)
}

/** Whether verification method `id` is the owner key of did:ethr principal `did`: its `#controller` or `#controllerKey`. */
function isOwnerMethod(id: string, did: string): boolean {
  const hash = id.indexOf('#')
  const fragment = id.slice(hash + 1)
  return hash > 0 && (fragment === 'controller' || fragment === 'controllerKey') && parseEthrDid(id.slice(0, hash))?.principal === did
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
  return Promise.all(tokens.map((t) => verifyDidAuthProof(t, options)))
}

/**
 * What the valid tokens of an optional header prove, ignoring the invalid ones (expired,
 * forged, unknown issuer) and any beyond the first ten: for operations that need no DID-auth
 * token but may count the ones sent as MPC member approvals.
 */
export async function validDidAuthProofs(header: string | undefined, options: DidAuthOptions): Promise<DidAuthProof[]> {
  const settled = await Promise.allSettled(
    tokensOf(header)
      .slice(0, MAX_TOKENS)
      .map((t) => verifyDidAuthProof(t, options)),
  )
  const proofs: DidAuthProof[] = []
  for (const result of settled) {
    if (result.status === 'fulfilled') proofs.push(result.value)
    else if (!(result.reason instanceof IdentityError)) throw result.reason
  }
  return proofs
}

/**
 * Verification of ES256K / ES256K-R, ES256 and EdDSA JWTs issued by DIDs, with the rules of
 * did-jwt's `verifyJWT` (a differential test holds the two to the same answers): the signature
 * must come from a verification method of the issuer's DID document whose key the algorithm
 * signs with (ES256K: secp256k1 — the owner's `#controller`, a delegate, or a listed public key;
 * ES256: P-256; EdDSA: Ed25519, as did:key and did:jwk documents list them); `exp` in the future; `nbf`/`iat` not in
 * the future, within the allowed skew; `aud`, when present, must name this audience.
 *
 * It differs from did-jwt in speed only: ES256 and EdDSA signatures are checked in OpenSSL (each algorithm's row
 * of `jose-algorithms.ts`), and ES256K signatures by keys the service knows are checked
 * against the key in OpenSSL, instead of recovering the signer in pure JavaScript (which runs
 * at about half the raw verify rate); a signer recovered once is remembered by the directory,
 * and the method of the issuer that signed last is tried first.
 *
 * With `audience: false`, `checkTimes: false` and `proofPurpose: 'assertionMethod'` it checks
 * what did-jwt-vc's `verifyCredential` has did-jwt check of a VC-JWT (with the time and
 * audience policies off).
 */
import type { JWTPayload } from 'did-jwt'
import type { DIDDocument, Resolvable, VerificationMethod } from 'did-resolver'
import { publicKeyObject, recoverEs256kKeys } from '../keys/es256k.js'
import type { SignatureAlgorithm } from '../keys/key-types.js'
import { addressOf } from '../keys/secp256k1.js'
import type { KnownKeys } from './known-keys.js'
import { eip55Address } from '../did/methods/ethr/index.js'
import type { SignatureMemo } from './signature-memo.js'
import { secp256k1KeyHex } from './signing-keys.js'
import { JOSE_VERIFIERS, joseVerifierOf } from './jose-algorithms.js'

/** Why a JWT was not accepted. `reason` is short and carries no secret. */
export class JwtRejected extends Error {
  constructor(readonly reason: string) {
    super(reason)
    this.name = 'JwtRejected'
  }
}

export interface JwtVerifyOptions {
  resolver: Resolvable
  /** This service's audience: a token with `aud` must name it; `false`: `aud` is not checked. */
  audience: string | false
  /** Allowed clock skew, seconds (default 60). */
  skewSeconds?: number
  /** Current time, ms. */
  now?: number
  /**
   * Known public keys by address (the service's wallets and delegate keys); it learns recovered signers and the last signing method
   * when it can.
   */
  keys?: Pick<KnownKeys, 'keyFor' | 'keyFromHex'> & Partial<Pick<KnownKeys, 'learn' | 'lastSigner' | 'noteSigner'>>
  /** Check `exp`, `nbf` and `iat` (default true); false: times are the caller's business. */
  checkTimes?: boolean
  /**
   * Only the methods the document lists under this relationship may sign (a document without
   * the property: all of them, as did-jwt has it). Default: any secp256k1 method.
   */
  proofPurpose?: 'assertionMethod' | 'authentication'
  /** Require an `exp` claim (default true). */
  requireExp?: boolean
  /**
   * Longest lifetime (`exp` − `iat`, seconds) accepted; tokens over it, or without `iat`, are
   * rejected. Default: no cap (did-jwt's behaviour).
   */
  maxLifetimeSeconds?: number
  /**
   * Tokens whose signature was already checked (DID-auth tokens, presented with every request):
   * a remembered signer is trusted while the issuer's current document lists its method with
   * the same key; every other rule is checked again. Leave it out to check every signature.
   */
  memo?: SignatureMemo
}

export interface VerifiedJwt {
  header: { alg: string; typ?: string; [k: string]: unknown }
  payload: JWTPayload
  signature: string
  /** The signing input (header.payload). */
  data: string
  issuer: string
  /** Id of the verification method that made the signature. */
  signer: string
  /** EIP-55 address of the key that made the signature; undefined for a key that is not secp256k1 (ES256, EdDSA). */
  signerAddress?: string
}

const SECP256K1_METHODS = new Set([
  'EcdsaSecp256k1RecoveryMethod2020',
  'EcdsaSecp256k1VerificationKey2019',
  'Secp256k1VerificationKey2018',
  'Secp256k1SignatureVerificationKey2018',
  'EcdsaPublicKeySecp256k1',
])

/** Method types that carry a key of any type (did:key's `Multikey`, did:jwk's `JsonWebKey2020`): ES256K takes their secp256k1 keys. */
const GENERIC_METHODS = new Set(['Multikey', 'JsonWebKey2020'])

/** Whether ES256K may check `vm`: a secp256k1 method type, or a generic one whose key is secp256k1. */
const isSecp256k1Method = (vm: VerificationMethod): boolean =>
  SECP256K1_METHODS.has(vm.type) || (GENERIC_METHODS.has(vm.type) && secp256k1KeyHex(vm) !== undefined)

export async function verifyDidJwt(jwt: string, options: JwtVerifyOptions): Promise<VerifiedJwt> {
  const { header, payload, signature, data } = decodeJwt(jwt)
  if (joseVerifierOf(header.alg) === undefined) throw new JwtRejected(`unsupported algorithm ${String(header.alg).slice(0, 20)}`)
  const alg = header.alg as SignatureAlgorithm
  if (typeof payload.iss !== 'string' || payload.iss.length === 0) throw new JwtRejected('token has no issuer (iss)')
  // A DID URL (`?versionId=`, a path, a fragment) would be checked against some other document
  // than the DID's current one, e.g. a past version listing a revoked delegate.
  if (!PLAIN_DID.test(payload.iss)) throw new JwtRejected('issuer (iss) must be a DID without path, query or fragment')
  if (options.checkTimes !== false)
    checkTimes(payload, Math.floor((options.now ?? Date.now()) / 1000), options.skewSeconds ?? 60, options.requireExp ?? true)
  if (options.maxLifetimeSeconds !== undefined) checkLifetime(payload, options.maxLifetimeSeconds)
  if (options.audience !== false) checkAudience(payload.aud, options.audience)

  const sig = Buffer.from(signature, 'base64url')
  if (sig.length !== (alg === 'ES256K-R' ? 65 : 64)) throw new JwtRejected('signature does not match the issuer DID')
  const { didDocument } = await options.resolver.resolve(payload.iss)
  if (!didDocument) throw new JwtRejected('issuer DID could not be resolved')
  const methods = options.proofPurpose ? methodsFor(didDocument, options.proofPurpose) : (didDocument.verificationMethod ?? [])
  const verified = (signer: string, signerAddress?: string): VerifiedJwt => ({
    header: header as VerifiedJwt['header'],
    payload,
    signature,
    data,
    issuer: payload.iss!,
    signer,
    ...(signerAddress !== undefined && { signerAddress }),
  })
  if (alg === 'ES256' || alg === 'EdDSA') {
    const vm = joseSigner(alg, data, sig, methods)
    if (!vm) throw new JwtRejected('signature does not match the issuer DID')
    return verified(vm.id)
  }
  const remembered = options.memo?.recall(jwt)
  if (remembered && methods.some((vm) => vm.id === remembered.method && isSecp256k1Method(vm) && keyIdOf(vm) === remembered.key)) {
    return verified(remembered.method, remembered.address)
  }
  // The hint is per purpose: a DID's tokens and its credentials may be signed by different keys.
  const hint = `${options.proofPurpose ?? 'any'} ${payload.iss}`
  const found = await findSigner(alg, data, sig, preferred(methods, options.keys?.lastSigner?.(hint)), options.keys)
  if (!found) throw new JwtRejected('signature does not match the issuer DID')
  options.keys?.noteSigner?.(hint, found.vm.id)
  const key = keyIdOf(found.vm)
  if (key !== undefined) options.memo?.remember(jwt, { method: found.vm.id, key, address: found.address })
  return verified(found.vm.id, found.address)
}

const BASE64URL = /^[A-Za-z0-9_-]+$/

/**
 * Header, payload and signature of a compact JWS with JSON header and payload, as did-jwt's
 * `decodeJWT(jwt, false)` reads it (natively). @throws {JwtRejected} 'malformed token'
 */
export function decodeJwt(jwt: string): { header: Record<string, unknown>; payload: JWTPayload; signature: string; data: string } {
  const parts = jwt.split('.')
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) throw new JwtRejected('malformed token')
  const json = (part: string): Record<string, unknown> => {
    let value: unknown
    try {
      value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
    } catch {
      throw new JwtRejected('malformed token')
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JwtRejected('malformed token')
    return value as Record<string, unknown>
  }
  return { header: json(parts[0]), payload: json(parts[1]), signature: parts[2], data: `${parts[0]}.${parts[1]}` }
}

/** What identifies a method's key: its public key (hex, lowercase, no 0x) or the address it names. */
function keyIdOf(vm: VerificationMethod): string | undefined {
  const publicKeyHex = vm.publicKeyHex || secp256k1KeyHex(vm)
  return publicKeyHex ? publicKeyHex.replace(/^0x/, '').toLowerCase() : accountAddress(vm)
}

/** `did:<method>:<method-specific-id>` as DID Core's syntax allows it, nothing after. */
const PLAIN_DID =
  /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})$/

function checkTimes(payload: JWTPayload, now: number, skew: number, requireExp: boolean): void {
  for (const claim of ['exp', 'nbf', 'iat'] as const) {
    if (payload[claim] !== undefined && typeof payload[claim] !== 'number') throw new JwtRejected(`malformed ${claim}`)
  }
  if (payload.nbf !== undefined && payload.nbf > now + skew) throw new JwtRejected('not yet valid (nbf)')
  if (payload.iat !== undefined && payload.iat > now + skew) throw new JwtRejected('not yet valid (iat in the future)')
  if (payload.exp === undefined) {
    if (requireExp) throw new JwtRejected('token has no expiry (exp)')
  } else if (payload.exp <= now - skew) {
    throw new JwtRejected('expired')
  }
}

function checkLifetime(payload: JWTPayload, max: number): void {
  if (payload.iat === undefined || payload.exp === undefined) throw new JwtRejected('token needs iat and exp')
  if (payload.exp - payload.iat > max) throw new JwtRejected(`lifetime over ${max} seconds`)
}

function checkAudience(aud: JWTPayload['aud'], audience: string): void {
  if (aud === undefined) return
  const list = Array.isArray(aud) ? aud : [aud]
  if (!list.includes(audience)) throw new JwtRejected('audience does not match this service')
}

/** The methods `document` lists under `purpose` (by id or embedded); all of them when it has no such property. */
function methodsFor(document: DIDDocument, purpose: 'assertionMethod' | 'authentication'): VerificationMethod[] {
  const all = [...(document.verificationMethod ?? []), ...(document.publicKey ?? [])]
  const listed = document[purpose]
  if (!Object.prototype.hasOwnProperty.call(document, purpose) || listed === undefined) return all
  return listed.flatMap((m) => (typeof m === 'string' ? all.filter((vm) => vm.id === m).slice(0, 1) : [m]))
}

/** `methods` with the one whose id is `first` moved to the front (the order is the only change). */
function preferred(methods: VerificationMethod[], first: string | undefined): VerificationMethod[] {
  const i = first === undefined ? -1 : methods.findIndex((vm) => vm.id === first)
  return i <= 0 ? methods : [methods[i], ...methods.slice(0, i), ...methods.slice(i + 1)]
}

/** The verification method whose key made the signature, if any. */
async function findSigner(
  alg: 'ES256K' | 'ES256K-R',
  data: string,
  sig: Uint8Array,
  methods: VerificationMethod[],
  keys: JwtVerifyOptions['keys'],
): Promise<{ vm: VerificationMethod; address: string } | undefined> {
  let recovered: Array<{ address: string; publicKey: Uint8Array }> | undefined
  for (const vm of methods) {
    if (!isSecp256k1Method(vm)) continue
    const publicKeyHex = vm.publicKeyHex || secp256k1KeyHex(vm)
    if (publicKeyHex) {
      const key = keyObjectOf(publicKeyHex, keys)
      if (key && JOSE_VERIFIERS[alg].verify(data, sig, key))
        return { vm, address: addressOf(Buffer.from(publicKeyHex.replace(/^0x/, ''), 'hex')) }
      continue
    }
    const address = accountAddress(vm)
    if (!address) continue
    const known = await keys?.keyFor(address)
    if (known) {
      if (JOSE_VERIFIERS[alg].verify(data, sig, known)) return { vm, address }
      continue
    }
    recovered ??= recoverEs256kKeys(data, sig)
    const signer = recovered.find((k) => k.address === address)
    if (signer) {
      keys?.learn?.(address, signer.publicKey)
      return { vm, address }
    }
  }
  return undefined
}

/** The method among `methods` whose P-256 (ES256) or Ed25519 (EdDSA) key made the signature, if any. */
function joseSigner(alg: 'ES256' | 'EdDSA', data: string, sig: Uint8Array, methods: VerificationMethod[]): VerificationMethod | undefined {
  const verifier = JOSE_VERIFIERS[alg]
  return methods.find((vm) => {
    const key = verifier.keyOf(vm)
    return key !== undefined && verifier.verify(data, sig, key)
  })
}

/** The key object of a document's `publicKeyHex`, or undefined when it is not a valid secp256k1 key (the method is skipped). */
function keyObjectOf(publicKeyHex: string, keys: JwtVerifyOptions['keys']) {
  try {
    return keys ? keys.keyFromHex(publicKeyHex) : publicKeyObject(publicKeyHex)
  } catch {
    return undefined
  }
}

/** The EIP-55 address a verification method names (`ethereumAddress` or a CAIP-10 `blockchainAccountId`). */
function accountAddress(vm: VerificationMethod): string | undefined {
  const raw = vm.ethereumAddress ?? vm.blockchainAccountId?.split(':').pop()?.split('@')[0]
  return raw ? eip55Address(raw) : undefined
}

/**
 * One check of a compact JWS signed by a DID: the signer's DID (the issuer, else the DID of `kid`) is resolved, the
 * verification methods its **current** document lists under the proof purpose (default `assertionMethod`) and that
 * `kid` names are tried, each with the key type `alg` needs, by the algorithm's verifier (`jose-algorithms.ts`). A secp256k1 method
 * that names only an address (did:ethr's `#controller`) signed when a key recovered from the ES256K signature has that
 * address. `none`, MACs and algorithms outside the allow-list are refused. The outcome is named; nothing throws.
 *
 * The SD-JWT VC codec (issuer signature) and the Token Status List verifier (`kid`) check their JWS here.
 */
import type { DIDDocument, Resolvable, VerificationMethod } from 'did-resolver'
import { eip55Address } from '../did/methods/ethr/index.js'
import { recoverEs256kKeys } from '../keys/es256k.js'
import type { SignatureAlgorithm } from '../keys/key-types.js'
import { JOSE_VERIFIERS } from './jose-algorithms.js'
import { methodsUnder } from './signing-keys.js'

/** The algorithms a JWS may be signed under (ES256K-R, `none`, MACs are not). */
export const JWS_BY_DID_ALGORITHMS: readonly SignatureAlgorithm[] = ['ES256', 'ES256K', 'EdDSA']

/** Most verification methods tried for one signature (a document listing more is read up to this many). */
const MAX_METHODS_TRIED = 16

/** The longest DID or `kid` read. */
const MAX_ID_LENGTH = 2_048

/** `did:<method>:<id>` without path, query or fragment. */
const PLAIN_DID = /^did:[a-z0-9]+:[A-Za-z0-9._:%-]*[A-Za-z0-9._%-]$/

/** `did:<method>:<id>#<fragment>`: a DID without path, query or parameters (they would name another document). */
const DID_URL_WITH_FRAGMENT = /^(did:[a-z0-9]+:[A-Za-z0-9._:%-]*[A-Za-z0-9._%-])#[^#\s]+$/

/** The compact JWS checked: its protected header's `alg` and `kid`, its signing input and its signature's bytes. */
export interface JwsByDid {
  alg: unknown
  kid: unknown
  /** The JWS signing input (`<header>.<payload>`, base64url). */
  data: string
  signature: Uint8Array
  /** The DID that must have signed (a credential's `iss`); when absent, the DID of `kid`, which must then be a DID URL. */
  issuer?: unknown
}

/** How {@link verifyJwsByDid} checks. */
export interface JwsByDidOptions {
  resolver: Resolvable
  /** The verification relationship the key must be listed under (default `assertionMethod`). */
  purpose?: 'assertionMethod' | 'authentication'
  /** The algorithms accepted (default {@link JWS_BY_DID_ALGORITHMS}; `none` is never). */
  algorithms?: readonly SignatureAlgorithm[]
}

/** Why a JWS was not verified: its `alg`, its issuer DID, its `kid`, the DID's resolution, or the signature. */
export type JwsByDidReason = 'alg' | 'issuer' | 'kid' | 'unresolved' | 'signature'

/** The outcome: the DID and the verification method (absolute DID URL) that signed, or why none did. */
export type JwsByDidOutcome = { verified: true; did: string; method: string } | JwsByDidRefusal

/** The refusal of a JWS, and why. */
export type JwsByDidRefusal = { verified: false; reason: JwsByDidReason; error: string; did?: string }

/** The methods of a resolved DID that may have signed a JWS, before its signature is checked; or why there are none. */
export type JwsSigners =
  { found: true; did: string; alg: SignatureAlgorithm; methods: VerificationMethod[] } | ({ found: false } & JwsByDidRefusal)

/** Whether `jws` was signed by its issuer DID (or the DID of its `kid`) under `options.purpose`. */
export async function verifyJwsByDid(jws: JwsByDid, options: JwsByDidOptions): Promise<JwsByDidOutcome> {
  const signers = await jwsSigners(jws, options)
  if (!signers.found) {
    const { found: _found, ...refusal } = signers
    return refusal
  }
  const signer = signers.methods.find((vm) => signedByMethod(vm, signers.alg, jws.data, jws.signature))
  if (signer) return { verified: true, did: signers.did, method: absoluteId(signers.did, signer.id) }
  const by = jws.kid === undefined ? '' : ' that kid names'
  return {
    verified: false,
    reason: 'signature',
    did: signers.did,
    error: `the signature is by no ${purposeOf(options)} key of the DID${by}`,
  }
}

/**
 * The verification methods that may have signed `jws`: its DID resolved now, the methods listed under the purpose, of
 * them the one `kid` names (all, up to 16, without `kid`), each with a key of the type `alg` needs.
 */
export async function jwsSigners(jws: Omit<JwsByDid, 'data' | 'signature'>, options: JwsByDidOptions): Promise<JwsSigners> {
  const { alg, kid, issuer } = jws
  const algorithms = options.algorithms ?? JWS_BY_DID_ALGORITHMS
  if (typeof alg !== 'string' || !(algorithms as readonly string[]).includes(alg)) {
    const error = alg === 'none' ? 'alg none is refused' : `unsupported algorithm ${String(alg).slice(0, 20)} (${algorithms.join(', ')})`
    return refused('alg', error)
  }
  let did: string
  if (issuer === undefined) {
    if (typeof kid !== 'string' || kid.length > MAX_ID_LENGTH) return refused('kid', 'kid must be a DID URL')
    const ofKid = DID_URL_WITH_FRAGMENT.exec(kid)?.[1]
    if (ofKid === undefined) return refused('kid', 'kid must be a DID URL with a fragment')
    did = ofKid
  } else {
    if (typeof issuer !== 'string' || issuer.length > MAX_ID_LENGTH || !PLAIN_DID.test(issuer))
      return refused('issuer', 'the issuer is not a DID without path, query or fragment')
    did = issuer
    if (kid !== undefined && (typeof kid !== 'string' || kid.length > MAX_ID_LENGTH || !(kid.startsWith(`${did}#`) || kid.startsWith('#'))))
      return refused('kid', 'kid is not a verification method of the issuer')
  }
  let document: DIDDocument | null
  try {
    document = (await options.resolver.resolve(did)).didDocument
  } catch {
    document = null
  }
  if (!document) return { ...refused('unresolved', 'the DID could not be resolved'), did }
  const purpose = purposeOf(options)
  const named = methodsUnder(document, purpose).filter((vm) => kid === undefined || absoluteId(did, vm.id) === absoluteId(did, kid))
  if (named.length === 0)
    return { ...refused('kid', `kid is not a verification method the DID's current document lists under ${purpose}`), did }
  const methods = named.filter((vm) => canSign(vm, alg as SignatureAlgorithm)).slice(0, MAX_METHODS_TRIED)
  if (methods.length === 0)
    return { ...refused('kid', `no ${purpose} key of the DID${kid === undefined ? '' : ' that kid names'} signs with ${alg}`), did }
  return { found: true, did, alg: alg as SignatureAlgorithm, methods }
}

/**
 * Whether `signature` (JOSE form) signs `data` under `alg` by `vm`'s key — for a secp256k1 method naming only an
 * address, by a key recovered from the signature with that address. False for a key OpenSSL refuses.
 */
export function signedByMethod(vm: VerificationMethod, alg: SignatureAlgorithm, data: string, signature: Uint8Array): boolean {
  const verifier = JOSE_VERIFIERS[alg]
  const key = verifier.keyOf(vm)
  if (key !== undefined) return verifier.verify(data, signature, key)
  const address = alg === 'ES256K' ? addressOfMethod(vm) : undefined
  return address !== undefined && signature.length === 64 && recoverEs256kKeys(data, signature).some((k) => k.address === address)
}

/** Whether `vm` has a key `alg` signs with, or (ES256K) names the address of one. */
function canSign(vm: VerificationMethod, alg: SignatureAlgorithm): boolean {
  return JOSE_VERIFIERS[alg].keyOf(vm) !== undefined || (alg === 'ES256K' && addressOfMethod(vm) !== undefined)
}

const refused = (reason: JwsByDidReason, error: string): JwsSigners => ({ found: false, verified: false, reason, error })

const purposeOf = (options: JwsByDidOptions) => options.purpose ?? 'assertionMethod'

const absoluteId = (did: string, id: string): string => (id.startsWith('#') ? `${did}${id}` : id)

/** The secp256k1 method types that may name a key by its address alone (did:ethr's `#controller`). */
const ADDRESS_METHODS: ReadonlySet<string> = new Set(['EcdsaSecp256k1RecoveryMethod2020', 'EcdsaSecp256k1VerificationKey2019'])

/** The EIP-55 address a method names (`ethereumAddress`, or a CAIP-10 `blockchainAccountId`); undefined when none. */
function addressOfMethod(vm: VerificationMethod): string | undefined {
  if (!ADDRESS_METHODS.has(vm.type)) return undefined
  const raw = vm.ethereumAddress ?? vm.blockchainAccountId?.split(':').pop()?.split('@')[0]
  try {
    return raw === undefined ? undefined : eip55Address(raw)
  } catch {
    return undefined
  }
}

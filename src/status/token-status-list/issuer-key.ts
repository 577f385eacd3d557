/**
 * The key a Status List Token's `kid` names: a DID URL whose DID's current document lists that verification method
 * under `assertionMethod` (the relationship a credential's issuer signs under), with a key of a type the token's
 * algorithm signs with — or, for `ES256K`, a secp256k1 method that names only the key's address (did:ethr's
 * `#controller`), whose signer is recovered from the signature.
 */
import type { KeyObject } from 'node:crypto'
import type { Resolvable, VerificationMethod } from 'did-resolver'
import { eip55Address } from '../../did/methods/ethr/index.js'
import { publicKeyObject, recoverEs256kKeys } from '../../keys/es256k.js'
import type { PublicJwk, SignatureAlgorithm } from '../../keys/key-types.js'
import { verifyJose } from '../../keys/verify-jose.js'
import { joseKeyOf } from '../../proofs/jose-keys.js'
import { methodsUnder, secp256k1KeyHex } from '../../proofs/signing-keys.js'
import { TokenStatusListRejected } from './rejected.js'

/** `did:<method>:<id>#<fragment>`: a DID without path, query or parameters (they would name another document). */
const DID_URL_WITH_FRAGMENT = /^(did:[a-z0-9]+:[A-Za-z0-9._:%-]+)#[^#\s]+$/

/** The longest `kid` read. */
const MAX_KID_LENGTH = 2_048

/**
 * The signer DID of `kid` and its key — or, for a secp256k1 method naming only an address, the address — as `resolver`
 * resolves its DID now.
 */
export type IssuerKey = { did: string; publicJwk: PublicJwk } | { did: string; address: string }

/**
 * The key `kid` names, of a type `alg` signs with.
 * @throws {TokenStatusListRejected} `kid`: not a DID URL with a fragment, its DID unresolved, its document listing no
 * such method under `assertionMethod`, or the method's key missing or of another type than `alg`'s
 */
export async function issuerKeyOf(kid: unknown, alg: SignatureAlgorithm, resolver: Resolvable): Promise<IssuerKey> {
  if (typeof kid !== 'string' || kid.length > MAX_KID_LENGTH) throw new TokenStatusListRejected('kid', 'kid must be a DID URL')
  const did = DID_URL_WITH_FRAGMENT.exec(kid)?.[1]
  if (did === undefined) throw new TokenStatusListRejected('kid', 'kid must be a DID URL with a fragment')
  let resolved: Awaited<ReturnType<Resolvable['resolve']>>
  try {
    resolved = await resolver.resolve(did)
  } catch {
    throw new TokenStatusListRejected('kid', 'the DID of kid could not be resolved')
  }
  const document = resolved.didDocument
  if (!document) throw new TokenStatusListRejected('kid', 'the DID of kid could not be resolved')
  const absolute = (id: string) => (id.startsWith('#') ? `${did}${id}` : id)
  const method = methodsUnder(document, 'assertionMethod').find((vm) => absolute(vm.id) === kid)
  if (!method) throw new TokenStatusListRejected('kid', "kid is not an assertionMethod of its DID's current document")
  const publicJwk = publicJwkOfMethod(method, alg)
  if (publicJwk !== undefined) return { did, publicJwk }
  const address = alg === 'ES256K' && SECP256K1_ADDRESS_METHODS.has(method.type) ? addressOfMethod(method) : undefined
  if (address !== undefined) return { did, address }
  throw new TokenStatusListRejected('kid', "the key kid names is not a key the token's algorithm signs with")
}

/** Whether `signature` (base64url) signs `data` (the JWS signing input) under `alg` by `key`; false for a key OpenSSL refuses. */
export function isSignedBy(key: IssuerKey, alg: SignatureAlgorithm, data: string, signature: string): boolean {
  const bytes = Buffer.from(signature, 'base64url')
  if ('address' in key) return bytes.length === 64 && recoverEs256kKeys(data, bytes).some((k) => k.address === key.address)
  try {
    return verifyJose(key.publicJwk, alg, Buffer.from(data, 'utf8'), bytes)
  } catch {
    return false
  }
}

/** The secp256k1 method types that may name a key by its address alone. */
const SECP256K1_ADDRESS_METHODS: ReadonlySet<string> = new Set(['EcdsaSecp256k1RecoveryMethod2020', 'EcdsaSecp256k1VerificationKey2019'])

/** The EIP-55 address a method names (`ethereumAddress`, or a CAIP-10 `blockchainAccountId`); undefined when none. */
function addressOfMethod(vm: VerificationMethod): string | undefined {
  const raw = vm.ethereumAddress ?? vm.blockchainAccountId?.split(':').pop()?.split('@')[0]
  return raw === undefined ? undefined : eip55Address(raw)
}

/**
 * The public JWK of `vm`'s key when it is a key `alg` signs with (`publicKeyJwk`, `publicKeyMultibase`,
 * `publicKeyBase58`, `publicKeyHex`, as the JWT verifier reads them); undefined otherwise.
 */
function publicJwkOfMethod(vm: VerificationMethod, alg: SignatureAlgorithm): PublicJwk | undefined {
  let key: KeyObject | undefined
  if (alg === 'ES256' || alg === 'EdDSA') key = joseKeyOf(vm, alg)
  else {
    const hex = vm.publicKeyHex || secp256k1KeyHex(vm)
    try {
      key = hex ? publicKeyObject(hex) : undefined
    } catch {
      key = undefined
    }
  }
  return key?.export({ format: 'jwk' }) as PublicJwk | undefined
}

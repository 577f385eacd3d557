/**
 * The issuer's signature of an SD-JWT VC, through DID resolution: `iss` is a DID, `kid` (when given) one of its
 * verification methods, and the signature verifies under a key the issuer's current document lists under
 * `assertionMethod`, of the type `alg` needs — checked in OpenSSL through the proof code's key readers.
 */
import type { KeyObject } from 'node:crypto'
import type { Resolvable, VerificationMethod } from 'did-resolver'
import type { KeyType } from '../../../keys/key-types.js'
import { eip55Address } from '../../../did/methods/ethr/index.js'
import { publicKeyObject, recoverEs256kKeys, verifyEs256k } from '../../../keys/es256k.js'
import { joseKeyOf, verifyJose } from '../../../proofs/jose-keys.js'
import { methodsUnder, secp256k1KeyHex } from '../../../proofs/signing-keys.js'

/** Most verification methods tried for one signature (a document listing more is read up to this many). */
const MAX_METHODS_TRIED = 16

/** `did:<method>:<id>` without path, query or fragment. */
const PLAIN_DID = /^did:[a-z0-9]+:[A-Za-z0-9._:%-]*[A-Za-z0-9._%-]$/

/** The outcome: the verification method that signed, or why none did. */
export type IssuerSignature = { verified: true; method: string } | { verified: false; error: string }

/** Whether the JWS signing input `data` with `signature` was signed by `iss` (under `kid` when given), with `alg` of `keyType`. */
export async function verifyIssuerSignature(
  jws: { alg: string; keyType: KeyType; data: string; signature: Uint8Array; iss: unknown; kid: unknown },
  resolver: Resolvable,
): Promise<IssuerSignature> {
  const { iss, kid } = jws
  if (typeof iss !== 'string' || iss.length > 2048 || !PLAIN_DID.test(iss))
    return { verified: false, error: 'the issuer (iss) is not a DID without path, query or fragment' }
  if (kid !== undefined && (typeof kid !== 'string' || !(kid.startsWith(`${iss}#`) || kid.startsWith('#'))))
    return { verified: false, error: 'kid is not a verification method of the issuer (iss)' }
  let document
  try {
    document = (await resolver.resolve(iss)).didDocument
  } catch {
    document = null
  }
  if (!document) return { verified: false, error: 'the issuer DID could not be resolved' }
  const absolute = (id: string) => (id.startsWith('#') ? `${iss}${id}` : id)
  const methods = methodsUnder(document, 'assertionMethod')
    .filter((vm) => kid === undefined || absolute(vm.id) === absolute(kid))
    .slice(0, MAX_METHODS_TRIED)
  const signer = methods.find((vm) => signs(vm, jws))
  return signer
    ? { verified: true, method: absolute(signer.id) }
    : { verified: false, error: 'the signature is by no assertion key of the issuer DID' + (kid === undefined ? '' : ' that kid names') }
}

const MAX_REMEMBERED = 10_000
const secp256k1Keys = new Map<string, KeyObject | null>()

/** The key object of a secp256k1 public key (hex), made once (bounded); undefined for a point off the curve. */
function secp256k1Key(hex: string): KeyObject | undefined {
  let key = secp256k1Keys.get(hex)
  if (key === undefined) {
    try {
      key = publicKeyObject(hex)
    } catch {
      key = null
    }
    if (secp256k1Keys.size >= MAX_REMEMBERED) secp256k1Keys.delete(secp256k1Keys.keys().next().value!)
    secp256k1Keys.set(hex, key)
  }
  return key ?? undefined
}

/** The secp256k1 method types that may name a key by its address alone (did:ethr's `#controller`). */
const ADDRESS_METHODS: ReadonlySet<string> = new Set(['EcdsaSecp256k1RecoveryMethod2020', 'EcdsaSecp256k1VerificationKey2019'])

/** The EIP-55 address a method names (`ethereumAddress`, or a CAIP-10 `blockchainAccountId`); undefined when none. */
function addressOfMethod(vm: VerificationMethod): string | undefined {
  if (!ADDRESS_METHODS.has(vm.type)) return undefined
  const raw = vm.ethereumAddress ?? vm.blockchainAccountId?.split(':').pop()?.split('@')[0]
  return raw === undefined ? undefined : eip55Address(raw)
}

/**
 * Whether `vm`'s key, of `jws.keyType`, made `jws.signature` over `jws.data`. A secp256k1 method naming only an address
 * (did:ethr's `#controller`) signed when a key recovered from the ES256K signature has that address.
 */
function signs(vm: VerificationMethod, jws: { alg: string; keyType: KeyType; data: string; signature: Uint8Array }): boolean {
  if (jws.keyType === 'secp256k1') {
    if (jws.signature.length !== 64) return false
    const hex = vm.publicKeyHex || secp256k1KeyHex(vm)
    const key = hex ? secp256k1Key(hex) : undefined
    if (key !== undefined) return verifyEs256k(jws.data, jws.signature, key)
    const address = addressOfMethod(vm)
    return address !== undefined && recoverEs256kKeys(jws.data, jws.signature).some((k) => k.address === address)
  }
  const alg = jws.keyType === 'P-256' ? 'ES256' : 'EdDSA'
  const key = joseKeyOf(vm, alg)
  return key !== undefined && verifyJose(alg, jws.data, jws.signature, key)
}

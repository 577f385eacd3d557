/**
 * The holder key of an SD-JWT VC (`cnf.jwk`, DESIGN §10 *SD-JWT VC decisions*): the first `authentication` method of
 * the subject DID's current document that carries key material (a P-256, Ed25519 or secp256k1 public key), as a JWK;
 * and, at presentation, whether a DID's current `authentication` holds a given holder key.
 */
import type { KeyObject } from 'node:crypto'
import type { Resolvable, VerificationMethod } from 'did-resolver'
import { eip55Address } from '../did/methods/ethr/index.js'
import { invalid } from '../errors.js'
import { publicKeyObject } from '../keys/es256k.js'
import { keyIdOfJwk } from '../keys/key-ids.js'
import type { PublicJwk } from '../keys/key-types.js'
import { jwkThumbprint } from '../keys/thumbprint.js'
import { joseKeyOf } from '../proofs/jose-keys.js'
import { methodsUnder, secp256k1KeyHex } from '../proofs/signing-keys.js'

/** Most `authentication` methods read for a key (a document listing more is read up to this many). */
const MAX_METHODS_READ = 16

/**
 * The public JWK of the first `authentication` key of `subject`'s current document.
 * @throws {IdentityError} 422 naming `field` and asking for `holderJwk` when the DID does not resolve or lists no such key
 */
export async function subjectHolderJwk(subject: string, resolver: Resolvable, field: string): Promise<PublicJwk> {
  let document
  try {
    document = (await resolver.resolve(subject)).didDocument
  } catch {
    document = null
  }
  const ask = `give ${field}.holderJwk (the holder key of an SD-JWT VC)`
  if (!document) throw invalid(`${field}.sub: ${subject.slice(0, 100)} does not resolve: ${ask}`)
  for (const method of methodsUnder(document, 'authentication').slice(0, MAX_METHODS_READ)) {
    const key = keyOfMethod(method)
    if (key !== undefined) return key.export({ format: 'jwk' }) as PublicJwk
  }
  throw invalid(`${field}.sub: no authentication key of ${subject.slice(0, 100)} carries key material: ${ask}`)
}

/**
 * Whether `did`'s current document lists `jwk` under `authentication`: a method whose key has its RFC 7638 thumbprint,
 * or, for a secp256k1 key, a method naming its address (did:ethr's `#controller`). False when the DID does not resolve.
 */
export async function authenticationHoldsKey(did: string, jwk: PublicJwk, resolver: Resolvable): Promise<boolean> {
  let document
  try {
    document = (await resolver.resolve(did)).didDocument
  } catch {
    document = null
  }
  if (!document) return false
  const thumbprint = jwkThumbprint(jwk)
  const address = jwk.crv === 'secp256k1' ? keyIdOfJwk(jwk) : undefined
  return methodsUnder(document, 'authentication')
    .slice(0, MAX_METHODS_READ)
    .some((method) => {
      const key = keyOfMethod(method)
      if (key !== undefined) return jwkThumbprint(key.export({ format: 'jwk' }) as PublicJwk) === thumbprint
      return address !== undefined && addressOfMethod(method) === address
    })
}

/** The EIP-55 address a secp256k1 method names without its key (`ethereumAddress`, a CAIP-10 `blockchainAccountId`). */
function addressOfMethod(vm: VerificationMethod): string | undefined {
  const raw = vm.ethereumAddress ?? vm.blockchainAccountId?.split(':').pop()?.split('@')[0]
  return raw === undefined ? undefined : eip55Address(raw)
}

/** The key of `vm` when it carries one of a type the service uses; undefined otherwise. */
function keyOfMethod(vm: VerificationMethod): KeyObject | undefined {
  const jose = joseKeyOf(vm, 'ES256') ?? joseKeyOf(vm, 'EdDSA')
  if (jose !== undefined) return jose
  const hex = vm.publicKeyHex || secp256k1KeyHex(vm)
  if (!hex) return undefined
  try {
    return publicKeyObject(hex)
  } catch {
    return undefined
  }
}

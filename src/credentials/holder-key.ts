/**
 * The holder key of an SD-JWT VC (`cnf.jwk`, DESIGN §10 *SD-JWT VC decisions*): the first `authentication` method of
 * the subject DID's current document that carries key material (a P-256, Ed25519 or secp256k1 public key), as a JWK.
 */
import type { KeyObject } from 'node:crypto'
import type { Resolvable, VerificationMethod } from 'did-resolver'
import { invalid } from '../errors.js'
import { publicKeyObject } from '../keys/es256k.js'
import type { PublicJwk } from '../keys/key-types.js'
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

/**
 * The key ids (`keys/key-ids.ts`) of a DID document's verification methods, whatever form a
 * method gives its key in (`publicKeyHex`, `publicKeyJwk`, `publicKeyMultibase`,
 * `publicKeyBase58`, or only an address): what the access policy compares with the keys that
 * signed a caller's tokens.
 */
import type { KeyObject } from 'node:crypto'
import type { DIDDocument, VerificationMethod } from 'did-resolver'
import { keyIdOfJwk } from '../keys/key-ids.js'
import type { PublicJwk } from '../keys/key-types.js'
import { addressOf } from '../keys/secp256k1.js'
import { eip55Address } from '../did/methods/ethr/index.js'
import { joseKeyOf } from './jose-keys.js'
import { methodsUnder, secp256k1KeyHex } from './signing-keys.js'

/** A verification method and the key id of its key. */
export interface MethodKeyId {
  /** The method's id, absolute (`<did>#<fragment>`). */
  methodId: string
  keyId: string
}

/** The key id of a P-256 or Ed25519 key object (as `joseKeyOf` makes them). */
export const keyIdOfKeyObject = (key: KeyObject): string => keyIdOfJwk(key.export({ format: 'jwk' }) as unknown as PublicJwk)

/** The key id of `vm`'s key; undefined for a key of a type didvault does not use, or a malformed one. */
export function keyIdOfMethod(vm: VerificationMethod): string | undefined {
  const hex = vm.publicKeyHex || secp256k1KeyHex(vm)
  if (hex) {
    try {
      return addressOf(Buffer.from(hex.replace(/^0x/, ''), 'hex'))
    } catch {
      return undefined
    }
  }
  const account = vm.ethereumAddress ?? vm.blockchainAccountId?.split(':').pop()?.split('@')[0]
  if (account !== undefined) return eip55Address(account)
  const key = joseKeyOf(vm, 'ES256') ?? joseKeyOf(vm, 'EdDSA')
  return key === undefined ? undefined : keyIdOfKeyObject(key)
}

/** The methods `document` lists under `authentication` whose key has a key id, with their absolute ids. */
export function authenticationKeyIds(document: DIDDocument): MethodKeyId[] {
  const absolute = (id: string) => (id.startsWith('#') ? `${document.id}${id}` : id)
  return methodsUnder(document, 'authentication').flatMap((vm) => {
    const keyId = keyIdOfMethod(vm)
    return keyId === undefined ? [] : [{ methodId: absolute(vm.id), keyId }]
  })
}

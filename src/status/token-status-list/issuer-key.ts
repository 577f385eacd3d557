/**
 * The key a Status List Token's `kid` names: a DID URL whose DID's current document lists that verification method
 * under `assertionMethod` (the relationship a credential's issuer signs under), with key material of a type the
 * token's algorithm signs with. A method naming only an address (did:ethr's `#controller`) carries no key: refused.
 */
import type { KeyObject } from 'node:crypto'
import type { Resolvable, VerificationMethod } from 'did-resolver'
import { publicKeyObject } from '../../keys/es256k.js'
import type { PublicJwk, SignatureAlgorithm } from '../../keys/key-types.js'
import { joseKeyOf } from '../../proofs/jose-keys.js'
import { methodsUnder, secp256k1KeyHex } from '../../proofs/signing-keys.js'
import { TokenStatusListRejected } from './rejected.js'

/** `did:<method>:<id>#<fragment>`: a DID without path, query or parameters (they would name another document). */
const DID_URL_WITH_FRAGMENT = /^(did:[a-z0-9]+:[A-Za-z0-9._:%-]+)#[^#\s]+$/

/** The longest `kid` read. */
const MAX_KID_LENGTH = 2_048

/** The signer DID and public key of `kid`, as `resolver` resolves its DID now. */
export interface IssuerKey {
  did: string
  publicJwk: PublicJwk
}

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
  if (publicJwk === undefined) throw new TokenStatusListRejected('kid', "the key kid names is not a key the token's algorithm signs with")
  return { did, publicJwk }
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

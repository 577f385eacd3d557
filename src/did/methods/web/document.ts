/**
 * The document of a did:web DID the service serves, as of a version and a time: the wallet's key
 * `#key-0` under `authentication` and `assertionMethod`, its BBS assertion key `#bbs-0` (when it has one) under
 * `assertionMethod` only, then its changes in order — a service entry
 * `#service-<version>`, a delegate `#key-<version>` under `assertionMethod` only (each while valid), a
 * `controller` (which removes `#key-0` and `#bbs-0` from the document: the service's keys no longer speak for the DID).
 *
 * Keys are verification methods of type `Multikey` (`publicKeyMultibase`, as did:key's) for the key types
 * the Multikey format defines (W3C Controlled Identifiers v1.0 §2.2.2: P-256 and Ed25519 among ours);
 * a secp256k1 key, which it does not define, stays `JsonWebKey2020` with `publicKeyJwk`.
 */
import type { DIDDocument, Service, VerificationMethod } from 'did-resolver'
import { keyTypeOfJwk, type BbsPublicJwk, type PublicJwk } from '../../../keys/key-types.js'
import { encodeMultikey } from '../multikey.js'
import { publicKeyBytes } from '../public-key-bytes.js'
import type { DidWebChange } from './records.js'

const DID_CONTEXT = 'https://www.w3.org/ns/did/v1'
const MULTIKEY_CONTEXT = 'https://w3id.org/security/multikey/v1'
const JWS_2020_CONTEXT = 'https://w3id.org/security/suites/jws-2020/v1'

/** A change and the version it made. */
export interface VersionedChange {
  version: number
  change: DidWebChange
}

/** The verification method `id` of `did` for `jwk`: `Multikey` for P-256 and Ed25519, `JsonWebKey2020` for secp256k1. */
function verificationMethod(did: string, id: string, jwk: PublicJwk): VerificationMethod {
  const type = keyTypeOfJwk(jwk)
  if (type === 'P-256' || type === 'Ed25519')
    return { id, type: 'Multikey', controller: did, publicKeyMultibase: encodeMultikey(type, publicKeyBytes(jwk)) }
  const { kty, crv, x, y } = jwk
  return { id, type: 'JsonWebKey2020', controller: did, publicKeyJwk: y === undefined ? { kty, crv, x } : { kty, crv, x, y } }
}

/** The contexts of a document with `methods`: DID core and Multikey, and JWS 2020 while a `JsonWebKey2020` is listed. */
const contextOf = (methods: readonly VerificationMethod[]) =>
  methods.some((m) => m.type === 'JsonWebKey2020') ? [DID_CONTEXT, MULTIKEY_CONTEXT, JWS_2020_CONTEXT] : [DID_CONTEXT, MULTIKEY_CONTEXT]

/** A BBS assertion key as a `Multikey` (the 96-byte compressed G2 point under the `bls12_381-g2-pub` codec). */
const bbsVerificationMethod = (did: string, jwk: BbsPublicJwk): VerificationMethod => ({
  id: `${did}#bbs-0`,
  type: 'Multikey',
  controller: did,
  publicKeyMultibase: encodeMultikey('Bls12381G2', Buffer.from(jwk.x, 'base64url')),
})

/**
 * The document of `did` whose wallet key is `keys.publicKeyJwk` (and BBS assertion key `keys.bbsPublicKeyJwk`, if any),
 * after `changes` (in version order), with validity judged at `atMs`.
 */
export function didWebDocument(
  did: string,
  keys: { publicKeyJwk: PublicJwk; bbsPublicKeyJwk?: BbsPublicJwk },
  changes: readonly VersionedChange[],
  atMs: number,
): DIDDocument {
  const live = (validTo: number) => validTo * 1000 > atMs
  let controller: string | undefined
  const delegates: VerificationMethod[] = []
  const services: Service[] = []
  for (const { version, change } of changes) {
    if (change.kind === 'controller') controller = change.controller
    else if (change.kind === 'delegate' && live(change.validTo))
      delegates.push(verificationMethod(did, `${did}#key-${version}`, change.publicKeyJwk))
    else if (change.kind === 'service' && live(change.validTo))
      services.push({ id: `${did}#service-${version}`, type: change.type, serviceEndpoint: change.serviceEndpoint })
  }
  const own = controller === undefined ? [verificationMethod(did, `${did}#key-0`, keys.publicKeyJwk)] : []
  const bbs = controller === undefined && keys.bbsPublicKeyJwk !== undefined ? [bbsVerificationMethod(did, keys.bbsPublicKeyJwk)] : []
  const methods = [...own, ...bbs, ...delegates]
  const document: DIDDocument = { '@context': contextOf(methods), id: did }
  if (controller !== undefined) document.controller = controller
  if (methods.length > 0) document.verificationMethod = methods
  if (own.length > 0) document.authentication = [own[0].id]
  if (methods.length > 0) document.assertionMethod = methods.map((m) => m.id)
  if (services.length > 0) document.service = services
  return document
}

/** The document of a deactivated DID: its id only. */
export const deactivatedDocument = (did: string): DIDDocument => ({ '@context': contextOf([]), id: did })

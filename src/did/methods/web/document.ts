/**
 * The document of a did:web DID the service serves, as of a version and a time: the wallet's key
 * `#key-0` (`JsonWebKey2020` with `publicKeyJwk`, as our did:jwk documents) under `authentication` and
 * `assertionMethod`, then its changes in order — a service entry `#service-<version>`, a delegate
 * `#key-<version>` under `assertionMethod` only (each while valid), a `controller` (which removes
 * `#key-0` from the document: the key no longer speaks for the DID).
 */
import type { DIDDocument, JsonWebKey, Service, VerificationMethod } from 'did-resolver'
import type { PublicJwk } from '../../../keys/key-types.js'
import type { DidWebChange } from './records.js'

export const DID_WEB_CONTEXT = ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1']

/** A change and the version it made. */
export interface VersionedChange {
  version: number
  change: DidWebChange
}

const jwkOf = ({ kty, crv, x, y }: PublicJwk): JsonWebKey => (y === undefined ? { kty, crv, x } : { kty, crv, x, y })

/** The document of `did` whose wallet key is `publicJwk`, after `changes` (in version order), with validity judged at `atMs`. */
export function didWebDocument(did: string, publicJwk: PublicJwk, changes: readonly VersionedChange[], atMs: number): DIDDocument {
  const live = (validTo: number) => validTo * 1000 > atMs
  const method = (id: string, jwk: PublicJwk): VerificationMethod => ({
    id,
    type: 'JsonWebKey2020',
    controller: did,
    publicKeyJwk: jwkOf(jwk),
  })
  let controller: string | undefined
  const delegates: VerificationMethod[] = []
  const services: Service[] = []
  for (const { version, change } of changes) {
    if (change.kind === 'controller') controller = change.controller
    else if (change.kind === 'delegate' && live(change.validTo)) delegates.push(method(`${did}#key-${version}`, change.publicKeyJwk))
    else if (change.kind === 'service' && live(change.validTo))
      services.push({ id: `${did}#service-${version}`, type: change.type, serviceEndpoint: change.serviceEndpoint })
  }
  const own = controller === undefined ? [method(`${did}#key-0`, publicJwk)] : []
  const document: DIDDocument = { '@context': DID_WEB_CONTEXT, id: did }
  if (controller !== undefined) document.controller = controller
  const methods = [...own, ...delegates]
  if (methods.length > 0) document.verificationMethod = methods
  if (own.length > 0) document.authentication = [own[0].id]
  if (methods.length > 0) document.assertionMethod = methods.map((m) => m.id)
  if (services.length > 0) document.service = services
  return document
}

/** The document of a deactivated DID: its id only. */
export const deactivatedDocument = (did: string): DIDDocument => ({ '@context': DID_WEB_CONTEXT, id: did })

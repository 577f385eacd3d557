/**
 * DID resolution results as the W3C DID Resolution HTTP(S) binding answers them at `GET /1.0/identifiers/{did}`:
 * every answer is a resolution result, its HTTP status named by its `didResolutionMetadata.error` (or 410 for a
 * deactivated DID), in the media type `Accept` asks for. Browser-safe: the contract and the client use it.
 */
import type { IdentityError } from '../errors.js'
import type { DidResolution } from './schemas.js'

/** The DIF Universal Resolver's JSON-LD context of a resolution result. */
export const DID_RESOLUTION_CONTEXT = 'https://w3id.org/did-resolution/v1'

/** A resolution result (DID Resolution v0.3, the HTTP(S) binding's `Accept` for the complete result). */
export const DID_RESOLUTION = 'application/did-resolution'
/** A resolution result as the DIF Universal Resolver and Veramo's client name it (the binding's earlier spelling). */
export const DID_RESOLUTION_LD = 'application/ld+json;profile="https://w3id.org/did-resolution"'
/** The DID document alone, in its JSON-LD representation (DID Core). */
export const DID_LD_JSON = 'application/did+ld+json'

/** The media types a result is sent in (the first the default). */
export const RESULT_MEDIA_TYPES: [string, ...string[]] = [DID_RESOLUTION, DID_RESOLUTION_LD, 'application/json']

/** Each resolution error of the binding, and its HTTP status. */
export const RESOLUTION_ERROR_STATUS = {
  invalidDid: 400,
  invalidDidUrl: 400,
  notFound: 404,
  representationNotSupported: 406,
  methodNotSupported: 501,
  internalError: 500,
} as const

export type ResolutionError = keyof typeof RESOLUTION_ERROR_STATUS

const isResolutionError = (name: unknown): name is ResolutionError =>
  typeof name === 'string' && Object.hasOwn(RESOLUTION_ERROR_STATUS, name)

/** The HTTP status of a result: its error's, 410 for a deactivated DID, otherwise 200. */
export function resolutionStatus(result: DidResolution): number {
  const error = result.didResolutionMetadata.error
  if (error !== undefined) return isResolutionError(error) ? RESOLUTION_ERROR_STATUS[error] : 500
  return result.didDocumentMetadata.deactivated === true ? 410 : 200
}

/** A failed resolution: no document, `error` and `message` in the resolution metadata. */
export function resolutionFailure(error: ResolutionError, message: string): DidResolution {
  return { '@context': DID_RESOLUTION_CONTEXT, didDocument: null, didDocumentMetadata: {}, didResolutionMetadata: { error, message } }
}

/**
 * The result an error of the resolution route becomes. A refused input names its resolution error in its message (`invalidDidUrl: …`,
 * `invalid request: versionId: invalidDidUrl: …`, `representationNotSupported: …`); other refused input is `invalidDid` when it is the
 * DID (or the wallet id of `/dids/:walletId/did.json`, its did:web DID's last part), `invalidDidUrl` otherwise (the query is the
 * DID URL's). An unavailable storage is 503, anything else 500 `internalError`, whose message carries no detail.
 */
export function resolutionErrorResult(error: IdentityError): { status: number; result: DidResolution } {
  if (error.errorType === 'VALIDATION_ERROR' || error.errorType === 'NOT_FOUND') {
    const named = /(?:^|: )([A-Za-z]+): /.exec(error.errorMessage)?.[1]
    const code: ResolutionError = isResolutionError(named)
      ? named
      : error.errorType === 'NOT_FOUND'
        ? 'notFound'
        : /^invalid request: (did|walletId): /.test(error.errorMessage)
          ? 'invalidDid'
          : 'invalidDidUrl'
    return { status: RESOLUTION_ERROR_STATUS[code], result: resolutionFailure(code, error.errorMessage) }
  }
  if (error.errorType === 'SERVICE_UNAVAILABLE') return { status: 503, result: resolutionFailure('internalError', error.errorMessage) }
  return { status: 500, result: resolutionFailure('internalError', 'DID resolution failed') }
}

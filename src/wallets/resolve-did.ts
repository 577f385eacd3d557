/** Resolve a DID (`GET /1.0/identifiers/:did`): the current document, or the past version the query names. */
import type { ClaimResolvers } from '../did/named-resolvers.js'
import type { z } from 'zod'
import type { Caller } from '../auth/context.js'
import { withVersion } from '../did/version.js'
import { DID_RESOLUTION_CONTEXT, RESOLUTION_ERROR_STATUS, resolutionFailure, type ResolutionError } from './resolution.js'
import { didWebOfWallet } from '../did/methods/index.js'
import type { DidResolution, didWebDocumentParams, resolveDidParams, resolveDidQuery } from './schemas.js'

type ResolveDidInput = z.output<typeof resolveDidParams> & z.output<typeof resolveDidQuery>

/**
 * The resolution errors of the service's resolver (did-resolver's and ethr-did-resolver's names) as the W3C binding
 * names them: a method or a did:ethr network this service does not resolve is `methodNotSupported`.
 */
const BINDING_ERROR: Record<string, ResolutionError> = { unsupportedDidMethod: 'methodNotSupported', unknownNetwork: 'methodNotSupported' }

/**
 * Resolves with the service's `default` resolver (its registries, did:key, did:web of allowed origins), to a W3C DID
 * resolution result: the document (`didDocumentMetadata.deactivated` for a deactivated DID), or no document and
 * `didResolutionMetadata.error` (`invalidDid`, `invalidDidUrl`, `notFound`, `methodNotSupported`, `internalError`) — never
 * a rejection for a DID that does not resolve.
 */
export async function resolveDid(ctx: { resolvers: ClaimResolvers }, _caller: Caller, input: ResolveDidInput): Promise<DidResolution> {
  // A `+` of an offset written unencoded in a URL query arrives form-decoded as a space; a date-time has no space.
  const versionTime = input.versionTime?.replaceAll(' ', '+')
  const result = await ctx.resolvers.get().resolver.resolve(withVersion(input.did, { versionId: input.versionId, versionTime }))
  const error = result.didResolutionMetadata.error
  if (error !== undefined) {
    const code = BINDING_ERROR[error] ?? (Object.hasOwn(RESOLUTION_ERROR_STATUS, error) ? (error as ResolutionError) : 'internalError')
    const detail = String(result.didResolutionMetadata.message ?? 'DID could not be resolved')
    return resolutionFailure(code, code === error ? detail : `${error}: ${detail}`)
  }
  return { '@context': DID_RESOLUTION_CONTEXT, ...(result as unknown as Omit<DidResolution, '@context'>) }
}

/**
 * The did:web document of wallet `walletId` (`GET /dids/:walletId/did.json`): the resolution of its DID under the
 * service's `publicUrl`, so the route answers exactly what `GET /1.0/identifiers/<DID>` does; without `publicUrl` the
 * service has no did:web DIDs (`notFound`).
 */
export async function didWebDocument(
  ctx: { resolvers: ClaimResolvers; config: { publicUrl?: string } },
  caller: Caller,
  input: z.output<typeof didWebDocumentParams>,
): Promise<DidResolution> {
  if (ctx.config.publicUrl === undefined) return resolutionFailure('notFound', 'did:web: this service has no publicUrl, so no did:web DIDs')
  return resolveDid(ctx, caller, { did: didWebOfWallet(ctx.config.publicUrl, input.walletId) })
}

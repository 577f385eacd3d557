/** Resolve a DID (`GET /1.0/identifiers/:did`): the current document, or the past version the query names. */
import type { Resolvable } from 'did-resolver'
import type { z } from 'zod'
import type { Caller } from '../auth/context.js'
import { withVersion } from '../did/version.js'
import { IdentityError } from '../errors.js'
import type { didResolution, resolveDidParams, resolveDidQuery } from './schemas.js'

type ResolveDidInput = z.output<typeof resolveDidParams> & z.output<typeof resolveDidQuery>

/** The DIF Universal Resolver's context of a resolution result. */
const DID_RESOLUTION_CONTEXT = 'https://w3id.org/did-resolution/v1'

/**
 * Resolves with the service's own resolver. A resolution error is a 422 naming it (`notFound`
 * as NOT_FOUND): a caller never mistakes a failed resolution for a document.
 */
export async function resolveDid(
  ctx: { resolver: Resolvable },
  _caller: Caller,
  input: ResolveDidInput,
): Promise<z.output<typeof didResolution>> {
  // A `+` of an offset written unencoded in a URL query arrives form-decoded as a space; a date-time has no space.
  const versionTime = input.versionTime?.replaceAll(' ', '+')
  const result = await ctx.resolver.resolve(withVersion(input.did, { versionId: input.versionId, versionTime }))
  const error = result.didResolutionMetadata.error
  if (error) {
    const message = `${error}: ${String(result.didResolutionMetadata.message ?? 'DID could not be resolved')}`
    throw new IdentityError(error === 'notFound' ? 'NOT_FOUND' : 'VALIDATION_ERROR', message)
  }
  return { '@context': DID_RESOLUTION_CONTEXT, ...(result as unknown as Omit<z.output<typeof didResolution>, '@context'>) }
}

/**
 * Verify Verifiable Credentials (`PATCH /claims` with `operation: "verify"`, alias `POST
 * /claims/verify`; DESIGN §4 *Verify result*): each credential is checked with the resolver
 * the request names, and answered with `verified`, its `issuer` and the named `checks` (a
 * `status` check per `credentialStatus` entry, src/status). An invalid credential is
 * `verified: false` in the 200, not an error.
 */
import type { z } from 'zod'
import type { Caller } from '../auth/context.js'
import { carriedBy, memberOf, type CredentialStatusCheck } from './formats/index.js'
import type { VerifiedCredential, VerifyClaimsInput, verifyClaimsResponse } from './schemas.js'
import { jsonLdHasher } from './jsonld-work.js'
import type { CredentialsContext } from './context.js'
import type { NamedResolver } from '../did/named-resolvers.js'

type VerifyResponse = z.output<typeof verifyClaimsResponse>
type Context = Pick<CredentialsContext, 'config' | 'jsonld' | 'keys' | 'now' | 'resolvers' | 'status'>

export async function verifyClaims(ctx: Context, caller: Caller, input: VerifyClaimsInput): Promise<VerifyResponse> {
  return verifyClaimsWith(ctx, caller, input, ctx.status?.forRequest())
}

/**
 * {@link verifyClaims} with the status check and the resolver of the request it is part of (a
 * presentation's credentials share them: one budget of outside reads for the whole request).
 */
export async function verifyClaimsWith(
  ctx: Omit<Context, 'status'>,
  caller: Caller,
  input: VerifyClaimsInput,
  status: CredentialStatusCheck | undefined,
  named: NamedResolver = ctx.resolvers.get(input.resolver),
): Promise<VerifyResponse> {
  const { name, resolver } = named
  const options = { resolver, now: ctx.now(), keys: ctx.keys, hasher: jsonLdHasher(ctx, caller), status }
  const vcs: VerifiedCredential[] = []
  for (const item of input.claims ?? input.vcs ?? []) {
    const { format, encoded } = carriedBy(item)
    vcs.push({ ...memberOf(encoded, format), format: format.name, ...(await format.verify(encoded, options)) })
  }
  return { resolver: name, vcs }
}

/**
 * Verify Verifiable Credentials (`PATCH /claims` with `operation: "verify"`, alias `POST
 * /claims/verify`; DESIGN §4 *Verify result*): each credential is checked with the resolver
 * the request names, and answered with `verified`, its `issuer` and the named `checks`. An
 * invalid credential is `verified: false` in the 200, not an error.
 */
import type { z } from 'zod'
import type { Caller } from '../auth/context.js'
import { verifyJsonLdCredential, verifyJwtCredential } from './verify-credential.js'
import type { patchClaims as patchClaimsSchema, patchClaimsResponse, VerifiedCredential, VerifyClaimsInput, verifyClaimsResponse } from './schemas.js'
import { addProofs, removeProofs } from './proofs.js'
import { jsonLdHasher } from './jsonld-work.js'
import type { CredentialsContext } from './context.js'

type VerifyResponse = z.output<typeof verifyClaimsResponse>

export async function verifyClaims(ctx: CredentialsContext, caller: Caller, input: VerifyClaimsInput): Promise<VerifyResponse> {
  const { name, resolver } = ctx.resolvers.get(input.resolver)
  const options = { resolver, now: ctx.now(), keys: ctx.keys, hasher: jsonLdHasher(ctx, caller) }
  const vcs: VerifiedCredential[] = []
  for (const item of input.claims ?? input.vcs ?? []) {
    vcs.push(
      'jwt' in item
        ? { jwt: item.jwt, ...(await verifyJwtCredential(item.jwt, options)) }
        : { jsonld: item.jsonld, ...(await verifyJsonLdCredential(item.jsonld, options)) },
    )
  }
  return { resolver: name, vcs }
}

/** `PATCH /claims`: the operation its `operation` names. */
export async function patchClaims(ctx: CredentialsContext, caller: Caller, input: z.output<typeof patchClaimsSchema>): Promise<z.output<typeof patchClaimsResponse>> {
  switch (input.operation) {
    case 'verify':
      return verifyClaims(ctx, caller, input)
    case 'addProof':
      return addProofs(ctx, caller, input)
    case 'removeProof':
      return removeProofs(ctx, caller, input)
  }
}

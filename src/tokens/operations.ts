/**
 * Generate Token (`POST /did-auth-jwt`): a DID-auth token for a wallet of the caller's tenant.
 * `iss` may spell the wallet's DID in public-key form: the token's `iss` is the spelling given.
 * Each token is recorded in the audit trail (`token.generate`) before it is returned.
 */
import type { z } from 'zod'
import { invalid, notFound } from '../errors.js'
import { normalizeDid, principalOf } from '../did/methods/ethr/index.js'
import type { generateToken as generateTokenSchema, DidAuthToken } from './schemas.js'
import { issueDidAuthToken } from './did-auth-credential.js'
import { JwtRejected } from '../proofs/jwt-verifier.js'
import type { Caller } from '../auth/context.js'
import { expirationOf } from '../operations/expiration.js'
import { WALLETS } from '../wallets/records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { TokensContext } from './context.js'

export async function generateToken(
  ctx: Pick<TokensContext, 'audit' | 'config' | 'keys' | 'now' | 'resolvers' | 'signers' | 'storage'>,
  caller: Caller,
  input: z.output<typeof generateTokenSchema>,
): Promise<DidAuthToken> {
  const now = ctx.now()
  const { tokenDefaultLifetimeMs, tokenMaxLifetimeMs } = ctx.config.limits
  const expiresAt = expirationOf(input, now) ?? now + tokenDefaultLifetimeMs
  if (expiresAt <= now + 1_000) throw invalid('expiration must be in the future')
  if (expiresAt > now + tokenMaxLifetimeMs) throw invalid(`expiration must be at most ${tokenMaxLifetimeMs / 3_600_000} hours away`)

  const issuer = normalizeDid(input.iss)
  const wallet = await tenantCollections(ctx.storage, caller.tenantId, { wallets: WALLETS }).wallets.findOne({
    field: 'did',
    op: 'eq',
    value: principalOf(issuer),
  })
  if (!wallet || !ctx.signers.canSign(wallet)) throw notFound(`iss: no wallet of this tenant has DID ${input.iss}`)
  const signer = ctx.signers.signerFor(wallet, caller)
  let token: DidAuthToken
  try {
    token = await issueDidAuthToken({
      issuer,
      signer,
      issuedAt: now,
      expiresAt,
      audience: ctx.config.audience,
      // Checked as the Authenticator will check it: against the `default` resolver.
      resolver: ctx.resolvers.get().resolver,
      keys: ctx.keys,
    })
  } catch (err) {
    // The wallet's key signs for its DID only while the DID document says so (not after a `newOwner`).
    if (err instanceof JwtRejected) throw invalid(`iss: the key of this wallet does not control ${issuer} (${err.reason})`)
    throw err
  }
  // A bearer credential for the wallet, made with the API key alone: recorded before it is handed out.
  await ctx.audit.record(caller, [{ action: 'token.generate', target: { type: 'wallet', id: issuer } }])
  return token
}

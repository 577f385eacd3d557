/**
 * The token endpoint (`POST /oid4vci/:issuer/token`, RFC 6749 §4.1.3, OID4VCI 1.0 §6) for the pre-authorized code grant,
 * and the nonce endpoint (`POST /oid4vci/:issuer/nonce`, OID4VCI 1.0 §7).
 *
 * Order (the protocol adapter's, see `protocol/token.ts`): parse → DPoP proof (method, public URL) → the code opened
 * (the offer's storage id sealed for this tenant's issuer, `offers.ts`: a forged, altered, expired or another issuer's
 * code opens to nothing) and the offer read, live → DPoP when a configuration requires it → the PIN (a wrong one counted
 * on the offer by `countWrongTxCode`; at the module's `txCodeAttempts` the offer is burned: `invalid_grant` ever after)
 * → the grant's checks → the offer claimed atomically (a replay, or a claim after a burn: `invalid_grant`, nothing
 * written) → the DPoP `jti` remembered once (with the claim in one transaction) → the access token sealed with its
 * {@link AccessGrant} (`access-tokens.ts`; not stored; a refusal among them writes nothing; at most one commit). The
 * authorization code grant's checks are the authorization-code module's (`redeemAuthorizationCode`), the refresh
 * token grant's `refresh-tokens.ts`'s; every grant ends in the same access token and answer.
 */
import type { AuthContext, Caller } from '../auth/context.js'
import type { OneTimeStore } from '../one-time/index.js'
import type { StorageAdapter } from '../storage/port.js'
import { whileWriting } from '../storage/while-writing.js'
import { sealAccessToken } from './access-tokens.js'
import { redeemAuthorizationCode, type AuthorizationCodeContext } from './authorization-code.js'
import { issueRefreshToken, redeemRefreshToken, refreshableGrantUntil, refreshableUntil } from './refresh-tokens.js'
import { ONE_TIME_KINDS, type AccessGrant, type TokenRedemption } from './grants.js'
import { issueCNonce } from './nonces.js'
import { authorizationServerMetadata } from './metadata.js'
import { OAuthError } from './oauth-error.js'
import type { TokenResponseBody } from './offer-schemas.js'
import {
  claimOffer,
  countWrongTxCode,
  liveOffer,
  offerOfPreAuthorizedCode,
  txCodeMatches,
  walletFacingIssuer,
  type OffersContext,
} from './offers.js'
import type * as Protocol from './protocol/index.js'
import { collectionOf } from '../storage/declaration.js'
import { configurationOf, OID4VCI_OFFERS, type ConfigurationRecord, type OfferRecord } from './records.js'

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description)

/** POST token: a pre-authorized code (and PIN), or an authorization code (and PKCE verifier), for an access token. */
export async function redeemToken(
  ctx: OffersContext & AuthorizationCodeContext,
  _caller: Caller,
  input: { issuer: string; grant_type: string } & Record<string, string>,
  auth: AuthContext,
): Promise<TokenResponseBody> {
  const { issuer: slug, ...body } = input
  const { issuer, credentialIssuer, oid4vci } = await walletFacingIssuer(ctx, slug)
  const tenantId = issuer.tenantId
  const request: Protocol.WalletRequest = {
    method: auth.method ?? 'POST',
    url: auth.url ?? `${credentialIssuer}/token`,
    ...(auth.dpop !== undefined && { dpop: auth.dpop }),
    ...(auth.authorization !== undefined && { authorization: auth.authorization }),
  }
  // Sphereon's wallets (draft 13 naming) send the PIN as `user_pin`, with or without `tx_code`.
  if (body.tx_code === undefined && typeof body.user_pin === 'string') body.tx_code = body.user_pin
  delete body.user_pin
  const token = oid4vci.protocol.token.parseTokenRequest(request, body)
  const dpop = token.hasDpop ? await oid4vci.protocol.dpop.verify(request) : undefined
  let accessToken = ''
  const expiresInSeconds = oid4vci.options.accessTokenTtlSeconds
  let refreshToken: string | undefined
  /**
   * After the grant's code is consumed, in its transaction: the DPoP `jti` remembered once, the access token sealed
   * (`access-tokens.ts`: not stored), and a refresh token until `refreshUntil` for a grant covering a deferred
   * configuration (`refresh-tokens.ts`).
   */
  const finish = async (oneTime: OneTimeStore, grant: AccessGrant, refreshUntil?: number) => {
    if (dpop) {
      const fresh = await oneTime.remember(tenantId, ONE_TIME_KINDS.dpopJti, dpop.jti, Math.max(1, dpop.expiresAt.getTime() - ctx.now()))
      if (!fresh) throw new OAuthError('invalid_dpop_proof', 'the DPoP proof was used before')
    }
    accessToken = sealAccessToken(oneTime, tenantId, grant, expiresInSeconds * 1000)
    if (refreshUntil !== undefined) refreshToken = await issueRefreshToken(ctx, oneTime, tenantId, grant, refreshUntil)
  }
  let grant: AccessGrant | undefined
  if (token.grant.type === 'pre-authorized_code')
    grant = await redeemPreAuthorizedCode(ctx, { slug, tenantId, credentialIssuer, request, token, dpop }, finish)
  else if (token.grant.type === 'authorization_code') {
    grant = await redeemAuthorizationCode(ctx, tenantId, { issuer: slug, credentialIssuer, request, token }, dpop)
    await finish(ctx.oneTime, grant, await refreshableGrantUntil(ctx, tenantId, grant))
  } else if (token.grant.type === 'refresh_token')
    grant = await redeemRefreshToken(ctx, { slug, tenantId, credentialIssuer, request, token, dpop }, finish)
  if (!grant)
    throw new OAuthError('unsupported_grant_type', 'the pre-authorized code, authorization code and refresh token grants are served')
  const response = oid4vci.lib.tokenResponse({
    accessToken,
    expiresInSeconds,
    ...(dpop && { dpopJkt: dpop.jkt }),
    ...(refreshToken !== undefined && { refreshToken }),
    // The credential identifiers are the configuration ids (digitalbazaar's wallet needs them to send 1.0 requests).
    authorizationDetails: grant.configurationIds.map((id) => ({
      type: 'openid_credential',
      credential_configuration_id: id,
      credential_identifiers: [id],
    })),
  })
  // RFC 6749 §7.1 makes the type case-insensitive; digitalbazaar's wallet compares with lowercase `bearer`.
  return { ...response, token_type: dpop ? 'DPoP' : 'bearer' } as TokenResponseBody
}

/**
 * The pre-authorized code grant: the offer's code (and PIN) → the offer's grant. The offer is claimed (once, across
 * processes: an atomic count that writes nothing when refused), then `finish` runs (the DPoP `jti`, a refresh token,
 * the access token) — in one transaction when it writes, so a refusal there writes nothing either.
 */
async function redeemPreAuthorizedCode(
  ctx: OffersContext,
  redemption: TokenRedemption,
  finish: (oneTime: OneTimeStore, grant: AccessGrant, refreshUntil?: number) => Promise<void>,
): Promise<AccessGrant> {
  const { slug, tenantId, credentialIssuer, request, token, dpop } = redemption
  const oid4vci = ctx.oid4vci!
  if (token.grant.type !== 'pre-authorized_code') throw new OAuthError('unsupported_grant_type', 'not a pre-authorized code grant')
  // The code is the offer's storage id, sealed for this tenant's issuer (`offers.ts`): opened, not looked up. A small
  // offer without a PIN rides in it whole: nothing is read, the claim below decides (a used, burned or swept offer).
  const sealed = offerOfPreAuthorizedCode(ctx.oneTime, tenantId, slug, token.grant.preAuthorizedCode)
  const offer: OfferGrantView | undefined = sealed?.grant
    ? { id: sealed.id, tenantId, issuer: slug, ...sealed.grant }
    : sealed && (await liveOffer(ctx, tenantId, sealed.id))
  if (!offer || offer.issuer !== slug) throw invalidGrant('the pre-authorized code is unknown, used or expired')
  const configurations = await Promise.all(offer.configurationIds.map((id) => configurationOf(ctx.storage, tenantId, id)))
  if (configurations.some((c) => c === undefined)) throw invalidGrant('a credential configuration of the offer was deleted')
  if (!dpop && configurations.some((c) => c?.dpopRequired === true))
    throw new OAuthError(
      'invalid_dpop_proof',
      'a credential configuration of the offer requires a DPoP-bound access token: send a DPoP proof',
    )

  if (offer.txCode) {
    if (token.grant.txCode === undefined) throw new OAuthError('invalid_request', 'the offer requires a tx_code')
    if (!txCodeMatches(ctx.oneTime, offer, token.grant.txCode)) {
      const burned = await countWrongTxCode(ctx, offer, oid4vci.options.txCodeAttempts)
      throw invalidGrant(burned ? 'the tx_code is wrong; too many tries: the offer can no longer be redeemed' : 'the tx_code is wrong')
    }
  }
  const metadata = authorizationServerMetadata(credentialIssuer, configurations as ConfigurationRecord[])
  const grant: AccessGrant = {
    issuer: slug,
    configurationIds: offer.configurationIds,
    claims: offer.claims,
    offerId: offer.id,
    ...(dpop && { jkt: dpop.jkt }),
  }
  const refreshUntil = refreshableUntil(ctx, configurations)
  await oid4vci.protocol.token.verifyGrant(request, token, {
    metadata: metadata,
    expiresAt: new Date(offer.expiresAt),
    txCodeRequired: offer.txCode !== undefined,
  })
  // The offer once, whichever grant comes first (its issuer_state may have bound an authorization request). The claim
  // is one statement that writes nothing when refused. When `finish` writes nothing either (no DPoP `jti`, no refresh
  // token) it only seals the access token, done while the claim travels; otherwise both run in one transaction, so
  // that a refusal in `finish` undoes the claim.
  const refused = () => invalidGrant('the pre-authorized code is unknown, used or expired')
  if (dpop === undefined && refreshUntil === undefined) {
    if (!(await whileWriting(claimed(ctx.storage, offer, ctx.now()), () => finish(ctx.oneTime, grant)))) throw refused()
  } else
    await ctx.storage.transaction(async (tx) => {
      if (!(await claimed(tx, offer, ctx.now()))) throw refused()
      await finish(ctx.oneTime.within(tx), grant, refreshUntil)
    })
  return grant
}

/** POST nonce: a fresh `c_nonce` for key proofs, single use, live for the module's `nonceTtlSeconds`. */
export async function issueNonce(ctx: OffersContext, _caller: Caller, input: { issuer: string }): Promise<{ c_nonce: string }> {
  const { issuer, oid4vci } = await walletFacingIssuer(ctx, input.issuer)
  const cNonce = await issueCNonce({ oneTime: ctx.oneTime, oid4vci, now: ctx.now }, issuer.tenantId)
  return oid4vci.lib.nonceResponse(cNonce) as { c_nonce: string }
}

/** What the token request knows of an offer: its record (read), or the grant its code carried (nothing read). */
type OfferGrantView = Pick<OfferRecord, 'id' | 'tenantId' | 'issuer' | 'configurationIds' | 'claims' | 'expiresAt' | 'updatedAt' | 'txCode'>

/**
 * The offer claimed for its redemption ({@link claimOffer}); false when it was claimed before — or, for an offer whose
 * code carried its grant and was never read, when its record is gone (swept after its expiry).
 */
async function claimed(storage: StorageAdapter, offer: OfferGrantView, now: number): Promise<boolean> {
  try {
    return await claimOffer(storage, offer, 'redeemed', now)
  } catch (err) {
    if ((await collectionOf(storage, OID4VCI_OFFERS).get(offer.id)) === undefined) return false
    throw err
  }
}

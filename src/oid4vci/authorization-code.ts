/**
 * The authorization code flow of the issuer's built-in authorization server (OID4VCI 1.0 §5, RFC 6749 §4.1, PAR RFC
 * 9126, PKCE RFC 7636 S256, RFC 9207 `iss`):
 *
 * 1. `POST <ci>/par` — the request is checked by the protocol adapter, kept as a one-time `par` value (its
 *    `request_uri` reference hashed) and answered `{ request_uri, expires_in }` (201).
 * 2. `GET <ci>/authorize?client_id&request_uri` — the pushed request is taken once; the user is authenticated by the
 *    embedding application: the `authorize` hook's answer, or (no hook) the operator's `loginUrl`, whose page sends the
 *    browser back to `GET <ci>/authorize/return?assertion=<JWT>` (see `login-assertion.ts`). Either way the browser
 *    goes to `redirect_uri` with `code`, `state`, `iss`, or `error=access_denied`.
 * 3. The token endpoint's `authorization_code` grant: {@link redeemAuthorizationCode} → the `AccessGrant`.
 *
 * Codes, request handles and assertion `jti`s are single use across processes (one-time store, keyed hashes only).
 * Errors that cannot go back to the wallet (unknown request, client, assertion) are OAuth error bodies (400).
 */
import type { Caller } from '../auth/context.js'
import type { OneTimeStore } from '../one-time/index.js'
import type { StorageAdapter } from '../storage/port.js'
import type { Redirection } from './authorization-code-schemas.js'
import { ONE_TIME_KINDS, type AccessGrant } from './grants.js'
import { verifyLoginAssertion, loginKeyOf, type LoginKey } from './login-assertion.js'
import { authorizationServerMetadata, credentialIssuerMetadata } from './metadata.js'
import type { AuthorizeAnswer, AuthorizeRequest, Oid4vciRuntime } from './module.js'
import { OAuthError } from './oauth-error.js'
import type { DpopProof, IssuerMetadata, PushedAuthorizationRequest, TokenRequest, WalletRequest } from './protocol/index.js'
import { offerOfIssuerState, redeemIssuerState, type OfferBinding } from './issuer-state.js'
import { configurationsOf } from './records.js'
import { walletCallOf, type WalletCall } from './wallet-caller.js'
import type { AuthContext } from '../auth/context.js'
import type { AuditAct, AuditTrail } from '../audit/trail.js'

/** Lifetime of a pushed request (`expires_in`), seconds. */
export const PAR_TTL_SECONDS = 90
/** Lifetime of an authorization code, seconds. */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60
/** Lifetime of the handle a login page holds while the user logs in, seconds. */
export const LOGIN_REQUEST_TTL_SECONDS = 600

/** What the flow reaches of the service. */
export interface AuthorizationCodeContext {
  storage: StorageAdapter
  audit: Pick<AuditTrail, 'record' | 'append'>
  oneTime: OneTimeStore
  oid4vci?: Oid4vciRuntime
  config: { publicUrl?: string }
  /** The service clock (offers expire by it); default `Date.now`. */
  now?: () => number
}

/** A pushed request as kept (one-time `par`, then `login-request`): no secret (the PKCE challenge is a hash). */
interface PushedRequest {
  issuer: string
  clientId: string
  redirectUri: string
  codeChallenge: string
  credentialConfigurationIds: string[]
  state?: string
  /** The offer its `issuer_state` bound it to (redeemed at PAR); the `issuer_state` itself is not kept. */
  offer?: OfferBinding
  scope?: string
  authorizationDetails?: Array<Record<string, unknown>>
  dpopJkt?: string
}

/** An authorization code's data (one-time `auth-code`). */
export interface AuthorizationCodeData {
  issuer: string
  clientId: string
  redirectUri: string
  codeChallenge: string
  configurationIds: string[]
  claims: Record<string, Record<string, unknown>>
  subject: string
  dpopJkt?: string
  /** The storage id of the offer the request was bound to (`issuer_state`). */
  offerId?: string
  expiresAt: number
}

function runtimeOf(ctx: Pick<AuthorizationCodeContext, 'oid4vci'>): Oid4vciRuntime {
  if (!ctx.oid4vci) throw new OAuthError('invalid_request', 'no such credential issuer', 404)
  return ctx.oid4vci
}

/** The library's view of the issuer's metadata, from its configurations. */
async function issuerMetadataOf(ctx: AuthorizationCodeContext, tenantId: string, wallet: WalletCall): Promise<IssuerMetadata> {
  const configurations = await configurationsOf(ctx.storage, tenantId)
  return {
    credentialIssuer: credentialIssuerMetadata(wallet.credentialIssuer, configurations) as unknown as IssuerMetadata['credentialIssuer'],
    authorizationServer: authorizationServerMetadata(
      wallet.credentialIssuer,
      configurations,
    ) as unknown as IssuerMetadata['authorizationServer'],
  }
}

/** `redirect_uri`: required (no client registration holds one), absolute, no fragment, not a script or data URL. */
function redirectUriOf(value: string | undefined): string {
  if (value === undefined) throw new OAuthError('invalid_request', 'redirect_uri is required')
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new OAuthError('invalid_request', 'redirect_uri must be an absolute URL')
  }
  if (url.hash !== '' || value.includes('#')) throw new OAuthError('invalid_request', 'redirect_uri must not have a fragment')
  if (['javascript:', 'data:', 'vbscript:', 'file:', 'blob:'].includes(url.protocol)) {
    throw new OAuthError('invalid_request', 'redirect_uri has a scheme that cannot receive a code')
  }
  return value
}

/** `POST /oid4vci/:issuer/par`: checks and keeps a pushed authorization request; `{ request_uri, expires_in }`. */
export async function pushAuthorizationRequest(
  ctx: AuthorizationCodeContext,
  _caller: Caller,
  input: Record<string, unknown>,
  auth: AuthContext,
): Promise<{ request_uri: string; expires_in: number }> {
  const runtime = runtimeOf(ctx)
  const wallet = await walletCallOf(ctx, auth)
  const { authorize, loginUrl } = runtime.options
  if (authorize === undefined && loginUrl === undefined) {
    throw new OAuthError('unsupported_response_type', 'this issuer authenticates no users (pre-authorized offers only)')
  }
  const { issuer: _slug, ...body } = input
  const metadata = await issuerMetadataOf(ctx, wallet.tenantId, wallet)
  const parsed: PushedAuthorizationRequest = await runtime.lib.parsePushedAuthorizationRequest(
    wallet.request,
    body,
    metadata,
    runtime.protocol.dpop,
  )
  const redirectUri = redirectUriOf(parsed.redirectUri)
  const configurations = await configurationsOf(ctx.storage, wallet.tenantId)
  const needsDpop = configurations.some((c) => c.dpopRequired === true && parsed.credentialConfigurationIds.includes(c.configurationId))
  if (needsDpop && parsed.dpopJkt === undefined)
    throw new OAuthError('invalid_dpop_proof', 'a DPoP key is required (dpop_jkt or a DPoP proof)')
  // issuer_state: the offer checked before anything is written, redeemed with the pushed request's commit below.
  const bound =
    parsed.issuerState === undefined
      ? undefined
      : await offerOfIssuerState(ctx, wallet.tenantId, wallet.issuer, parsed.issuerState, parsed.credentialConfigurationIds)
  if (parsed.dpop) await rememberDpop(ctx, wallet.tenantId, parsed.dpop)

  const pushed: PushedRequest = {
    issuer: wallet.issuer,
    clientId: parsed.clientId,
    redirectUri,
    codeChallenge: parsed.codeChallenge,
    credentialConfigurationIds: parsed.credentialConfigurationIds,
    ...(parsed.state !== undefined && { state: parsed.state }),
    ...(parsed.scope !== undefined && { scope: parsed.scope }),
    ...(parsed.authorizationDetails !== undefined && { authorizationDetails: parsed.authorizationDetails }),
    ...(parsed.dpopJkt !== undefined && { dpopJkt: parsed.dpopJkt }),
  }
  const { requestUri, reference } = runtime.lib.newRequestUri()
  const keep = (oneTime: OneTimeStore, request: PushedRequest) =>
    oneTime.issue(wallet.tenantId, ONE_TIME_KINDS.pushedRequest, reference, { ttlMs: PAR_TTL_SECONDS * 1000, data: { ...request } })
  if (!bound) await keep(ctx.oneTime, pushed)
  else
    await ctx.storage.transaction(async (tx) => {
      const oneTime = ctx.oneTime.within(tx)
      const offer = await redeemIssuerState(tx, oneTime, wallet.tenantId, bound, (ctx.now ?? Date.now)())
      await keep(oneTime, { ...pushed, offer })
    })
  return runtime.lib.pushedAuthorizationResponse(requestUri, PAR_TTL_SECONDS) as { request_uri: string; expires_in: number }
}

/**
 * `GET /oid4vci/:issuer/authorize`: takes the pushed request once and authenticates its user — the `authorize` hook,
 * or the operator's login page — then sends the browser on (to `redirect_uri` with a code or `access_denied`, or to
 * the login page).
 */
export async function authorize(
  ctx: AuthorizationCodeContext,
  caller: Caller,
  input: { client_id: string; request_uri: string },
  auth: AuthContext,
): Promise<Redirection> {
  const runtime = runtimeOf(ctx)
  const wallet = await walletCallOf(ctx, auth)
  const reference = runtime.lib.requestUriReference(input.request_uri)
  const kind = ONE_TIME_KINDS.pushedRequest
  const peeked = (await ctx.oneTime.peek(wallet.tenantId, kind, reference)) as PushedRequest | undefined
  if (!peeked || peeked.issuer !== wallet.issuer) throw new OAuthError('invalid_request', 'request_uri is unknown, used or expired')
  if (peeked.clientId !== input.client_id) throw new OAuthError('invalid_request', 'client_id is not the pushed request’s')
  const pushed = (await ctx.oneTime.consume(wallet.tenantId, kind, reference)) as PushedRequest | undefined
  if (!pushed) throw new OAuthError('invalid_request', 'request_uri is unknown, used or expired')

  const { authorize: hook, loginUrl } = runtime.options
  if (hook) {
    const request: AuthorizeRequest = {
      tenantId: wallet.tenantId,
      credentialIssuer: wallet.credentialIssuer,
      clientId: pushed.clientId,
      redirectUri: pushed.redirectUri,
      credentialConfigurationIds: pushed.credentialConfigurationIds,
      ...(pushed.offer !== undefined && {
        offer: { configurationIds: pushed.offer.configurationIds, claims: pushed.offer.claims },
      }),
      ...(pushed.scope !== undefined && { scope: pushed.scope }),
      ...(pushed.authorizationDetails !== undefined && { authorizationDetails: pushed.authorizationDetails }),
    }
    let answer: AuthorizeAnswer
    try {
      answer = await hook(request)
    } catch {
      return { location: backToWallet(pushed, wallet, { error: 'server_error', error_description: 'the login failed' }) }
    }
    return { location: await answered(ctx, wallet, pushed, answer, caller.requestId) }
  }
  if (loginUrl === undefined) throw new OAuthError('unsupported_response_type', 'this issuer authenticates no users')
  const handle = runtime.lib.randomToken()
  await ctx.oneTime.issue(wallet.tenantId, ONE_TIME_KINDS.loginRequest, handle, {
    ttlMs: LOGIN_REQUEST_TTL_SECONDS * 1000,
    data: { ...pushed },
  })
  const login = new URL(loginUrl)
  login.searchParams.set('request', handle)
  login.searchParams.set('issuer', wallet.credentialIssuer)
  login.searchParams.set('credential_configuration_ids', pushed.credentialConfigurationIds.join(' '))
  return { location: login.href }
}

/**
 * `GET /oid4vci/:issuer/authorize/return?assertion=`: the operator's login page's answer, a signed assertion naming the
 * pending request; the browser goes to the wallet's `redirect_uri` with a code, or `access_denied`.
 */
export async function authorizeReturn(
  ctx: AuthorizationCodeContext,
  caller: Caller,
  input: { assertion: string },
  auth: AuthContext,
): Promise<Redirection> {
  const runtime = runtimeOf(ctx)
  const wallet = await walletCallOf(ctx, auth)
  const keys = (runtime.options.loginAssertionKeys ?? []).map(loginKeyOf).filter((k): k is LoginKey => k !== undefined)
  if (runtime.options.loginUrl === undefined || keys.length === 0) {
    throw new OAuthError('invalid_request', 'this issuer has no login page (loginUrl)')
  }
  const assertion = verifyLoginAssertion(input.assertion, wallet.credentialIssuer, keys, new Date())
  const kind = ONE_TIME_KINDS.loginRequest
  const peeked = (await ctx.oneTime.peek(wallet.tenantId, kind, assertion.request)) as PushedRequest | undefined
  if (!peeked || peeked.issuer !== wallet.issuer)
    throw new OAuthError('invalid_request', 'login assertion: the request is unknown, used or expired')
  const ttl = Math.max(1, assertion.expiresAt.getTime() - Date.now())
  if (!(await ctx.oneTime.remember(wallet.tenantId, ONE_TIME_KINDS.loginJti, assertion.jti, ttl))) {
    throw new OAuthError('invalid_request', 'login assertion: used before (jti)')
  }
  const pushed = (await ctx.oneTime.consume(wallet.tenantId, kind, assertion.request)) as PushedRequest | undefined
  if (!pushed) throw new OAuthError('invalid_request', 'login assertion: the request is unknown, used or expired')
  return { location: await answered(ctx, wallet, pushed, assertion, caller.requestId) }
}

/**
 * The wallet's `redirect_uri` for the user's answer: a new code for what was granted, or `access_denied`. Either is
 * audited `credential.authorize` in the issuer's tenant: the subject granted (outcome ok), or the client refused.
 */
async function answered(
  ctx: AuthorizationCodeContext,
  wallet: WalletCall,
  pushed: PushedRequest,
  answer: AuthorizeAnswer,
  requestId: string | undefined,
): Promise<string> {
  const actor = { tenantId: wallet.tenantId, dids: [], ...(requestId !== undefined && { requestId }) }
  const refuse = async (description: string) => {
    const act: AuditAct = {
      action: 'credential.authorize',
      target: { type: 'client', id: pushed.clientId },
      outcome: 'refused',
      error: 'ACCESS_DENIED',
    }
    await ctx.audit.record(actor, [act])
    return backToWallet(pushed, wallet, { error: 'access_denied', error_description: description })
  }
  if ('refused' in answer) return refuse(String(answer.refused).slice(0, 300))
  const subject = typeof answer.subject === 'string' && answer.subject.length > 0 ? answer.subject : undefined
  // Per configuration: the answer's own claims, else (a request bound to an offer by issuer_state) the offer's.
  const own = answer.claims ?? {}
  const offered = pushed.offer?.claims ?? {}
  const claims = Object.fromEntries(
    pushed.credentialConfigurationIds.flatMap((id) => {
      const given = Object.hasOwn(own, id) ? own[id] : Object.hasOwn(offered, id) ? offered[id] : undefined
      return typeof given === 'object' && given !== null && !Array.isArray(given) ? [[id, given]] : []
    }),
  )
  if (subject === undefined || Object.keys(claims).length === 0) return refuse('no credential was granted')
  const code = runtimeOf(ctx).lib.randomToken()
  const expiresAt = Date.now() + AUTHORIZATION_CODE_TTL_SECONDS * 1000
  const data: AuthorizationCodeData = {
    issuer: wallet.issuer,
    clientId: pushed.clientId,
    redirectUri: pushed.redirectUri,
    codeChallenge: pushed.codeChallenge,
    configurationIds: Object.keys(claims),
    claims,
    subject,
    expiresAt,
    ...(pushed.dpopJkt !== undefined && { dpopJkt: pushed.dpopJkt }),
    ...(pushed.offer !== undefined && { offerId: pushed.offer.id }),
  }
  // The code and the record of the authorization commit together: no code the trail does not show.
  await ctx.storage.transaction(async (tx) => {
    await ctx.oneTime.within(tx).issue(wallet.tenantId, ONE_TIME_KINDS.authorizationCode, code, {
      ttlMs: AUTHORIZATION_CODE_TTL_SECONDS * 1000,
      data: { ...data },
    })
    await ctx.audit.append(tx, actor, [
      {
        action: 'credential.authorize',
        target: { type: 'subject', id: subject, ...(pushed.offer !== undefined && { offer: pushed.offer.id }) },
      },
    ])
  })
  return backToWallet(pushed, wallet, { code })
}

/** `redirect_uri` with `parameters`, the wallet's `state` and `iss` (RFC 9207). */
function backToWallet(pushed: PushedRequest, wallet: WalletCall, parameters: Record<string, string>): string {
  const url = new URL(pushed.redirectUri)
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value)
  if (pushed.state !== undefined) url.searchParams.set('state', pushed.state)
  url.searchParams.set('iss', wallet.credentialIssuer)
  return url.href
}

async function rememberDpop(ctx: AuthorizationCodeContext, tenantId: string, proof: DpopProof): Promise<void> {
  const ttl = Math.max(1, proof.expiresAt.getTime() - Date.now())
  if (!(await ctx.oneTime.remember(tenantId, ONE_TIME_KINDS.dpopJti, proof.jti, ttl))) {
    throw new OAuthError('invalid_dpop_proof', 'the DPoP proof was used before')
  }
}

/** A token request of the `authorization_code` grant, as the token endpoint has it. */
export interface AuthorizationCodeTokenRequest {
  /** The issuer slug of the token endpoint's path. */
  issuer: string
  /** The Credential Issuer Identifier. */
  credentialIssuer: string
  /** The HTTP request (method, public URL, headers). */
  request: WalletRequest
  /** The parsed token request (`protocol.token.parseTokenRequest`). */
  token: TokenRequest
}

/**
 * The `authorization_code` grant of the token endpoint: consumes the code (single use across processes; a refused
 * redemption burns it too), checks client, `redirect_uri`, PKCE S256 and expiry (the adapter's `verifyGrant`), and the
 * DPoP key the code was bound to at PAR. `dpop` is the request's DPoP proof, verified by the caller before (so a
 * `use_dpop_nonce` retry keeps the code); the caller then remembers its `jti` and issues the access token for the
 * returned grant (bound to `jkt` when present). Refuses `invalid_grant` / `invalid_dpop_proof`.
 */
export async function redeemAuthorizationCode(
  ctx: Omit<AuthorizationCodeContext, 'audit'>,
  tenantId: string,
  request: AuthorizationCodeTokenRequest,
  dpop: DpopProof | undefined,
): Promise<AccessGrant> {
  const runtime = runtimeOf(ctx)
  const { grant } = request.token
  if (grant.type !== 'authorization_code') throw new OAuthError('unsupported_grant_type', 'not an authorization_code grant')
  const data = (await ctx.oneTime.consume(tenantId, ONE_TIME_KINDS.authorizationCode, grant.code)) as AuthorizationCodeData | undefined
  if (!data || data.issuer !== request.issuer) throw new OAuthError('invalid_grant', 'the code is unknown, used or expired')
  const configurations = await configurationsOf(ctx.storage, tenantId)
  await runtime.protocol.token.verifyGrant(request.request, request.token, {
    metadata: authorizationServerMetadata(request.credentialIssuer, configurations),
    expiresAt: new Date(data.expiresAt),
    codeChallenge: data.codeChallenge,
    redirectUri: data.redirectUri,
    clientId: data.clientId,
  })
  if (data.dpopJkt !== undefined && dpop?.jkt !== data.dpopJkt) {
    throw new OAuthError('invalid_dpop_proof', 'the code is bound to a DPoP key: a proof by that key is required')
  }
  const jkt = dpop?.jkt
  return {
    issuer: data.issuer,
    configurationIds: data.configurationIds,
    claims: data.claims,
    subject: data.subject,
    clientId: data.clientId,
    ...(data.offerId !== undefined && { offerId: data.offerId }),
    ...(jkt !== undefined && { jkt }),
  }
}

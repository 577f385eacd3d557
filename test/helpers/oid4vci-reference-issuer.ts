/**
 * TEST-ONLY REFERENCE ISSUER — not didvault's issuer, and not to be copied into src/.
 *
 * A minimal OID4VCI 1.0 Credential Issuer + authorization server built on the server side of `@openid4vc/openid4vci`
 * (Openid4vciIssuer) and `@openid4vc/oauth2` (Oauth2AuthorizationServer, Oauth2ResourceServer), in memory, on plain
 * loopback http behind the test TLS terminator (test/helpers/tls.ts). It exists so the wallet harness
 * (test/helpers/oid4vci-wallets.ts) can be validated while didvault's issuer is being built; every accommodation it
 * makes for a wallet client is written down in test/helpers/oid4vci-wallets.md, which the real issuer builds to.
 *
 * It issues one SD-JWT VC per key proof, signed with a throw-away P-256 key by `@sd-jwt/sd-jwt-vc`, bound with
 * `cnf.jwk` to the proof's key. "User authentication" at the authorization endpoint is a stub that approves everyone.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  Oauth2AuthorizationServer,
  Oauth2ResourceServer,
  Oauth2ResourceUnauthorizedError,
  Oauth2ServerErrorResponseError,
  PkceCodeChallengeMethod,
  authorizationCodeGrantIdentifier,
  decodeJwt,
  preAuthorizedCodeGrantIdentifier,
  type AuthorizationServerMetadata,
  type HttpMethod,
  type Jwk,
} from '@openid4vc/oauth2'
import { Openid4vciClient, Openid4vciIssuer, type IssuerMetadataResult } from '@openid4vc/openid4vci'
import { ES256, digest } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import * as jose from 'jose'
import { jwkOfDidJwk, newP256, oid4vcCallbacks } from './oid4vci-callbacks.js'
import { tlsTerminator, type TestCa, type TlsTerminator } from './tls.js'

/** The credential configuration the reference issuer offers by default (issued at once). */
export const REF_CONFIGURATION = 'RefIdentitySdJwt'
/** A configuration whose credentials are deferred: the first poll answers `issuance_pending`, the second the credential. */
export const REF_DEFERRED_CONFIGURATION = 'RefIdentitySdJwtDeferred'
/** `vct` of the issued SD-JWT VCs. */
export const REF_VCT = 'https://credentials.example/identity'
/** Claims every issued credential carries (selectively disclosable). */
export const REF_CLAIMS = { given_name: 'Ada', family_name: 'Lovelace' }
/** `batch_credential_issuance.batch_size`. */
export const REF_BATCH_SIZE = 3

/** One HTTP request the reference issuer received (for asserting what a client sends). */
export interface SeenRequest {
  method: string
  path: string
  headers: Record<string, string | string[] | undefined>
  body: string
}

export interface ReferenceIssuerOptions {
  /** Refuse token requests without a DPoP proof. */
  dpopRequired?: boolean
  /**
   * Accept key proofs without `typ: openid4vci-proof+jwt` and without `iat` (but with `kid` = a `did:jwk` URL,
   * `nonce`, `aud`, `exp`/`nbf`), as @digitalbazaar/oid4-client sends them. Default true.
   */
  acceptUntypedProofs?: boolean
}

export interface ReferenceIssuer {
  /** Credential Issuer Identifier, `https://localhost:<port>/oid4vci/ref`. */
  credentialIssuer: string
  /** The issuer's public key (verifies the SD-JWT VCs). */
  issuerJwk: Jwk
  /** Requests received, oldest first. */
  requests: SeenRequest[]
  /** Makes an offer (by reference) for one configuration; `txCode` asks for a PIN, returned here. */
  createOffer(options: {
    grant: 'pre-authorized_code' | 'authorization_code'
    configurationId?: string
    txCode?: boolean
  }): Promise<{ offerUri: string; txCode?: string }>
  close(): Promise<void>
}

const random = (bytes = 24) => randomBytes(bytes).toString('base64url')

/** Starts the reference issuer on loopback with TLS from `ca`. */
export async function startReferenceIssuer(ca: TestCa, options: ReferenceIssuerOptions = {}): Promise<ReferenceIssuer> {
  const acceptUntypedProofs = options.acceptUntypedProofs ?? true
  const asKey = newP256()
  const issuerKey = newP256()
  const requests: SeenRequest[] = []

  // Everything is filled in once the TLS terminator's port is known.
  let origin = ''
  let innerPort = 0
  let ci = ''
  /** The issuer's own fetches (JWKS for access tokens) go to the plain loopback port: this process trusts no test CA. */
  const loopbackFetch: typeof fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    return fetch(url.replace(origin, `http://127.0.0.1:${innerPort}`), init)
  }
  const callbacks = oid4vcCallbacks([asKey], loopbackFetch)
  const issuer = new Openid4vciIssuer({ callbacks })
  const as = new Oauth2AuthorizationServer({ callbacks })
  const rs = new Oauth2ResourceServer({ callbacks })

  const offers = new Map<string, object>()
  const preAuthCodes = new Map<string, { configurationIds: string[]; txCode?: string; expiresAt: Date }>()
  const issuerStates = new Map<string, { configurationIds: string[] }>()
  const pars = new Map<
    string,
    { clientId: string; redirectUri: string; state?: string; codeChallenge: string; dpopJkt?: string; configurationIds: string[] }
  >()
  const authCodes = new Map<
    string,
    { clientId: string; redirectUri: string; codeChallenge: string; dpopJkt?: string; configurationIds: string[] }
  >()
  const nonces = new Map<string, Date>()
  const deferred = new Map<string, { credentials: string[]; polls: number }>()

  const configuration = {
    format: 'dc+sd-jwt' as const,
    vct: REF_VCT,
    cryptographic_binding_methods_supported: ['jwk'],
    credential_signing_alg_values_supported: ['ES256'],
    proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
  }
  const credentialIssuerMetadata = () => ({
    credential_issuer: ci,
    // @digitalbazaar/oid4-client: `issuer` must equal credential_issuer, and token_endpoint is read from this document.
    issuer: ci,
    token_endpoint: `${ci}/token`,
    authorization_details_types_supported: ['openid_credential'],
    credential_endpoint: `${ci}/credential`,
    nonce_endpoint: `${ci}/nonce`,
    deferred_credential_endpoint: `${ci}/deferred-credential`,
    notification_endpoint: `${ci}/notification`,
    batch_credential_issuance: { batch_size: REF_BATCH_SIZE },
    credential_configurations_supported: {
      [REF_CONFIGURATION]: { ...configuration, scope: REF_CONFIGURATION },
      [REF_DEFERRED_CONFIGURATION]: { ...configuration, scope: REF_DEFERRED_CONFIGURATION },
    },
    display: [{ name: 'didvault reference issuer (test stub)', locale: 'en' }],
  })
  const asMetadata = (): AuthorizationServerMetadata =>
    as.createAuthorizationServerMetadata({
      issuer: ci,
      token_endpoint: `${ci}/token`,
      authorization_endpoint: `${ci}/authorize`,
      pushed_authorization_request_endpoint: `${ci}/par`,
      require_pushed_authorization_requests: true,
      code_challenge_methods_supported: [PkceCodeChallengeMethod.S256],
      dpop_signing_alg_values_supported: ['ES256'],
      jwks_uri: `${ci}/jwks`,
      grant_types_supported: [authorizationCodeGrantIdentifier, preAuthorizedCodeGrantIdentifier],
      response_types_supported: ['code'],
      'pre-authorized_grant_anonymous_access_supported': true,
    })
  let issuerMetadata: IssuerMetadataResult | undefined
  const metadata = async () => (issuerMetadata ??= await new Openid4vciClient({ callbacks }).resolveIssuerMetadata(ci))

  const sdJwt = new SDJwtVcInstance({
    signer: await ES256.getSigner(issuerKey.privateJwk),
    signAlg: 'ES256',
    hasher: digest,
    saltGenerator: () => random(16),
  })
  const issueTo = (jwk: Jwk) =>
    sdJwt.issue(
      { iss: ci, iat: Math.floor(Date.now() / 1000), vct: REF_VCT, cnf: { jwk }, ...REF_CLAIMS },
      { _sd: ['given_name', 'family_name'] },
      { header: { typ: 'dc+sd-jwt' } },
    )

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
    res.end(JSON.stringify(body))
  }
  const oauthError = (error: string, description: string, extra: Record<string, unknown> = {}) =>
    new Oauth2ServerErrorResponseError({ error, error_description: description, ...extra })

  /** Verifies one key proof; returns the holder's public key. */
  const verifyProof = async (jwt: string, md: IssuerMetadataResult): Promise<{ jwk: Jwk; nonce: string }> => {
    const { header, payload } = decodeJwt({ jwt })
    const nonce = typeof payload.nonce === 'string' ? payload.nonce : ''
    const expiresAt = nonces.get(nonce)
    if (!expiresAt || expiresAt < new Date()) throw oauthError('invalid_nonce', 'the proof nonce is unknown, used or expired')
    if (header.typ === 'openid4vci-proof+jwt') {
      const verified = await issuer.verifyCredentialRequestJwtProof({
        issuerMetadata: md,
        jwt,
        expectedNonce: nonce,
        nonceExpiresAt: expiresAt,
      })
      const jwk =
        verified.signer.method === 'jwk'
          ? verified.signer.publicJwk
          : verified.signer.method === 'did'
            ? jwkOfDidJwk(verified.signer.didUrl)
            : undefined
      if (!jwk) throw oauthError('invalid_proof', 'the proof key is neither a jwk nor a did:jwk')
      return { jwk, nonce }
    }
    // @digitalbazaar/oid4-client: no typ, no iat; kid is a DID URL, iss the DID, exp/nbf present.
    if (!acceptUntypedProofs || header.typ !== undefined || typeof header.kid !== 'string' || !header.kid.startsWith('did:jwk:'))
      throw oauthError('invalid_proof', 'the proof must be typed openid4vci-proof+jwt')
    const jwk = jwkOfDidJwk(header.kid)
    try {
      await jose.jwtVerify(jwt, await jose.importJWK(jwk as jose.JWK, header.alg), { audience: ci, requiredClaims: ['exp'] })
    } catch (cause) {
      throw oauthError('invalid_proof', `the proof does not verify: ${(cause as Error).message}`)
    }
    return { jwk, nonce }
  }

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, body: string, url: URL) => Promise<void>> = {
    'GET /.well-known/openid-credential-issuer': async (_req, res) => send(res, 200, credentialIssuerMetadata()),
    'GET /.well-known/oauth-authorization-server': async (_req, res) => send(res, 200, asMetadata()),
    'GET /jwks': async (_req, res) => send(res, 200, { keys: [asKey.publicJwk] }),
    'GET /offers': async (_req, res, _body, url) => {
      const offer = offers.get(url.pathname.split('/').pop()!)
      if (!offer) return send(res, 404, { error: 'not_found' })
      send(res, 200, offer)
    },
    'POST /nonce': async (_req, res) => {
      const nonce = random()
      nonces.set(nonce, new Date(Date.now() + 300_000))
      send(res, 200, issuer.createNonceResponse({ cNonce: nonce, cNonceExpiresIn: 300 }))
    },
    'POST /par': async (req, res, body) => {
      const request = { headers: new Headers(req.headers as Record<string, string>), method: 'POST' as HttpMethod, url: `${ci}/par` }
      const { authorizationRequest, dpop, clientAttestation } = await as.parsePushedAuthorizationRequest({
        authorizationRequest: Object.fromEntries(new URLSearchParams(body)),
        request,
      })
      const verified = await as.verifyPushedAuthorizationRequest({
        authorizationRequest,
        authorizationServerMetadata: asMetadata(),
        request,
        dpop,
        clientAttestation,
      })
      const ar = authorizationRequest as Record<string, unknown>
      if (ar.code_challenge_method !== 'S256' || typeof ar.code_challenge !== 'string')
        throw oauthError('invalid_request', 'PKCE with S256 is required')
      const fromState = typeof ar.issuer_state === 'string' ? issuerStates.get(ar.issuer_state) : undefined
      const scopes = typeof ar.scope === 'string' ? ar.scope.split(' ') : []
      const requestUri = `urn:ietf:params:oauth:request_uri:${random()}`
      pars.set(requestUri, {
        clientId: String(ar.client_id),
        redirectUri: String(ar.redirect_uri),
        state: typeof ar.state === 'string' ? ar.state : undefined,
        codeChallenge: ar.code_challenge,
        dpopJkt: verified.dpop?.jwkThumbprint,
        configurationIds: fromState?.configurationIds ?? scopes,
      })
      send(res, 201, as.createPushedAuthorizationResponse({ requestUri, expiresInSeconds: 60 }).pushedAuthorizationResponse)
    },
    'GET /authorize': async (_req, res, _body, url) => {
      // Stub user authentication: whoever follows the request_uri is approved.
      const par = pars.get(url.searchParams.get('request_uri') ?? '')
      if (!par || par.clientId !== url.searchParams.get('client_id')) return send(res, 400, { error: 'invalid_request' })
      pars.delete(url.searchParams.get('request_uri')!)
      const code = random()
      authCodes.set(code, par)
      const to = new URL(par.redirectUri)
      to.searchParams.set('code', code)
      if (par.state) to.searchParams.set('state', par.state)
      to.searchParams.set('iss', ci)
      res.writeHead(302, { location: to.href })
      res.end()
    },
    'POST /token': async (req, res, body) => {
      const request = { headers: new Headers(req.headers as Record<string, string>), method: 'POST' as HttpMethod, url: `${ci}/token` }
      const form = Object.fromEntries(new URLSearchParams(body))
      const parsed = as.parseAccessTokenRequest({ accessTokenRequest: form, request })
      const dpopRequest = { required: options.dpopRequired ?? false, jwt: parsed.dpop?.jwt }
      let configurationIds: string[]
      let subject: string
      let dpop: { jwk: Jwk } | undefined
      if (parsed.grant.grantType === preAuthorizedCodeGrantIdentifier) {
        const code = parsed.grant.preAuthorizedCode
        const known = preAuthCodes.get(code)
        if (!known) throw oauthError('invalid_grant', 'unknown or used pre-authorized code')
        ;({ dpop } = await as.verifyPreAuthorizedCodeAccessTokenRequest({
          authorizationServerMetadata: asMetadata(),
          grant: parsed.grant,
          accessTokenRequest: parsed.accessTokenRequest,
          request,
          expectedPreAuthorizedCode: code,
          expectedTxCode: known.txCode,
          preAuthorizedCodeExpiresAt: known.expiresAt,
          dpop: dpopRequest,
        }))
        preAuthCodes.delete(code)
        configurationIds = known.configurationIds
        subject = 'pre-authorized'
      } else if (parsed.grant.grantType === authorizationCodeGrantIdentifier) {
        const known = authCodes.get(parsed.grant.code)
        if (!known) throw oauthError('invalid_grant', 'unknown or used authorization code')
        ;({ dpop } = await as.verifyAuthorizationCodeAccessTokenRequest({
          authorizationServerMetadata: asMetadata(),
          grant: parsed.grant,
          accessTokenRequest: parsed.accessTokenRequest,
          request,
          expectedCode: parsed.grant.code,
          pkce: {
            codeChallenge: known.codeChallenge,
            codeChallengeMethod: PkceCodeChallengeMethod.S256,
            codeVerifier: parsed.pkceCodeVerifier,
          },
          dpop: { ...dpopRequest, required: dpopRequest.required || known.dpopJkt !== undefined, expectedJwkThumbprint: known.dpopJkt },
        }))
        authCodes.delete(parsed.grant.code)
        configurationIds = known.configurationIds
        subject = 'authorized-user'
      } else throw oauthError('unsupported_grant_type', 'grant type not supported')
      const response = await as.createAccessTokenResponse({
        audience: ci,
        authorizationServer: ci,
        signer: { method: 'jwk', alg: 'ES256', publicJwk: asKey.publicJwk },
        subject,
        expiresInSeconds: 300,
        dpop,
        scope: configurationIds.join(' '),
        additionalAccessTokenPayload: { configuration_ids: configurationIds },
        additionalAccessTokenResponsePayload: {
          // @digitalbazaar/oid4-client: token_type compared case-sensitively to 'bearer'; it sends a credential
          // request by credential_identifier only when authorization_details come back.
          ...(dpop ? {} : { token_type: 'bearer' }),
          authorization_details: configurationIds.map((id) => ({
            type: 'openid_credential',
            credential_configuration_id: id,
            credential_identifiers: [id],
          })),
        },
      })
      send(res, 200, response)
    },
    'POST /credential': async (req, res, body) => {
      const { tokenPayload } = await rs.verifyResourceRequest({
        authorizationServers: [asMetadata()],
        resourceServer: ci,
        request: { headers: new Headers(req.headers as Record<string, string>), method: 'POST', url: `${ci}/credential` },
      })
      const md = await metadata()
      const json = JSON.parse(body) as Record<string, unknown>
      // @digitalbazaar/oid4-client sends proofs: { proof_type: 'jwt', jwt: [...] }, which the library's parse refuses.
      const proofs = json.proofs as Record<string, unknown> | undefined
      if (proofs && 'proof_type' in proofs) {
        const { proof_type: _ignored, ...rest } = proofs
        json.proofs = rest
      }
      const parsed = issuer.parseCredentialRequest({ issuerMetadata: md, credentialRequest: json })
      const granted = (tokenPayload.configuration_ids as string[] | undefined) ?? []
      const configurationId =
        parsed.credentialConfigurationId ??
        parsed.credentialIdentifier ??
        (parsed.format ? granted.find((id) => md.knownCredentialConfigurations[id]?.format === parsed.format!.format) : undefined)
      if (!configurationId || !granted.includes(configurationId))
        throw oauthError('unknown_credential_configuration', 'not granted by this access token')
      const jwts = parsed.proofs?.jwt ?? []
      if (jwts.length === 0) throw oauthError('invalid_proof', 'a key proof is required')
      if (jwts.length > REF_BATCH_SIZE) throw oauthError('invalid_request', `at most ${REF_BATCH_SIZE} proofs`)
      const holders = await Promise.all(jwts.map((jwt) => verifyProof(jwt, md)))
      for (const { nonce } of holders) nonces.delete(nonce)
      const credentials = await Promise.all(holders.map(({ jwk }) => issueTo(jwk)))
      if (configurationId === REF_DEFERRED_CONFIGURATION) {
        const transactionId = random()
        deferred.set(transactionId, { credentials, polls: 0 })
        return send(res, 202, issuer.createCredentialResponse({ credentialRequest: parsed, transactionId, interval: 1 }))
      }
      const notificationId = random(12)
      send(
        res,
        200,
        issuer.createCredentialResponse({
          credentialRequest: parsed,
          credentials: credentials.map((credential) => ({ credential })),
          notificationId,
        }),
      )
    },
    'POST /deferred-credential': async (req, res, body) => {
      await rs.verifyResourceRequest({
        authorizationServers: [asMetadata()],
        resourceServer: ci,
        request: { headers: new Headers(req.headers as Record<string, string>), method: 'POST', url: `${ci}/deferred-credential` },
      })
      const { deferredCredentialRequest } = issuer.parseDeferredCredentialRequest({
        deferredCredentialRequest: JSON.parse(body) as Record<string, unknown>,
      })
      const pending = deferred.get(deferredCredentialRequest.transaction_id)
      if (!pending) throw oauthError('invalid_transaction_id', 'unknown transaction')
      if (pending.polls++ === 0)
        return send(
          res,
          202,
          issuer.createDeferredCredentialResponse({ transactionId: deferredCredentialRequest.transaction_id, interval: 1 }),
        )
      deferred.delete(deferredCredentialRequest.transaction_id)
      send(res, 200, issuer.createDeferredCredentialResponse({ credentials: pending.credentials.map((credential) => ({ credential })) }))
    },
    'POST /notification': async (_req, res) => {
      res.writeHead(204)
      res.end()
    },
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const url = new URL(req.url ?? '/', ci)
      requests.push({ method: req.method ?? '', path: url.pathname + url.search, headers: req.headers, body })
      if (process.env.REF_ISSUER_DEBUG)
        console.error(
          `${req.method} ${url.pathname}${url.search} auth=${String(req.headers.authorization).split(' ')[0]} dpop=${req.headers.dpop ? 'yes' : 'no'} ${body}`,
        )
      const base = new URL(ci).pathname
      const inserted = url.pathname.match(/^\/\.well-known\/([^/]+)(\/.*)$/)
      let key: string
      if (inserted && inserted[2] === base) key = `${req.method} /.well-known/${inserted[1]}`
      else if (url.pathname.startsWith(base)) key = `${req.method} ${url.pathname.slice(base.length).replace(/^\/offers\/.*$/, '/offers')}`
      else key = ''
      const handler = routes[key]
      if (!handler) return send(res, 404, { error: 'not_found' })
      handler(req, res, body, url).catch((error: unknown) => {
        if (error instanceof Oauth2ResourceUnauthorizedError)
          return send(res, 401, { error: 'invalid_token' }, { 'www-authenticate': error.toHeaderValue() })
        if (error instanceof Oauth2ServerErrorResponseError) {
          const extra: Record<string, string> = {}
          const errorBody = { ...error.errorResponse } as Record<string, unknown>
          if (errorBody.error === 'invalid_nonce' || errorBody.error === 'invalid_proof') {
            const nonce = random()
            nonces.set(nonce, new Date(Date.now() + 300_000))
            errorBody.c_nonce = nonce // for @digitalbazaar/oid4-client's retry
          }
          if (errorBody.error === 'use_dpop_nonce' || errorBody.error === 'invalid_dpop_proof') extra['cache-control'] = 'no-store'
          if (process.env.REF_ISSUER_DEBUG) console.error(errorBody)
          return send(res, error.status, errorBody, extra)
        }
        if (process.env.REF_ISSUER_DEBUG) console.error(error)
        send(res, 500, { error: 'server_error', error_description: (error as Error).message })
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  innerPort = (server.address() as AddressInfo).port
  const tls: TlsTerminator = await tlsTerminator(ca, innerPort)
  origin = tls.origin
  ci = `${origin}/oid4vci/ref`

  return {
    credentialIssuer: ci,
    issuerJwk: issuerKey.publicJwk,
    requests,
    async createOffer({ grant, configurationId = REF_CONFIGURATION, txCode }) {
      const offerId = random()
      const pin = txCode ? String(randomBytes(4).readUInt32BE() % 1_000_000).padStart(6, '0') : undefined
      let grants: Record<string, unknown>
      if (grant === 'pre-authorized_code') {
        const code = random()
        preAuthCodes.set(code, { configurationIds: [configurationId], txCode: pin, expiresAt: new Date(Date.now() + 300_000) })
        grants = {
          [preAuthorizedCodeGrantIdentifier]: {
            'pre-authorized_code': code,
            ...(pin ? { tx_code: { length: 6, input_mode: 'numeric', description: 'PIN sent separately' } } : {}),
          },
        }
      } else {
        const state = random()
        issuerStates.set(state, { configurationIds: [configurationId] })
        grants = { [authorizationCodeGrantIdentifier]: { issuer_state: state } }
      }
      const created = await issuer.createCredentialOffer({
        issuerMetadata: await metadata(),
        credentialConfigurationIds: [configurationId],
        grants,
        credentialOfferUri: `${ci}/offers/${offerId}`,
      })
      offers.set(offerId, created.credentialOfferObject)
      return { offerUri: created.credentialOffer, txCode: pin }
    },
    async close() {
      await tls.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

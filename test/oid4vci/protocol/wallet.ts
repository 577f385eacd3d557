/**
 * The wallet side for the protocol adapter's tests: keys, the client callbacks @openid4vc/oauth2 and
 * @openid4vc/openid4vci's clients need (signing with jose), an issuer's metadata, and an in-process `fetch` that hands
 * each request the clients make to a handler (the issuer side under test) and returns its answer.
 */
import { createHash, randomBytes } from 'node:crypto'
import { CompactSign, exportJWK, generateKeyPair, type CryptoKey } from 'jose'
import { clientAuthenticationNone, type AuthorizationServerMetadata, type CallbackContext, type Jwk } from '@openid4vc/oauth2'
import type { CredentialIssuerMetadata } from '@openid4vc/openid4vci'
import type { IssuerMetadata, WalletRequest } from '../../../src/oid4vc.js'
import { OAuthError } from '../../../src/oid4vc.js'

export const ISSUER = 'https://issuer.example/oid4vci/acme'
export const CLIENT_ID = 'wallet-client'

/** A wallet key: its public JWK and what signs with it. */
export interface WalletKey {
  publicJwk: Jwk
  privateKey: CryptoKey
  alg: 'ES256' | 'EdDSA'
}

export async function walletKey(alg: 'ES256' | 'EdDSA' = 'ES256'): Promise<WalletKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true })
  const { kty, crv, x, y } = await exportJWK(publicKey)
  return { publicJwk: { kty: kty!, crv, x, ...(y && { y }) }, privateKey, alg }
}

/** Signs a JWS over `header` and `payload` with `key`. */
export async function signWith(key: WalletKey, header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ ...header, alg: key.alg })
    .sign(key.privateKey)
}

/** The issuer's metadata (OID4VCI 1.0 field names), one SD-JWT VC configuration. */
/** The test issuer's metadata, in the library's types (what the adapter's looser {@link IssuerMetadata} takes). */
export interface LibraryIssuerMetadata extends IssuerMetadata {
  credentialIssuer: CredentialIssuerMetadata
  authorizationServer: AuthorizationServerMetadata
}

export function issuerMetadata(credentialIssuer = ISSUER): LibraryIssuerMetadata {
  return {
    credentialIssuer: {
      credential_issuer: credentialIssuer,
      credential_endpoint: `${credentialIssuer}/credential`,
      nonce_endpoint: `${credentialIssuer}/nonce`,
      notification_endpoint: `${credentialIssuer}/notification`,
      deferred_credential_endpoint: `${credentialIssuer}/deferred-credential`,
      batch_credential_issuance: { batch_size: 2 },
      credential_configurations_supported: {
        employee: {
          format: 'dc+sd-jwt',
          vct: 'https://issuer.example/vct/employee',
          scope: 'employee',
          cryptographic_binding_methods_supported: ['jwk'],
          credential_signing_alg_values_supported: ['ES256'],
          proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256', 'EdDSA'] } },
        },
      },
    },
    authorizationServer: {
      issuer: credentialIssuer,
      token_endpoint: `${credentialIssuer}/token`,
      authorization_endpoint: `${credentialIssuer}/authorize`,
      pushed_authorization_request_endpoint: `${credentialIssuer}/par`,
      require_pushed_authorization_requests: true,
      code_challenge_methods_supported: ['S256'],
      dpop_signing_alg_values_supported: ['ES256', 'EdDSA'],
      'pre-authorized_grant_anonymous_access_supported': true,
      grant_types_supported: ['authorization_code', 'urn:ietf:params:oauth:grant-type:pre-authorized_code'],
    },
  }
}

/** A request as the issuer's router sees it, with its body. */
export interface Received {
  request: WalletRequest
  body: Record<string, unknown>
}

/** An issuer-side handler: the request → status, body and headers. */
export type Handler = (received: Received) => Promise<{ status: number; body: unknown; headers?: Record<string, string> }>

/** Runs `handler`, answering an {@link OAuthError} with its OAuth body, status and headers. */
async function answer(handler: Handler, received: Received) {
  try {
    return await handler(received)
  } catch (err) {
    if (err instanceof OAuthError) return { status: err.statusCode, body: err.oauthBody(), headers: { ...err.headers } }
    throw err
  }
}

/** An in-process fetch: each request to `routes[url]` is handed to its handler; every request is recorded. */
export function loopbackFetch(routes: Record<string, Handler>, seen: Received[] = []): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init)
    const url = request.url
    const handler = routes[url.split('?')[0]]
    if (!handler) return new Response('not found', { status: 404 })
    const text = await request.text()
    const type = request.headers.get('content-type') ?? ''
    const body: Record<string, unknown> = type.includes('application/json')
      ? (JSON.parse(text) as Record<string, unknown>)
      : Object.fromEntries(new URLSearchParams(text))
    const received: Received = {
      request: {
        method: request.method,
        url,
        ...(request.headers.get('dpop') !== null && { dpop: request.headers.get('dpop')! }),
        ...(request.headers.get('authorization') !== null && { authorization: request.headers.get('authorization')! }),
      },
      body,
    }
    seen.push(received)
    const { status, body: out, headers } = await answer(handler, received)
    return new Response(JSON.stringify(out), { status, headers: { 'content-type': 'application/json', ...headers } })
  }
}

/** The callbacks of the library's clients, signing with whichever {@link WalletKey} holds the signer's public key. */
export function clientCallbacks(
  fetchFn: typeof fetch,
  keys: WalletKey[],
): Omit<CallbackContext, 'verifyJwt' | 'decryptJwe' | 'encryptJwe'> {
  return {
    fetch: fetchFn,
    hash: (data, alg) => new Uint8Array(createHash(alg.replace('-', '')).update(data).digest()),
    generateRandom: (length) => new Uint8Array(randomBytes(length)),
    clientAuthentication: clientAuthenticationNone({ clientId: CLIENT_ID }),
    signJwt: async (signer, { header, payload }) => {
      const publicJwk = signer.method === 'jwk' ? signer.publicJwk : undefined
      const key = keys.find((k) => k.publicJwk.x === publicJwk?.x) ?? keys[0]
      return { jwt: await signWith(key, header, payload), signerJwk: key.publicJwk }
    },
  }
}

/** A DPoP signer option for the clients. */
export const dpopSigner = (key: WalletKey) => ({ signer: { method: 'jwk' as const, alg: key.alg, publicJwk: key.publicJwk } })

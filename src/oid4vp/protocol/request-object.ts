/**
 * The verifier's Authorization Request (OID4VP 1.0 §5) and its Request Object (RFC 9101 JAR, `typ:
 * oauth-authz-req+jwt`), made with `@openid4vc/openid4vp`'s verifier; the DCQL query checked with `dcql`; the ephemeral
 * ECDH-ES key of an encrypted response (`direct_post.jwt`) made with `jose`. Pure: keys and single use are the caller's.
 */
import { randomBytes } from 'node:crypto'
import { Openid4vpVerifier } from '@openid4vc/openid4vp'
import { CompactSign, importJWK, type JWK } from 'jose'

/** The `aud` of a Request Object under static discovery (OID4VP 1.0 §5.8). */
export const VP_REQUEST_OBJECT_AUDIENCE = 'https://self-issued.me/v2'
/** The `typ` (and media type) of a Request Object (RFC 9101 §10.2). */
export const VP_REQUEST_OBJECT_TYPE = 'oauth-authz-req+jwt'

/**
 * Who signs a Request Object:
 * - `did`: a key of the verifier's DID (`kid` its verification method), signing through `sign` (the key port);
 * - `x5c`: the operator's certificate key (`privateKeyJwk`, signed here with jose), `x5c` the chain (base64 DER);
 * - `none`: unsigned (`alg: none`), for the `redirect_uri:` client identifier prefix.
 */
export type VpRequestSigner =
  | { method: 'did'; alg: string; kid: string; sign(data: Uint8Array): Promise<Uint8Array> }
  | { method: 'x5c'; alg: string; x5c: string[]; privateKeyJwk: Record<string, unknown> }
  | { method: 'none' }

/** The parameters of an Authorization Request the Request Object carries (OID4VP 1.0 §5.1). */
export interface VpAuthorizationRequestParameters {
  client_id: string
  response_uri: string
  response_mode: 'direct_post' | 'direct_post.jwt'
  nonce: string
  state: string
  dcql_query: Record<string, unknown>
  client_metadata: Record<string, unknown>
  transaction_data?: string[]
}

/** What {@link vpRequestObject} signs. */
export interface VpRequestObjectInput {
  parameters: VpAuthorizationRequestParameters
  signer: VpRequestSigner
  /** Where the wallet fetches the Request Object (`request_uri`). */
  requestUri: string
  /** The Request Object's `iat`, and its `exp` (UNIX ms): the request's expiry. */
  now: number
  expiresAt: number
  /** The wallet's `wallet_nonce` of a `request_uri_method=post` fetch (OID4VP 1.0 §5.10). */
  walletNonce?: string
}

/** The signed (or, `alg: none`, unsigned) Request Object of a request: a compact JWS. */
export async function vpRequestObject(input: VpRequestObjectInput): Promise<string> {
  const { signer } = input
  const verifier = new Openid4vpVerifier({
    callbacks: {
      signJwt: async (_jwtSigner: unknown, { header, payload }: { header: Record<string, unknown>; payload: Record<string, unknown> }) => ({
        jwt: await signCompact(signer, header, payload),
        signerJwk: undefined as never,
      }),
      encryptJwe: () => Promise.reject(new Error('oid4vp: request objects are not encrypted')),
      decryptJwe: () => Promise.reject(new Error('oid4vp: not used')),
      verifyJwt: () => Promise.reject(new Error('oid4vp: not used')),
      hash: () => {
        throw new Error('oid4vp: not used')
      },
      fetch,
    },
  })
  const jwtSigner =
    signer.method === 'did'
      ? { method: 'did', alg: signer.alg, didUrl: signer.kid }
      : signer.method === 'x5c'
        ? { method: 'x5c', alg: signer.alg, x5c: signer.x5c }
        : { method: 'custom', alg: 'none' }
  const expiresInSeconds = Math.max(1, Math.round((input.expiresAt - input.now) / 1000))
  const payload = {
    response_type: 'vp_token' as const,
    ...input.parameters,
    ...(input.walletNonce !== undefined && { wallet_nonce: input.walletNonce }),
  }
  const made = await verifier.createOpenId4vpAuthorizationRequest({
    authorizationRequestPayload: payload,
    jar: {
      requestUri: input.requestUri,
      jwtSigner: jwtSigner as never,
      expiresInSeconds,
      additionalJwtPayload: { aud: VP_REQUEST_OBJECT_AUDIENCE },
    },
    ...(input.walletNonce !== undefined && { wallet: { expectedNonce: input.walletNonce } }),
    now: new Date(input.now),
  })
  return made.jar!.authorizationRequestJwt
}

/** The compact JWS of `header` and `payload` by `signer` (`alg: none`: an empty signature). */
async function signCompact(signer: VpRequestSigner, header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(payload))
  if (signer.method === 'x5c') {
    const key = await importJWK(signer.privateKeyJwk as JWK, signer.alg)
    return new CompactSign(bytes).setProtectedHeader({ ...header, alg: signer.alg }).sign(key)
  }
  const input = `${b64(new TextEncoder().encode(JSON.stringify(header)))}.${b64(bytes)}`
  if (signer.method === 'none') return `${input}.`
  return `${input}.${b64(await signer.sign(new TextEncoder().encode(input)))}`
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')

/** The JWS algorithm of an operator's private JWK (P-256 → ES256, Ed25519 → EdDSA); undefined for other keys. */
export function vpAlgOfJwk(jwk: Record<string, unknown>): 'ES256' | 'EdDSA' | undefined {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256'
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA'
  return undefined
}

/** 32 random bytes, base64url: a request id, nonce or `state`. */
export const vpRandomValue = (): string => randomBytes(32).toString('base64url')

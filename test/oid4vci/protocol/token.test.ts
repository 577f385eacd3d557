/**
 * The token endpoint and DPoP, driven by @openid4vc/oauth2's Oauth2Client: the requests are the client's own (form
 * body, DPoP header), handed in process to the adapter.
 */
import { createHash } from 'node:crypto'
import { Oauth2Client, Oauth2ClientErrorResponseError } from '@openid4vc/oauth2'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  createOid4vciProtocol,
  OAuthError,
  randomToken,
  tokenResponse,
  type DpopProof,
  type GrantExpectations,
} from '../../../src/oid4vc.js'
import { clientCallbacks, dpopSigner, issuerMetadata, loopbackFetch, walletKey, type Received, type WalletKey } from './wallet.js'

const metadata = issuerMetadata()
const as = metadata.authorizationServer
let key: WalletKey

beforeAll(async () => {
  key = await walletKey()
})

/** A token endpoint that checks the grant against `expect`, and records the DPoP proofs it verified. */
function tokenEndpoint(expect: Omit<GrantExpectations, 'metadata'>, proofs: DpopProof[], now?: () => Date) {
  const protocol = createOid4vciProtocol({ now })
  return async ({ request, body }: Received) => {
    const parsed = protocol.token.parseTokenRequest(request, body)
    const dpop = parsed.hasDpop ? await protocol.dpop.verify(request) : undefined
    if (dpop) proofs.push(dpop)
    await protocol.token.verifyGrant(request, parsed, { metadata: as, ...expect })
    return { status: 200, body: tokenResponse({ accessToken: randomToken(), expiresInSeconds: 300, dpopJkt: dpop?.jkt }) }
  }
}

async function refusal(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(Oauth2ClientErrorResponseError)
  return (err as Oauth2ClientErrorResponseError).errorResponse
}

describe('token endpoint: pre-authorized code', () => {
  it('answers a DPoP-bound token to the client’s request with tx_code, and returns the proof’s jti and key thumbprint', async () => {
    const proofs: DpopProof[] = []
    const client = new Oauth2Client({
      callbacks: clientCallbacks(loopbackFetch({ [as.token_endpoint]: tokenEndpoint({ txCodeRequired: true }, proofs) }), [key]),
    })
    const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessToken({
      authorizationServerMetadata: as,
      preAuthorizedCode: 'code-1',
      txCode: '493536',
      dpop: dpopSigner(key),
    })
    expect(accessTokenResponse.token_type).toBe('DPoP')
    expect(accessTokenResponse.expires_in).toBe(300)
    expect(accessTokenResponse.c_nonce).toBeUndefined()
    expect(proofs).toHaveLength(1)
    expect(proofs[0].jti).toMatch(/.{8,}/)
    const { kty, crv, x, y } = key.publicJwk
    const thumbprint = createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url')
    expect(proofs[0].jkt).toBe(thumbprint)
  })

  it('answers a Bearer token without DPoP', async () => {
    const client = new Oauth2Client({ callbacks: clientCallbacks(loopbackFetch({ [as.token_endpoint]: tokenEndpoint({}, []) }), [key]) })
    const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessToken({
      authorizationServerMetadata: as,
      preAuthorizedCode: 'code-2',
    })
    expect(accessTokenResponse.token_type).toBe('Bearer')
  })

  it('refuses a missing tx_code the offer asked for, and one it did not ask for (invalid_request)', async () => {
    const asking = new Oauth2Client({
      callbacks: clientCallbacks(loopbackFetch({ [as.token_endpoint]: tokenEndpoint({ txCodeRequired: true }, []) }), [key]),
    })
    expect(
      await refusal(asking.retrievePreAuthorizedCodeAccessToken({ authorizationServerMetadata: as, preAuthorizedCode: 'c' })),
    ).toMatchObject({ error: 'invalid_request' })
    const notAsking = new Oauth2Client({ callbacks: clientCallbacks(loopbackFetch({ [as.token_endpoint]: tokenEndpoint({}, []) }), [key]) })
    expect(
      await refusal(
        notAsking.retrievePreAuthorizedCodeAccessToken({ authorizationServerMetadata: as, preAuthorizedCode: 'c', txCode: '1234' }),
      ),
    ).toMatchObject({
      error: 'invalid_request',
    })
  })

  it('refuses an expired code (invalid_grant)', async () => {
    const client = new Oauth2Client({
      callbacks: clientCallbacks(loopbackFetch({ [as.token_endpoint]: tokenEndpoint({ expiresAt: new Date(Date.now() - 1000) }, []) }), [
        key,
      ]),
    })
    expect(
      await refusal(client.retrievePreAuthorizedCodeAccessToken({ authorizationServerMetadata: as, preAuthorizedCode: 'c' })),
    ).toMatchObject({ error: 'invalid_grant' })
  })

  it('refuses an unknown grant type (unsupported_grant_type)', () => {
    const protocol = createOid4vciProtocol()
    const request = { method: 'POST', url: as.token_endpoint }
    expect(() => protocol.token.parseTokenRequest(request, { grant_type: 'password', username: 'a' })).toThrow(
      expect.objectContaining({ error: 'unsupported_grant_type', statusCode: 400 }),
    )
  })
})

describe('token endpoint: authorization code with PKCE S256', () => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
  const challenge = createHash('sha256').update(verifier).digest('base64url')

  it('answers when code_verifier matches the code_challenge, client_id and redirect_uri', async () => {
    const endpoint = tokenEndpoint({ codeChallenge: challenge, clientId: 'wallet-client', redirectUri: 'https://wallet.example/cb' }, [])
    const client = new Oauth2Client({ callbacks: clientCallbacks(loopbackFetch({ [as.token_endpoint]: endpoint }), [key]) })
    const { accessTokenResponse } = await client.retrieveAuthorizationCodeAccessToken({
      authorizationServerMetadata: as,
      authorizationCode: 'auth-code',
      pkceCodeVerifier: verifier,
      redirectUri: 'https://wallet.example/cb',
      dpop: dpopSigner(key),
    })
    expect(accessTokenResponse.token_type).toBe('DPoP')
  })

  it('refuses a code_verifier that does not match (invalid_grant), without quoting it', async () => {
    const endpoint = tokenEndpoint({ codeChallenge: challenge }, [])
    const client = new Oauth2Client({ callbacks: clientCallbacks(loopbackFetch({ [as.token_endpoint]: endpoint }), [key]) })
    const wrong = 'x'.repeat(43)
    const body = await refusal(
      client.retrieveAuthorizationCodeAccessToken({ authorizationServerMetadata: as, authorizationCode: 'c', pkceCodeVerifier: wrong }),
    )
    expect(body.error).toBe('invalid_grant')
    expect(JSON.stringify(body)).not.toContain(wrong)
    expect(JSON.stringify(body)).not.toContain(challenge)
  })

  it('refuses a missing code_verifier and another redirect_uri (invalid_grant)', async () => {
    const endpoint = tokenEndpoint({ codeChallenge: challenge, redirectUri: 'https://wallet.example/cb' }, [])
    const client = new Oauth2Client({ callbacks: clientCallbacks(loopbackFetch({ [as.token_endpoint]: endpoint }), [key]) })
    expect(
      await refusal(
        client.retrieveAuthorizationCodeAccessToken({
          authorizationServerMetadata: as,
          authorizationCode: 'c',
          redirectUri: 'https://wallet.example/cb',
        }),
      ),
    ).toMatchObject({ error: 'invalid_grant' })
    expect(
      await refusal(
        client.retrieveAuthorizationCodeAccessToken({
          authorizationServerMetadata: as,
          authorizationCode: 'c',
          pkceCodeVerifier: verifier,
          redirectUri: 'https://evil.example/cb',
        }),
      ),
    ).toMatchObject({ error: 'invalid_grant' })
  })
})

describe('DPoP proofs', () => {
  /** A DPoP proof the client made for a token request. */
  async function clientProof(): Promise<Received> {
    const seen: Received[] = []
    const client = new Oauth2Client({
      callbacks: clientCallbacks(loopbackFetch({ [as.token_endpoint]: tokenEndpoint({}, []) }, seen), [key]),
    })
    await client.retrievePreAuthorizedCodeAccessToken({ authorizationServerMetadata: as, preAuthorizedCode: 'c', dpop: dpopSigner(key) })
    return seen[0]
  }

  it('refuses a proof made for another URL or another method (invalid_dpop_proof)', async () => {
    const { request } = await clientProof()
    const protocol = createOid4vciProtocol()
    await expect(
      protocol.dpop.verify({ ...request, url: `${metadata.credentialIssuer.credential_issuer}/credential` }),
    ).rejects.toMatchObject({
      error: 'invalid_dpop_proof',
      description: expect.stringContaining('another URL'),
    })
    await expect(protocol.dpop.verify({ ...request, method: 'GET' })).rejects.toMatchObject({
      error: 'invalid_dpop_proof',
      description: expect.stringContaining('another HTTP method'),
    })
  })

  it('reports the same jti for a replayed proof (the caller’s remember refuses it) and distinct ones for fresh proofs', async () => {
    const first = await clientProof()
    const second = await clientProof()
    const protocol = createOid4vciProtocol()
    const a = await protocol.dpop.verify(first.request)
    const replay = await protocol.dpop.verify(first.request)
    const b = await protocol.dpop.verify(second.request)
    expect(replay.jti).toBe(a.jti)
    expect(b.jti).not.toBe(a.jti)
    expect(a.expiresAt.getTime()).toBeGreaterThan(Date.now())
  })

  it('refuses a stale proof (iat outside the window)', async () => {
    const { request } = await clientProof()
    const later = createOid4vciProtocol({ now: () => new Date(Date.now() + 10 * 60_000) })
    await expect(later.dpop.verify(request)).rejects.toMatchObject({
      error: 'invalid_dpop_proof',
      description: expect.stringContaining('stale'),
    })
  })

  it('asks for the server nonce with use_dpop_nonce and a DPoP-Nonce header; the client retries with it', async () => {
    const nonce = randomToken(16)
    const protocol = createOid4vciProtocol()
    const nonces: (string | undefined)[] = []
    const endpoint = async ({ request, body }: Received) => {
      const parsed = protocol.token.parseTokenRequest(request, body)
      const proof = await protocol.dpop.verify(request, { nonce }).catch((err: unknown) => {
        nonces.push(undefined)
        throw err
      })
      nonces.push(nonce)
      return { status: 200, body: tokenResponse({ accessToken: randomToken(), expiresInSeconds: 60, dpopJkt: proof.jkt }), parsed }
    }
    const client = new Oauth2Client({ callbacks: clientCallbacks(loopbackFetch({ [as.token_endpoint]: endpoint }), [key]) })
    const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessToken({
      authorizationServerMetadata: as,
      preAuthorizedCode: 'c',
      dpop: dpopSigner(key),
    })
    expect(accessTokenResponse.token_type).toBe('DPoP')
    expect(nonces).toEqual([undefined, nonce])
  })

  it('requires a proof when asked to verify one (invalid_dpop_proof), 401 with WWW-Authenticate at resources', async () => {
    const protocol = createOid4vciProtocol()
    const err = await protocol.dpop.verify({ method: 'POST', url: as.token_endpoint }, {}, 401).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(OAuthError)
    expect(err).toMatchObject({
      error: 'invalid_dpop_proof',
      statusCode: 401,
      headers: { 'WWW-Authenticate': 'DPoP error="invalid_dpop_proof"' },
    })
  })
})

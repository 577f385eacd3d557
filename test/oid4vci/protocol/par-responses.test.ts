/**
 * PAR (driven by Oauth2Client's pushed authorization request), and the nonce, credential (deferred), deferred and
 * notification bodies as the library's clients read them.
 */
import { createHash } from 'node:crypto'
import { Oauth2Client } from '@openid4vc/oauth2'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  createOid4vciProtocol,
  credentialResponse,
  deferredCredentialResponse,
  newRequestUri,
  nonceResponse,
  parseDeferredCredentialRequest,
  parseNotificationRequest,
  parsePushedAuthorizationRequest,
  pushedAuthorizationResponse,
  requestUriReference,
  type PushedAuthorizationRequest,
} from '../../../src/oid4vc.js'
import {
  CLIENT_ID,
  clientCallbacks,
  dpopSigner,
  issuerMetadata,
  loopbackFetch,
  walletKey,
  type Received,
  type WalletKey,
} from './wallet.js'

const metadata = issuerMetadata()
const as = metadata.authorizationServer
let key: WalletKey

beforeAll(async () => {
  key = await walletKey()
})

describe('pushed authorization requests', () => {
  async function push(payload: Record<string, unknown>, withDpop = true) {
    const protocol = createOid4vciProtocol()
    const parsed: PushedAuthorizationRequest[] = []
    const endpoint = async ({ request, body }: Received) => {
      parsed.push(await parsePushedAuthorizationRequest(request, body, metadata, protocol.dpop))
      return { status: 201, body: pushedAuthorizationResponse(newRequestUri().requestUri, 60) }
    }
    const client = new Oauth2Client({
      callbacks: clientCallbacks(loopbackFetch({ [as.pushed_authorization_request_endpoint!]: endpoint }), [key]),
    })
    const result = await client.createAuthorizationRequestUrl({
      authorizationServerMetadata: as,
      clientId: CLIENT_ID,
      redirectUri: 'https://wallet.example/cb',
      ...(typeof payload.scope === 'string' && { scope: payload.scope }),
      additionalRequestPayload: { issuer_state: 'offer-state', ...payload },
      ...(withDpop && { dpop: dpopSigner(key) }),
    })
    return { result, parsed: parsed[0] }
  }

  it('gives back client, PKCE challenge, configurations, issuer_state, redirect_uri and the DPoP key', async () => {
    const details = [{ type: 'openid_credential', credential_configuration_id: 'employee' }]
    const { result, parsed } = await push({ authorization_details: details })
    expect(parsed).toMatchObject({
      clientId: CLIENT_ID,
      credentialConfigurationIds: ['employee'],
      issuerState: 'offer-state',
      redirectUri: 'https://wallet.example/cb',
      authorizationDetails: details,
    })
    expect(parsed.codeChallenge).toBe(createHash('sha256').update(result.pkce!.codeVerifier).digest('base64url'))
    expect(parsed.dpopJkt).toBe(parsed.dpop?.jkt)
    const requestUri = new URL(result.authorizationRequestUrl).searchParams.get('request_uri')!
    expect(requestUriReference(requestUri)).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it('maps a scope to its configuration, and refuses unknown ones', async () => {
    expect((await push({ scope: 'employee' }, false)).parsed.credentialConfigurationIds).toEqual(['employee'])
    await expect(push({ scope: 'nothing' }, false)).rejects.toMatchObject({ errorResponse: { error: 'invalid_scope' } })
    // Beside authorization_details, a scope value naming no configuration is ignored (Sphereon sends `openid`).
    const details = [{ type: 'openid_credential', credential_configuration_id: 'employee' }]
    expect((await push({ scope: 'openid', authorization_details: details }, false)).parsed.credentialConfigurationIds).toEqual(['employee'])
    await expect(
      push({ authorization_details: [{ type: 'openid_credential', credential_configuration_id: 'nope' }] }),
    ).rejects.toMatchObject({
      errorResponse: { error: 'invalid_authorization_details' },
    })
  })

  it('refuses a request without PKCE S256, and request objects', async () => {
    const protocol = createOid4vciProtocol()
    const request = { method: 'POST', url: as.pushed_authorization_request_endpoint! }
    const base = { response_type: 'code', client_id: CLIENT_ID, scope: 'employee' }
    await expect(parsePushedAuthorizationRequest(request, base, metadata, protocol.dpop)).rejects.toMatchObject({
      error: 'invalid_request',
    })
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
    await expect(
      parsePushedAuthorizationRequest(
        request,
        { ...base, code_challenge: challenge, code_challenge_method: 'plain' },
        metadata,
        protocol.dpop,
      ),
    ).rejects.toMatchObject({ error: 'invalid_request' })
    await expect(
      parsePushedAuthorizationRequest(request, { ...base, request_uri: 'https://evil.example/r' }, metadata, protocol.dpop),
    ).rejects.toMatchObject({
      error: 'request_not_supported',
    })
  })
})

describe('response bodies', () => {
  const request = (() => {
    const protocol = createOid4vciProtocol()
    return protocol.credential.parse({ credential_configuration_id: 'employee', proofs: { jwt: ['e30.e30.sig'] } }, metadata)
  })()

  it('nonce: { c_nonce }', () => {
    expect(nonceResponse('abc')).toEqual({ c_nonce: 'abc' })
  })

  it('credential: credentials [{ credential }] and notification_id; deferred: 202 with transaction_id and interval', () => {
    expect(credentialResponse(request, { credentials: ['ey.a.b~'], notificationId: 'n' })).toEqual({
      status: 200,
      body: { credentials: [{ credential: 'ey.a.b~' }], notification_id: 'n' },
    })
    expect(credentialResponse(request, { transactionId: 't-1', interval: 5 })).toEqual({
      status: 202,
      body: { transaction_id: 't-1', interval: 5 },
    })
    expect(deferredCredentialResponse({ credentials: [{ '@context': [] }] })).toEqual({
      status: 200,
      body: { credentials: [{ credential: { '@context': [] } }] },
    })
    expect(parseDeferredCredentialRequest({ transaction_id: 't-1' })).toEqual({ transactionId: 't-1' })
    expect(() => parseDeferredCredentialRequest({})).toThrow(expect.objectContaining({ error: 'invalid_credential_request' }))
  })

  it('notification: id, event and description; refuses unknown events', () => {
    expect(parseNotificationRequest({ notification_id: 'n', event: 'credential_accepted' })).toEqual({
      notificationId: 'n',
      event: 'credential_accepted',
    })
    expect(parseNotificationRequest({ notification_id: 'n', event: 'credential_failure', event_description: 'x' })).toMatchObject({
      description: 'x',
    })
    expect(() => parseNotificationRequest({ notification_id: 'n', event: 'credential_lost' })).toThrow(
      expect.objectContaining({ error: 'invalid_notification_request' }),
    )
  })
})

/**
 * The credential endpoint: access token (DPoP-bound or Bearer), the request and its key proofs, driven by
 * @openid4vc/openid4vci's Openid4vciClient (proofs made by `createCredentialRequestJwtProof`, requests sent by
 * `retrieveCredentials`); hand-made proofs only where a client would never make them (wrong typ, swapped key).
 */
import { createHash } from 'node:crypto'
import { Openid4vciClient, Openid4vciVersion, type IssuerMetadataResult } from '@openid4vc/openid4vci'
import type { VerificationMethod } from 'did-resolver'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  createOid4vciProtocol,
  credentialResponse,
  invalidNonce,
  randomToken,
  verifyResourceRequest,
  type HolderKey,
  type IssuerMetadata,
} from '../../../src/oid4vc.js'
import {
  CLIENT_ID,
  clientCallbacks,
  dpopSigner,
  issuerMetadata,
  ISSUER,
  loopbackFetch,
  signWith,
  walletKey,
  type Received,
  type WalletKey,
} from './wallet.js'

const metadata = issuerMetadata()

function clientMetadata(m: IssuerMetadata): IssuerMetadataResult {
  return {
    originalDraftVersion: Openid4vciVersion.V1,
    credentialIssuer: m.credentialIssuer as IssuerMetadataResult['credentialIssuer'],
    authorizationServers: [m.authorizationServer as IssuerMetadataResult['authorizationServers'][number]],
    knownCredentialConfigurations: m.credentialIssuer
      .credential_configurations_supported as IssuerMetadataResult['knownCredentialConfigurations'],
  }
}

let dpopKey: WalletKey
let holderA: WalletKey
let holderB: WalletKey

beforeAll(async () => {
  ;[dpopKey, holderA, holderB] = await Promise.all([walletKey(), walletKey(), walletKey('EdDSA')])
})

/** An issuer side: access tokens and nonces it issued, the keys it bound credentials to. */
function issuerSide(options: { resolveKey?: (didUrl: string) => Promise<VerificationMethod | undefined>; clientId?: string } = {}) {
  const protocol = createOid4vciProtocol({ resolveKey: options.resolveKey })
  const tokens = new Map<string, { jkt?: string }>()
  const nonces = new Set<string>()
  const bound: HolderKey[][] = []
  const endpoint = async ({ request, body }: Received) => {
    await verifyResourceRequest(request, (token) => Promise.resolve(tokens.get(token)), protocol.dpop)
    const parsed = protocol.credential.parse(body, metadata)
    const { keys, nonces: used } = await protocol.credential.verifyProofs(parsed, {
      metadata,
      clientId: options.clientId,
      allowedAlgs: ['ES256', 'EdDSA'],
      batchSize: 2,
    })
    if (!used.every((nonce) => nonces.delete(nonce))) throw invalidNonce()
    bound.push(keys)
    const { status, body: out } = credentialResponse(parsed, {
      credentials: keys.map((k) => `credential-for-${k.jkt}`),
      notificationId: 'n-1',
    })
    return { status, body: out }
  }
  const issueNonce = () => {
    const nonce = randomToken(16)
    nonces.add(nonce)
    return nonce
  }
  return { protocol, tokens, nonces, bound, endpoint, issueNonce }
}

function walletFor(issuer: ReturnType<typeof issuerSide>, keys: WalletKey[], seen: Received[] = []) {
  return new Openid4vciClient({
    callbacks: clientCallbacks(loopbackFetch({ [metadata.credentialIssuer.credential_endpoint]: issuer.endpoint }, seen), keys),
  })
}

const jwkSigner = (key: WalletKey) => ({ method: 'jwk' as const, alg: key.alg, publicJwk: key.publicJwk })

describe('credential endpoint', () => {
  it('issues one credential per proof key with a DPoP-bound token (1.0 proofs), in the 1.0 response shape', async () => {
    const issuer = issuerSide()
    const wallet = walletFor(issuer, [holderA, holderB, dpopKey])
    const token = randomToken()
    const { crv, kty, x, y } = dpopKey.publicJwk
    const jkt = createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url')
    issuer.tokens.set(token, { jkt })
    const nonce = issuer.issueNonce()
    const issuerMetadataResult = clientMetadata(metadata)
    const proofs = await Promise.all(
      [holderA, holderB].map(
        async (key) =>
          (
            await wallet.createCredentialRequestJwtProof({
              issuerMetadata: issuerMetadataResult,
              credentialConfigurationId: 'employee',
              signer: jwkSigner(key),
              nonce,
            })
          ).jwt,
      ),
    )
    const result = await wallet.retrieveCredentials({
      issuerMetadata: issuerMetadataResult,
      credentialConfigurationId: 'employee',
      proofs: { jwt: proofs },
      accessToken: token,
      dpop: dpopSigner(dpopKey),
    })
    expect(result.credentialResponse.credentials).toHaveLength(2)
    expect(result.credentialResponse.notification_id).toBe('n-1')
    expect(issuer.bound[0].map((k) => k.jwk)).toEqual([holderA.publicJwk, holderB.publicJwk])
    expect(issuer.nonces.size).toBe(0)
  })

  it('answers a draft-15 single proof like a one-element proofs, with a Bearer token', async () => {
    const issuer = issuerSide()
    const wallet = walletFor(issuer, [holderA])
    const token = randomToken()
    issuer.tokens.set(token, {})
    const issuerMetadataResult = clientMetadata(metadata)
    const { jwt } = await wallet.createCredentialRequestJwtProof({
      issuerMetadata: issuerMetadataResult,
      credentialConfigurationId: 'employee',
      signer: jwkSigner(holderA),
      nonce: issuer.issueNonce(),
    })
    const result = await wallet.retrieveCredentials({
      issuerMetadata: issuerMetadataResult,
      credentialConfigurationId: 'employee',
      proof: { proof_type: 'jwt', jwt },
      accessToken: token,
    })
    expect(result.credentialResponse.credentials).toHaveLength(1)
    expect(issuer.bound[0][0].jwk).toEqual(holderA.publicJwk)
  })
})

describe('access tokens on the credential endpoint', () => {
  it('refuses an unknown token and a bound token sent as Bearer (401 invalid_token, WWW-Authenticate)', async () => {
    const protocol = createOid4vciProtocol()
    const lookup = (t: string) => Promise.resolve(t === 'bound' ? { jkt: 'abc' } : undefined)
    const url = metadata.credentialIssuer.credential_endpoint
    await expect(verifyResourceRequest({ method: 'POST', url, authorization: 'Bearer nope' }, lookup, protocol.dpop)).rejects.toMatchObject(
      {
        error: 'invalid_token',
        statusCode: 401,
        headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
      },
    )
    await expect(
      verifyResourceRequest({ method: 'POST', url, authorization: 'Bearer bound' }, lookup, protocol.dpop),
    ).rejects.toMatchObject({
      error: 'invalid_token',
      statusCode: 401,
    })
    await expect(verifyResourceRequest({ method: 'POST', url }, lookup, protocol.dpop)).rejects.toMatchObject({
      error: 'invalid_token',
      statusCode: 401,
    })
  })

  it('refuses a DPoP proof by another key than the token is bound to, and one that does not name the token (ath)', async () => {
    const issuer = issuerSide()
    const token = randomToken()
    issuer.tokens.set(token, { jkt: 'not-this-key' })
    const seen: Received[] = []
    const wallet = walletFor(issuer, [holderA, dpopKey], seen)
    const issuerMetadataResult = clientMetadata(metadata)
    const { jwt } = await wallet.createCredentialRequestJwtProof({
      issuerMetadata: issuerMetadataResult,
      credentialConfigurationId: 'employee',
      signer: jwkSigner(holderA),
      nonce: issuer.issueNonce(),
    })
    const err = await wallet
      .retrieveCredentials({
        issuerMetadata: issuerMetadataResult,
        credentialConfigurationId: 'employee',
        proofs: { jwt: [jwt] },
        accessToken: token,
        dpop: dpopSigner(dpopKey),
      })
      .then(
        () => undefined,
        (e: unknown) => e as { response?: { response: Response; wwwAuthenticate?: { scheme: string; error?: string }[] } },
      )
    expect(err?.response?.response.status).toBe(401)
    expect(err?.response?.wwwAuthenticate).toEqual([expect.objectContaining({ scheme: 'DPoP', error: 'invalid_dpop_proof' })])
    // The same proof presented with another token: its ath names the first.
    const { request } = seen[0]
    const other = randomToken()
    await expect(
      issuer.protocol.dpop.verify({ ...request, authorization: `DPoP ${other}` }, { accessToken: other }, 401),
    ).rejects.toMatchObject({ error: 'invalid_dpop_proof', description: expect.stringContaining('access token') })
  })
})

describe('key proofs', () => {
  const requestWith = (jwt: string) => ({ credential_configuration_id: 'employee', proofs: { jwt: [jwt] } })

  async function verifyOne(jwt: string, options: { now?: () => Date; clientId?: string } = {}) {
    const protocol = createOid4vciProtocol({ now: options.now })
    const parsed = protocol.credential.parse(requestWith(jwt), metadata)
    return protocol.credential.verifyProofs(parsed, { metadata, clientId: options.clientId, allowedAlgs: ['ES256', 'EdDSA'] })
  }

  async function clientProof(
    options: { key?: WalletKey; nonce?: string; issuedAt?: Date; metadata?: IssuerMetadata; clientId?: string } = {},
  ) {
    const wallet = new Openid4vciClient({ callbacks: clientCallbacks(fetch, [options.key ?? holderA]) })
    const { jwt } = await wallet.createCredentialRequestJwtProof({
      issuerMetadata: clientMetadata(options.metadata ?? metadata),
      credentialConfigurationId: 'employee',
      signer: jwkSigner(options.key ?? holderA),
      nonce: 'nonce' in options ? options.nonce : 'n-0',
      issuedAt: options.issuedAt,
      clientId: options.clientId,
    })
    return jwt
  }

  it('gives back the key (JWK and thumbprint) and the nonce for the caller to consume', async () => {
    const { keys, nonces } = await verifyOne(await clientProof({ nonce: 'n-42' }))
    expect(nonces).toEqual(['n-42'])
    expect(keys[0].jwk).toEqual(holderA.publicJwk)
    expect(keys[0].jkt).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it('refuses a proof of another typ (invalid_proof)', async () => {
    const now = Math.floor(Date.now() / 1000)
    const jwt = await signWith(holderA, { typ: 'JWT', jwk: holderA.publicJwk }, { aud: ISSUER, iat: now, nonce: 'n' })
    await expect(verifyOne(jwt)).rejects.toMatchObject({
      error: 'invalid_proof',
      description: expect.stringContaining('openid4vci-proof+jwt'),
    })
  })

  it('refuses a proof for another issuer (aud)', async () => {
    const jwt = await clientProof({ metadata: issuerMetadata('https://other.example/oid4vci/x') })
    await expect(verifyOne(jwt)).rejects.toMatchObject({ error: 'invalid_proof', description: expect.stringContaining('aud') })
  })

  it('refuses a stale proof and one from the future (iat window)', async () => {
    await expect(verifyOne(await clientProof({ issuedAt: new Date(Date.now() - 10 * 60_000) }))).rejects.toMatchObject({
      error: 'invalid_proof',
      description: expect.stringContaining('iat'),
    })
    await expect(verifyOne(await clientProof({ issuedAt: new Date(Date.now() + 10 * 60_000) }))).rejects.toMatchObject({
      error: 'invalid_proof',
    })
  })

  it('refuses a proof signed by one key whose header names another (signature fails)', async () => {
    const now = Math.floor(Date.now() / 1000)
    const jwt = await signWith(
      holderA,
      { typ: 'openid4vci-proof+jwt', jwk: holderB.publicJwk, alg: 'EdDSA' },
      { aud: ISSUER, iat: now, nonce: 'n' },
    )
    // alg follows the signing key (ES256); header key is B's (Ed25519).
    await expect(verifyOne(jwt)).rejects.toMatchObject({ error: 'invalid_proof' })
    const other = await walletKey()
    const swapped = await signWith(holderA, { typ: 'openid4vci-proof+jwt', jwk: other.publicJwk }, { aud: ISSUER, iat: now, nonce: 'n' })
    await expect(verifyOne(swapped)).rejects.toMatchObject({
      error: 'invalid_proof',
      description: expect.stringContaining('does not verify'),
    })
  })

  it('refuses a proof without nonce (invalid_proof), and the caller answers an unknown nonce with invalid_nonce', async () => {
    await expect(verifyOne(await clientProof({ nonce: undefined }))).rejects.toMatchObject({
      error: 'invalid_proof',
      description: expect.stringContaining('nonce'),
    })
    expect(invalidNonce('fresh').oauthBody()).toEqual({ error: 'invalid_nonce', error_description: expect.any(String), c_nonce: 'fresh' })
  })

  it('checks iss against the client the token was issued to; iss is optional (OID4VCI 1.0 Appendix F.1)', async () => {
    await expect(verifyOne(await clientProof({ clientId: CLIENT_ID }), { clientId: CLIENT_ID })).resolves.toBeDefined()
    await expect(verifyOne(await clientProof(), { clientId: CLIENT_ID })).resolves.toBeDefined()
    await expect(verifyOne(await clientProof({ clientId: 'someone-else' }), { clientId: CLIENT_ID })).rejects.toMatchObject({
      error: 'invalid_proof',
      description: expect.stringContaining('iss'),
    })
  })

  it('refuses an algorithm the configuration does not allow', async () => {
    const protocol = createOid4vciProtocol()
    const parsed = protocol.credential.parse(requestWith(await clientProof({ key: holderB })), metadata)
    await expect(protocol.credential.verifyProofs(parsed, { metadata, allowedAlgs: ['ES256'] })).rejects.toMatchObject({
      error: 'invalid_proof',
    })
  })

  it('batch: distinct keys only, at most batch_size proofs', async () => {
    const protocol = createOid4vciProtocol()
    const a = await clientProof()
    const a2 = await clientProof()
    const b = await clientProof({ key: holderB })
    const same = protocol.credential.parse({ credential_configuration_id: 'employee', proofs: { jwt: [a, a2] } }, metadata)
    await expect(protocol.credential.verifyProofs(same, { metadata, batchSize: 2 })).rejects.toMatchObject({
      error: 'invalid_proof',
      description: expect.stringContaining('distinct'),
    })
    const three = protocol.credential.parse({ credential_configuration_id: 'employee', proofs: { jwt: [a, b, a2] } }, metadata)
    await expect(protocol.credential.verifyProofs(three, { metadata, batchSize: 2 })).rejects.toMatchObject({
      error: 'invalid_credential_request',
    })
    const two = protocol.credential.parse({ credential_configuration_id: 'employee', proofs: { jwt: [a, b] } }, metadata)
    expect((await protocol.credential.verifyProofs(two, { metadata, batchSize: 2 })).keys).toHaveLength(2)
  })

  it('resolves a did:jwk kid through the resolve callback, and gives back the DID', async () => {
    const did = `did:jwk:${Buffer.from(JSON.stringify(holderA.publicJwk)).toString('base64url')}`
    const resolveKey = (didUrl: string): Promise<VerificationMethod | undefined> =>
      Promise.resolve(
        didUrl === `${did}#0` ? { id: didUrl, type: 'JsonWebKey2020', controller: did, publicKeyJwk: holderA.publicJwk } : undefined,
      )
    const now = Math.floor(Date.now() / 1000)
    const jwt = await signWith(holderA, { typ: 'openid4vci-proof+jwt', kid: `${did}#0` }, { aud: ISSUER, iat: now, nonce: 'n' })
    const protocol = createOid4vciProtocol({ resolveKey })
    const parsed = protocol.credential.parse(requestWith(jwt), metadata)
    const { keys } = await protocol.credential.verifyProofs(parsed, { metadata })
    expect(keys[0]).toMatchObject({ did, kid: `${did}#0`, jwk: holderA.publicJwk })
    await expect(protocol.credential.verifyProofs(parsed, { metadata, bindings: ['jwk'] })).rejects.toMatchObject({
      error: 'invalid_proof',
    })
    // Without a resolver such a proof cannot verify.
    const bare = createOid4vciProtocol()
    await expect(bare.credential.verifyProofs(parsed, { metadata })).rejects.toMatchObject({ error: 'invalid_proof' })
  })

  it('refuses an unknown configuration, a request naming none, and one without proofs', () => {
    const protocol = createOid4vciProtocol()
    expect(() => protocol.credential.parse({ credential_configuration_id: 'nope', proofs: { jwt: ['a.b.c'] } }, metadata)).toThrow(
      expect.objectContaining({ error: 'unknown_credential_configuration' }),
    )
    expect(() => protocol.credential.parse({ proofs: { jwt: ['a.b.c'] } }, metadata)).toThrow(
      expect.objectContaining({ error: 'invalid_credential_request' }),
    )
    expect(() => protocol.credential.parse({ credential_configuration_id: 'employee' }, metadata)).toThrow(
      expect.objectContaining({ error: 'invalid_proof' }),
    )
  })
})

/**
 * The wallet side of OID4VCI, once per client library and flow: given an offer URI (and the `tx_code` when the offer
 * asks for one), each function runs the whole wallet side against the issuer and returns what it received. Their
 * quirks — what each sends and requires of the issuer — are in test/helpers/oid4vci-wallets.md.
 *
 * The issuer is https on loopback behind a test CA, so the clients run in a child process that trusts the CA through
 * `NODE_EXTRA_CA_CERTS` ({@link runWallet}); nothing turns certificate checks off.
 */
import { sign as nodeSign, createPrivateKey } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { dirname, resolve } from 'node:path'
import type { Jwk } from '@openid4vc/oauth2'
import { didJwkOf, newP256, oid4vcCallbacks, type KeyPair } from './oid4vci-callbacks.js'
import { spawnNode } from './spawn.js'

/** What a wallet received. */
export interface WalletResult {
  client: WalletName
  /** The credentials, as the issuer sent them (compact SD-JWT VCs as strings). */
  credentials: unknown[]
  /** The public keys the wallet proved possession of, one per credential, in order. */
  holderJwks: Jwk[]
  /** Their private keys (openid4vc only), for presenting the credentials afterwards (test/oid4vp/serve-e2e.test.ts). */
  holderPrivateJwks?: Jwk[]
  /** The DPoP key, when the wallet used DPoP. */
  dpopJwk?: Jwk
  /** Every `c_nonce` the wallet saw (nonce endpoint, token or error responses). */
  cNonces: string[]
  /** The token response and the credential (and deferred) responses, raw. */
  tokenResponse: unknown
  responses: unknown[]
}

export interface WalletOptions {
  /** The PIN, when the offer carries a `tx_code`. */
  txCode?: string
  /** Use DPoP (token and credential requests). */
  dpop?: boolean
  /** Number of key proofs (batch issuance); default 1. */
  batch?: number
}

const REDIRECT_URI = 'https://wallet.example/callback'
const CLIENT_ID = 'didvault-test-wallet'

/** The credential of a 1.0 `credentials` entry (`{ credential }`). */
const credentialOf = (entry: unknown): unknown =>
  typeof entry === 'object' && entry !== null && 'credential' in entry ? entry.credential : entry

/**
 * Follows the authorization endpoint's redirects as a browser would — straight to `redirect_uri` when the issuer
 * approves by itself, or through the operator's login page (302 to `loginUrl`, 302 back to `<ci>/authorize/return`,
 * 302 to `redirect_uri`) — and returns the `code` the wallet's `redirect_uri` receives (never fetched).
 */
async function followAuthorization(authorizationRequestUrl: string): Promise<{ code: string; state?: string; iss?: string }> {
  let url = authorizationRequestUrl
  for (let hop = 0; hop < 5; hop++) {
    const response = await fetch(url, { redirect: 'manual' })
    const location = response.headers.get('location')
    if (response.status !== 302 || !location) throw new Error(`${url} answered ${response.status}: ${await response.text()}`)
    const next = new URL(location, url)
    if (next.href.startsWith(`${REDIRECT_URI}?`)) {
      const code = next.searchParams.get('code')
      if (!code) throw new Error(`no code in the redirect: ${location}`)
      return { code, state: next.searchParams.get('state') ?? undefined, iss: next.searchParams.get('iss') ?? undefined }
    }
    url = next.href
  }
  throw new Error(`more than 5 redirects from ${authorizationRequestUrl}`)
}

/** The third client: `@openid4vc/openid4vci` (not independent of the reference issuer's library). Both grants. */
export async function openid4vcWallet(offerUri: string, options: WalletOptions = {}): Promise<WalletResult> {
  const { Openid4vciClient } = await import('@openid4vc/openid4vci')
  const { preAuthorizedCodeGrantIdentifier, authorizationCodeGrantIdentifier } = await import('@openid4vc/oauth2')
  const holders = Array.from({ length: options.batch ?? 1 }, () => newP256())
  const dpopKey = options.dpop ? newP256() : undefined
  const callbacks = oid4vcCallbacks([...holders, ...(dpopKey ? [dpopKey] : [])])
  const client = new Openid4vciClient({ callbacks })
  const offer = await client.resolveCredentialOffer(offerUri)
  const issuerMetadata = await client.resolveIssuerMetadata(offer.credential_issuer)
  const configurationId = offer.credential_configuration_ids[0]
  const dpop = dpopKey ? { signer: { method: 'jwk' as const, alg: 'ES256', publicJwk: dpopKey.publicJwk } } : undefined

  let token
  if (offer.grants?.[preAuthorizedCodeGrantIdentifier]) {
    token = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer: offer,
      issuerMetadata,
      txCode: options.txCode,
      dpop,
    })
  } else if (offer.grants?.[authorizationCodeGrantIdentifier]) {
    const authorization = await client.createAuthorizationRequestUrlFromOffer({
      credentialOffer: offer,
      issuerMetadata,
      clientId: CLIENT_ID,
      redirectUri: REDIRECT_URI,
      scope: configurationId,
      dpop,
    })
    const { code } = await followAuthorization(authorization.authorizationRequestUrl)
    token = await client.retrieveAuthorizationCodeAccessTokenFromOffer({
      credentialOffer: offer,
      issuerMetadata,
      authorizationCode: code,
      pkceCodeVerifier: authorization.pkce?.codeVerifier,
      redirectUri: REDIRECT_URI,
      dpop: authorization.dpop,
    })
  } else throw new Error('the offer has no grant this wallet knows')

  const { c_nonce: nonce } = await client.requestNonce({ issuerMetadata })
  const jwts = await Promise.all(
    holders.map(async (holder) => {
      const { jwt } = await client.createCredentialRequestJwtProof({
        issuerMetadata,
        credentialConfigurationId: configurationId,
        signer: { method: 'jwk', alg: 'ES256', publicJwk: holder.publicJwk },
        nonce,
      })
      return jwt
    }),
  )
  const retrieved = await client.retrieveCredentials({
    issuerMetadata,
    accessToken: token.accessTokenResponse.access_token,
    credentialConfigurationId: configurationId,
    proofs: { jwt: jwts },
    dpop: token.dpop,
  })
  const responses: unknown[] = [retrieved.credentialResponse]
  let credentials = retrieved.credentialResponse.credentials?.map(credentialOf) ?? []
  const transactionId = retrieved.credentialResponse.transaction_id
  let dpopState = token.dpop ? { ...token.dpop, ...retrieved.dpop } : undefined
  if (transactionId) {
    for (let poll = 0; poll < 10 && credentials.length === 0; poll++) {
      await new Promise((done) => setTimeout(done, (retrieved.credentialResponse.interval ?? 1) * 1000))
      const deferred = await client.retrieveDeferredCredentials({
        issuerMetadata,
        accessToken: token.accessTokenResponse.access_token,
        transactionId,
        dpop: dpopState,
      })
      responses.push(deferred.deferredCredentialResponse)
      dpopState = dpopState ? { ...dpopState, ...deferred.dpop } : undefined
      credentials = deferred.deferredCredentialResponse.credentials?.map(credentialOf) ?? []
    }
  }
  return {
    client: 'openid4vc',
    credentials,
    holderJwks: holders.map((holder) => holder.publicJwk),
    holderPrivateJwks: holders.map((holder) => holder.privateJwk),
    dpopJwk: dpopKey?.publicJwk,
    cNonces: [nonce],
    tokenResponse: token.accessTokenResponse,
    responses,
  }
}

/** `@digitalbazaar/oid4-client` 5.10.0: pre-authorized code only (no tx_code, no DPoP), nonce endpoint, did:jwk key proof. */
export async function digitalbazaarWallet(offerUri: string, options: WalletOptions = {}): Promise<WalletResult> {
  if (options.txCode || options.dpop || (options.batch ?? 1) > 1)
    throw new Error('@digitalbazaar/oid4-client sends no tx_code, no DPoP, one proof')
  const specifier: string = '@digitalbazaar/oid4-client' // untyped JavaScript package
  const { OID4Client, getCredentialOffer } = (await import(specifier)) as DigitalBazaarModule
  const holder = newP256()
  const did = didJwkOf(holder.publicJwk)
  const privateKey = createPrivateKey({ key: holder.privateJwk as never, format: 'jwk' })
  const didProofSigner = {
    id: `${did}#0`,
    algorithm: 'P-256',
    sign: async ({ data }: { data: Uint8Array }) =>
      new Uint8Array(nodeSign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' })),
  }
  const offer = await getCredentialOffer({ url: offerUri })
  const client = await OID4Client.fromCredentialOffer({ offer, supportedFormats: ['dc+sd-jwt'] })
  const { nonce } = await client.getNonce()
  const result = await client.requestCredentials({ did, didProofSigner, nonce, format: 'dc+sd-jwt' })
  return {
    client: 'digitalbazaar',
    credentials: result.credentials ?? [],
    holderJwks: [holder.publicJwk],
    cNonces: [nonce],
    tokenResponse: { access_token: client.accessToken, authorization_details: client.authorizationDetails },
    responses: [result],
  }
}

interface DigitalBazaarModule {
  getCredentialOffer(options: { url: string }): Promise<object>
  OID4Client: {
    fromCredentialOffer(options: { offer: object; supportedFormats: string[] }): Promise<{
      accessToken: string
      authorizationDetails: unknown
      getNonce(): Promise<{ nonce: string }>
      requestCredentials(options: object): Promise<{ credentials?: unknown[]; credential_responses?: unknown[] }>
    }>
  }
}

/** `@sphereon/oid4vci-client` 0.20.1 (draft 15): pre-authorized ± tx_code and authorization code, optional DPoP. */
export async function sphereonWallet(offerUri: string, options: WalletOptions = {}): Promise<WalletResult> {
  const { OpenID4VCIClientV1_0_15 } = await import('@sphereon/oid4vci-client')
  const jose = await import('jose')
  const holder = newP256()
  const dpopKey = options.dpop ? newP256() : undefined
  const signWith = async (pair: KeyPair, header: object, payload: object) =>
    new jose.CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader(header as never)
      .sign(await jose.importJWK(pair.privateJwk as never, 'ES256'))
  const client = await OpenID4VCIClientV1_0_15.fromURI({
    uri: offerUri,
    clientId: CLIENT_ID,
    authorizationRequest: { redirectUri: REDIRECT_URI, clientId: CLIENT_ID },
  })
  const createDPoPOpts = dpopKey
    ? {
        jwtIssuer: { alg: 'ES256', jwk: dpopKey.publicJwk as never },
        jwtPayloadProps: {},
        // Sphereon sends a DPoP proof to the token endpoint only when told the algorithms (it does not read them).
        dPoPSigningAlgValuesSupported: client.endpointMetadata.authorizationServerMetadata?.dpop_signing_alg_values_supported ?? ['ES256'],
        createJwtCallback: async (_issuer: unknown, jwt: { header: object; payload: object }) => signWith(dpopKey, jwt.header, jwt.payload),
      }
    : undefined
  let authorizationResponse: string | undefined
  if (!client.credentialOffer?.preAuthorizedCode && client.credentialOffer) {
    const url = await client.createAuthorizationRequestUrl({
      authorizationRequest: { redirectUri: REDIRECT_URI, clientId: CLIENT_ID, scope: client.getCredentialOfferConfigurationIds()[0] },
    })
    const { code } = await followAuthorization(url)
    authorizationResponse = `${REDIRECT_URI}?code=${encodeURIComponent(code)}`
  }
  const token = await client.acquireAccessToken({
    pin: options.txCode,
    createDPoPOpts: createDPoPOpts as never,
    authorizationResponse,
    redirectUri: REDIRECT_URI,
  })
  const configurationId = client.getCredentialOfferConfigurationIds()[0]
  const response = await client.acquireCredentials({
    credentialConfigurationId: configurationId,
    format: 'dc+sd-jwt',
    alg: 'ES256',
    jwk: holder.publicJwk,
    createDPoPOpts: createDPoPOpts,
    proofCallbacks: { signCallback: async (jwt) => signWith(holder, jwt.header, jwt.payload) },
  })
  const record = response as unknown as { credential?: unknown; credentials?: Array<{ credential: unknown }> }
  const credentials = record.credentials?.map((entry) => entry.credential) ?? (record.credential ? [record.credential] : [])
  return {
    client: 'sphereon',
    credentials,
    holderJwks: [holder.publicJwk],
    dpopJwk: dpopKey?.publicJwk,
    cNonces: [token.c_nonce, (response as { c_nonce?: string }).c_nonce].filter((nonce): nonce is string => typeof nonce === 'string'),
    tokenResponse: token,
    responses: [response],
  }
}

export const WALLETS = { openid4vc: openid4vcWallet, digitalbazaar: digitalbazaarWallet, sphereon: sphereonWallet }
export type WalletName = keyof typeof WALLETS

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), 'oid4vci-wallet-main.ts')
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/**
 * Runs `wallet` on `offerUri` in a child process (`node --import tsx`) that trusts `caFile` through
 * `NODE_EXTRA_CA_CERTS`; resolves with its result, rejects with the child's error and output.
 */
export async function runWallet(wallet: WalletName, offerUri: string, options: WalletOptions & { caFile: string }): Promise<WalletResult> {
  const { caFile, ...walletOptions } = options
  const child = spawnNode(['--import', 'tsx', MAIN, wallet, offerUri, JSON.stringify(walletOptions)], {
    cwd: ROOT,
    env: { NODE_EXTRA_CA_CERTS: caFile },
  })
  const exit = await child.exited
  const line = child
    .stdout()
    .split('\n')
    .find((l) => l.startsWith('WALLET-RESULT '))
  if (exit.code !== 0 || !line)
    throw new Error(`${wallet} failed (exit ${exit.code})\n--- stdout\n${child.stdout()}\n--- stderr\n${child.stderr()}`)
  return JSON.parse(line.slice('WALLET-RESULT '.length)) as WalletResult
}

/**
 * The holder side of OpenID for Verifiable Presentations 1.0, once per wallet client library: given the
 * authorization request URI a verifier shows (`openid4vp://?client_id=…&request_uri=…`) and the credentials the wallet
 * holds, {@link VpWallet.answer} resolves the request (by reference, GET or POST on `request_uri`), checks the request
 * object's signature (DID or x5c chain, or none for `redirect_uri:`), picks credentials for the DCQL query with the
 * `dcql` library, makes the presentations bound to the request (SD-JWT VC + KB-JWT, VP-JWT, Data Integrity VP), posts
 * them (`direct_post`, or `direct_post.jwt` encrypted to the request's `client_metadata.jwks`) and returns what the
 * verifier answered. What each client requires of the verifier is in test/helpers/oid4vp-wallets.md.
 *
 * Negative knobs ({@link Tamper}) let tests send what an honest wallet would not. Test-only.
 */
import { createHash, randomBytes, X509Certificate, createPublicKey } from 'node:crypto'
import { Agent as HttpsAgent } from 'node:https'
import * as jose from 'jose'
import { Agent as UndiciAgent, fetch as undiciFetch } from 'undici'
import { DcqlQuery } from 'dcql'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { digest, ES256 } from '@sd-jwt/crypto-nodejs'
import { createVerifiablePresentationJwt } from 'did-jwt-vc'
import { ES256Signer } from 'did-jwt'
import type { CallbackContext, Jwk } from '@openid4vc/oauth2'
import { loadDigitalbazaarLibraries, type LibraryDocumentLoader } from './w3c-di-vectors.js'

/** A credential the wallet holds, with the key that binds it to its holder. */
export type HeldCredential =
  | { format: 'dc+sd-jwt'; sdjwt: string; holderKey: jose.JWK }
  | { format: 'jwt_vc_json'; jwt: string; holderDid: string; holderKey: jose.JWK; holderKid?: string }
  | { format: 'ldp_vc'; credential: Record<string, unknown>; holderDid: string; holderKey: jose.JWK; holderKid?: string }

/** What the wallet sends that an honest wallet would not (each is a negative case of the specification). */
export interface Tamper {
  /** Bind the presentations to this nonce (KB-JWT `nonce`, VP-JWT `nonce`, DI `challenge`) instead of the request's. */
  nonce?: string
  /** Bind the presentations to this audience (KB-JWT / VP-JWT `aud`, DI `domain`) instead of the client id. */
  aud?: string
  /** `direct_post.jwt`: encrypt the response to this public JWK instead of the request's `client_metadata.jwks` key. */
  encryptTo?: jose.JWK
  /** SD-JWT VC: do not disclose this (top-level) claim although the query asks for it. */
  omitClaim?: string
  /** SD-JWT VC: also disclose this (top-level) claim although the query does not ask for it. */
  extraDisclose?: string
  /** Post this form body (an earlier {@link WalletAnswer.sent}) verbatim to this request's `response_uri`. */
  replay?: Record<string, string>
}

/** How the verifier is trusted. */
export interface WalletTrust {
  /** The public JWK of a DID URL (the request object's `kid`), for `decentralized_identifier:` requests. */
  resolveDidKey?: (didUrl: string) => Promise<jose.JWK>
  /** Trust anchors (PEM) for `x509_san_dns:` / `x509_hash:` requests. */
  trustedCertificates?: string[]
  /** A CA (PEM) the wallet trusts for https to the verifier (the test CA of test/helpers/tls.ts). */
  ca?: string
  /** JSON-LD document loader for Data Integrity presentations (`ldp_vc`). */
  documentLoader?: LibraryDocumentLoader
}

export interface AnswerOptions {
  tamper?: Tamper
  /** Fetch the request object with this method whatever `request_uri_method` says. */
  requestUriMethod?: 'get' | 'post'
  /** When no held credential matches a credential query, present the first one of its format anyway (default: throw). */
  sendUnmatched?: boolean
  /** `request_uri_method=post`: the `wallet_nonce` to send (default: a fresh one); checked in the request object. */
  walletNonce?: string
}

/** What the verifier answered to the response (and what was sent). */
export interface WalletAnswer {
  status: number
  body: unknown
  /** `redirect_uri` of the verifier's answer (same-device flow). */
  redirectUri?: string
  /** The form body posted to `response_uri` (for {@link Tamper.replay}). */
  sent: Record<string, string>
  /** The resolved (verified) authorization request. */
  request: Record<string, unknown>
}

export interface VpWallet {
  name: 'digitalbazaar/oid4-client' | 'openid4vc/openid4vp'
  answer(authorizationRequestUri: string, credentials: HeldCredential[], options?: AnswerOptions): Promise<WalletAnswer>
}

/** The metadata the wallets send on a `request_uri_method=post` fetch. */
export const WALLET_METADATA = {
  vp_formats_supported: {
    'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256'], 'kb-jwt_alg_values': ['ES256'] },
    jwt_vc_json: { alg_values: ['ES256'] },
    ldp_vc: { proof_type_values: ['DataIntegrityProof'], cryptosuite_values: ['ecdsa-rdfc-2019'] },
  },
  request_object_signing_alg_values_supported: ['ES256'],
  client_id_prefixes_supported: ['decentralized_identifier', 'x509_san_dns', 'x509_hash', 'redirect_uri'],
}

// ---------------------------------------------------------------------------------------------------------------
// Credential selection (dcql) and presentations (independent of the wallet client library)

type Json = Record<string, unknown>
type DcqlCredentialInput = Parameters<typeof DcqlQuery.query>[1][number]
type ClaimsQuery = { id?: string; path: (string | number | null)[] }
type CredentialQuery = { id: string; format: string; claims?: ClaimsQuery[]; claim_sets?: string[][] }

const decodePayload = (jwt: string): Json => jose.decodeJwt(jwt)

const sdJwtOf = (holderKey?: jose.JWK) =>
  new SDJwtVcInstance({
    hasher: digest,
    saltGenerator: (length: number) => randomBytes(length).toString('base64url'),
    ...(holderKey ? { kbSignAlg: 'ES256', kbSigner: (data: string) => ES256.getSigner(holderKey).then((sign) => sign(data)) } : {}),
  })

/** The credential as the `dcql` library matches it. */
async function dcqlCredentialOf(held: HeldCredential): Promise<DcqlCredentialInput> {
  if (held.format === 'dc+sd-jwt') {
    const claims = (await sdJwtOf().getClaims(held.sdjwt)) as Json
    return { credential_format: 'dc+sd-jwt', vct: String(claims.vct), claims: claims as never, cryptographic_holder_binding: true }
  }
  const vc = held.format === 'jwt_vc_json' ? (decodePayload(held.jwt).vc as Json) : held.credential
  const type = Array.isArray(vc.type) ? (vc.type as string[]) : [String(vc.type)]
  return { credential_format: held.format, type, claims: vc as never, cryptographic_holder_binding: true }
}

/** The top-level claim names a credential query asks for (its first claim set when it has some). */
function askedClaims(query: CredentialQuery): string[] {
  const claims = query.claims ?? []
  const chosen = query.claim_sets ? claims.filter((claim) => query.claim_sets![0].includes(String(claim.id))) : claims
  return [...new Set(chosen.map((claim) => claim.path[0]).filter((name): name is string => typeof name === 'string'))]
}

/** For each credential query, the held credential to present (dcql's first valid match). */
async function select(dcqlQuery: unknown, held: HeldCredential[], sendUnmatched: boolean) {
  const query = DcqlQuery.parse(dcqlQuery as never)
  DcqlQuery.validate(query)
  const result = DcqlQuery.query(query, await Promise.all(held.map(dcqlCredentialOf)))
  return (query.credentials as CredentialQuery[]).map((credentialQuery) => {
    const match = result.credential_matches[credentialQuery.id]
    let index = match?.success ? match.valid_credentials[0].input_credential_index : -1
    if (index < 0 && sendUnmatched) index = held.findIndex((credential) => credential.format === credentialQuery.format)
    if (index < 0) throw new Error(`the wallet holds no credential for the credential query "${credentialQuery.id}"`)
    return { query: credentialQuery, held: held[index] }
  })
}

const bytesOfD = (jwk: jose.JWK) => Buffer.from(String(jwk.d), 'base64url')

/** One presentation of one credential, bound to `aud` and `nonce`. */
async function present(
  held: HeldCredential,
  query: CredentialQuery,
  binding: { aud: string; nonce: string },
  tamper: Tamper,
  documentLoader?: LibraryDocumentLoader,
): Promise<string | Json> {
  if (held.format === 'dc+sd-jwt') {
    const names = new Set(askedClaims(query))
    if (tamper.omitClaim) names.delete(tamper.omitClaim)
    if (tamper.extraDisclose) names.add(tamper.extraDisclose)
    const frame = Object.fromEntries([...names].map((name) => [name, true]))
    return sdJwtOf(held.holderKey).present(held.sdjwt, frame, {
      kb: { payload: { iat: Math.floor(Date.now() / 1000), aud: binding.aud, nonce: binding.nonce } },
    })
  }
  if (held.format === 'jwt_vc_json') {
    return createVerifiablePresentationJwt(
      {
        vp: { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiablePresentation'], verifiableCredential: [held.jwt] },
        aud: binding.aud,
        nonce: binding.nonce,
      },
      {
        did: held.holderDid,
        signer: ES256Signer(bytesOfD(held.holderKey)),
        alg: 'ES256',
        ...(held.holderKid ? { kid: held.holderKid } : {}),
      },
    )
  }
  if (!documentLoader) throw new Error('an ldp_vc presentation needs WalletTrust.documentLoader')
  const libraries = await loadDigitalbazaarLibraries()
  const vc = libraries.vc as unknown as {
    createPresentation(options: { verifiableCredential: object[]; holder: string }): Json
    signPresentation(options: {
      presentation: Json
      suite: object
      challenge: string
      domain: string
      documentLoader: LibraryDocumentLoader
    }): Promise<Json>
  }
  const { d: _d, ...publicJwk } = held.holderKey
  const id = held.holderKid ?? `${held.holderDid}#${held.holderDid.startsWith('did:key:') ? held.holderDid.slice(8) : '0'}`
  const keyPair = await libraries.EcdsaMultikey.fromJwk({
    jwk: { ...publicJwk, d: held.holderKey.d },
    secretKey: true,
    id,
    controller: held.holderDid,
  })
  const suite = new libraries.DataIntegrityProof({ cryptosuite: libraries.signing('ecdsa-rdfc-2019'), signer: keyPair.signer() })
  const presentation = vc.createPresentation({ verifiableCredential: [held.credential], holder: held.holderDid })
  return vc.signPresentation({ presentation, suite, challenge: binding.nonce, domain: binding.aud, documentLoader })
}

/** The DCQL `vp_token` object: each credential query id → its presentations. */
async function vpTokenFor(request: Json, held: HeldCredential[], options: AnswerOptions, trust: WalletTrust) {
  const tamper = options.tamper ?? {}
  if (!request.dcql_query) throw new Error('the request has no dcql_query (presentation_definition is not supported by these helpers)')
  const binding = { aud: tamper.aud ?? String(request.client_id), nonce: tamper.nonce ?? String(request.nonce) }
  const chosen = await select(request.dcql_query, held, options.sendUnmatched ?? false)
  const entries = await Promise.all(
    chosen.map(async ({ query, held: one }) => [query.id, [await present(one, query, binding, tamper, trust.documentLoader)]] as const),
  )
  return Object.fromEntries(entries.map(([id, presentations]) => [id, [...presentations]])) as Record<string, (string | Json)[]>
}

// ---------------------------------------------------------------------------------------------------------------
// Trust: DIDs and x5c chains

const pemOfDer = (base64: string) => `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`

/** Checks an x5c chain (leaf first) up to one of the trust anchors (PEM): signatures and validity. */
export function x5cChainIsTrusted(x5c: string[], anchors: string[]): boolean {
  const chain = x5c.map((der) => new X509Certificate(pemOfDer(der)))
  const trusted = anchors.map((pem) => new X509Certificate(pem))
  const now = Date.now()
  for (const cert of chain) if (Date.parse(cert.validFrom) > now || Date.parse(cert.validTo) < now) return false
  for (let i = 0; i + 1 < chain.length; i++) if (!chain[i].verify(chain[i + 1].publicKey)) return false
  const top = chain[chain.length - 1]
  return trusted.some((anchor) => anchor.raw.equals(top.raw) || (top.checkIssued(anchor) && top.verify(anchor.publicKey)))
}

/** The dNSName and URI subject alternative names of a base64 DER certificate. */
function sansOf(base64Der: string) {
  const names = (new X509Certificate(pemOfDer(base64Der)).subjectAltName ?? '').split(', ')
  return {
    sanDnsNames: names.filter((name) => name.startsWith('DNS:')).map((name) => name.slice(4)),
    sanUriNames: names.filter((name) => name.startsWith('URI:')).map((name) => name.slice(4)),
  }
}

async function didKey(trust: WalletTrust, didUrl: string | undefined) {
  if (!didUrl || !trust.resolveDidKey) throw new Error(`no way to resolve the request signer's DID URL ${didUrl}`)
  return trust.resolveDidKey(didUrl)
}

/** When `request_uri_method=post` sent a `wallet_nonce`, the request object must carry it back. */
function checkWalletNonce(request: Json, sent: string | undefined) {
  if (sent !== undefined && request.wallet_nonce !== sent)
    throw new Error('the request object does not carry the wallet_nonce the wallet sent')
}

/** Posts a form body (for {@link Tamper.replay}) and reads the answer. */
async function postForm(url: string, body: Record<string, string>, fetchImpl: typeof fetch): Promise<{ status: number; body: unknown }> {
  const response = await fetchImpl(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  })
  return { status: response.status, body: await readBody(response) }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text()
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const redirectOf = (body: unknown) =>
  typeof body === 'object' && body !== null && typeof (body as Json).redirect_uri === 'string'
    ? String((body as Json).redirect_uri)
    : undefined

/** `fetch` trusting `trust.ca` (when given) — no certificate check is turned off. */
function fetchTrusting(trust: WalletTrust): typeof fetch {
  if (!trust.ca) return fetch
  const dispatcher = new UndiciAgent({ connect: { ca: trust.ca } })
  return (input: string | URL | Request, init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher })
}

// ---------------------------------------------------------------------------------------------------------------
// Wallet 1: @digitalbazaar/oid4-client (independent of the verifier's library)

/** `import()` of a specifier held in a variable (the package has no type declarations). */
const importEsm = (specifier: string): Promise<unknown> => import(specifier)

interface Oid4ClientOid4vp {
  getAuthorizationRequest(options: Json): Promise<{ authorizationRequest: Json }>
  sendAuthorizationResponse(options: Json): Promise<{ result: unknown }>
  authzResponse: { create(options: Json): Promise<unknown> }
}

/**
 * The holder of `@digitalbazaar/oid4-client` 5.10.0: `oid4vp.getAuthorizationRequest` (fetches and verifies the
 * request object, checks the client id prefix) and `oid4vp.sendAuthorizationResponse` (form post, or an ECDH-ES JWE for
 * `direct_post.jwt`). Its limits are in test/helpers/oid4vp-wallets.md (notably: `decentralized_identifier:` client
 * ids are refused by 5.10.0).
 */
export function oid4ClientWallet(trust: WalletTrust = {}): VpWallet {
  const agent = trust.ca ? new HttpsAgent({ ca: trust.ca }) : undefined
  const fetchImpl = fetchTrusting(trust)
  return {
    name: 'digitalbazaar/oid4-client',
    async answer(uri, credentials, options = {}) {
      const { oid4vp } = (await importEsm('@digitalbazaar/oid4-client')) as { oid4vp: Oid4ClientOid4vp }
      const walletNonce = options.walletNonce ?? randomBytes(16).toString('base64url')
      let sentNonce: string | undefined
      const { authorizationRequest: request } = await oid4vp.getAuthorizationRequest({
        url: uri,
        agent,
        ...(options.requestUriMethod ? { overrideMethod: options.requestUriMethod } : {}),
        getPostBody: () => {
          sentNonce = walletNonce
          return { body: new URLSearchParams({ wallet_metadata: JSON.stringify(WALLET_METADATA), wallet_nonce: walletNonce }) }
        },
        getTrustedCertificates: () => trust.trustedCertificates ?? [],
        getVerificationKey: async ({
          protectedHeader,
          certificatePublicKey,
        }: {
          protectedHeader: jose.JWSHeaderParameters
          certificatePublicKey?: unknown
        }) => {
          if (protectedHeader.x5c) return certificatePublicKey
          return jose.importJWK(await didKey(trust, protectedHeader.kid), 'ES256')
        },
      })
      checkWalletNonce(request, sentNonce)
      const responseUri = String(request.response_uri)
      if (options.tamper?.replay)
        return {
          ...(await postForm(responseUri, options.tamper.replay, fetchImpl)),
          sent: options.tamper.replay,
          request,
          redirectUri: undefined,
        }
      const vpToken = await vpTokenFor(request, credentials, options, trust)
      const encrypted = request.response_mode === 'direct_post.jwt'
      // direct_post: the library form-encodes vp_token as given (so a JSON string); direct_post.jwt: it puts vp_token
      // into the JWT's claims as given (so the object). vpTokenMediaType stops it making a PE presentation_submission.
      const { authorizationResponse } = (await oid4vp.authzResponse.create({
        authorizationRequest: request,
        vpToken: encrypted ? vpToken : JSON.stringify(vpToken),
        vpTokenMediaType: 'application/json',
        encryptionOptions: options.tamper?.encryptTo ? { recipientPublicJwk: options.tamper.encryptTo } : {},
      })) as { authorizationResponse: Record<string, string> }
      try {
        // `encryptionOptions: null`: send() refuses a ready response when encryptionOptions has its default `{}`.
        const { result } = await oid4vp.sendAuthorizationResponse({
          authorizationRequest: request,
          authorizationResponse,
          encryptionOptions: null,
          agent,
        })
        return { status: 200, body: result, redirectUri: redirectOf(result), sent: authorizationResponse, request }
      } catch (error) {
        const cause = (error as { cause?: { status?: number; data?: unknown } }).cause
        if (cause?.status === undefined) throw error
        return { status: cause.status, body: cause.data, sent: authorizationResponse, request }
      }
    },
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Wallet 2: the holder side of @openid4vc/openid4vp (the verifier's library, for a second opinion)

const hash: CallbackContext['hash'] = (data, alg) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest()

/**
 * The holder side of `@openid4vc/openid4vp` 0.4.6 (`Openid4vpClient`): `resolveOpenId4vpAuthorizationRequest`
 * (fetches and verifies the request object through the callbacks below), `createOpenid4vpAuthorizationResponse`
 * (JARM encryption for `direct_post.jwt`) and `submitOpenid4vpAuthorizationResponse`.
 */
export function openid4vcWallet(trust: WalletTrust = {}): VpWallet {
  const fetchImpl = fetchTrusting(trust)
  const verifyJwt: CallbackContext['verifyJwt'] = async (signer, { compact }) => {
    let key: jose.CryptoKey | jose.KeyObject | Uint8Array
    let signerJwk: Jwk | undefined
    if (signer.method === 'did') {
      signerJwk = (await didKey(trust, signer.didUrl)) as Jwk
      key = await jose.importJWK(signerJwk, signer.alg)
    } else if (signer.method === 'x5c') {
      if (!x5cChainIsTrusted(signer.x5c, trust.trustedCertificates ?? [])) return { verified: false }
      key = createPublicKey(pemOfDer(signer.x5c[0]))
      signerJwk = (await jose.exportJWK(key)) as Jwk
    } else if (signer.method === 'jwk') {
      signerJwk = signer.publicJwk
      key = await jose.importJWK(signer.publicJwk, signer.alg)
    } else return { verified: false }
    try {
      await jose.compactVerify(compact, key)
      return { verified: true, signerJwk }
    } catch {
      return { verified: false }
    }
  }
  const encryptJwe: CallbackContext['encryptJwe'] = async (encryptor, data) => {
    if (encryptor.method !== 'jwk')
      throw new Error(`encryptor method ${String((encryptor as { method: unknown }).method)} is not supported here`)
    const header = {
      alg: encryptor.alg,
      enc: encryptor.enc,
      ...(encryptor.publicJwk.kid ? { kid: encryptor.publicJwk.kid } : {}),
      ...(encryptor.apu ? { apu: encryptor.apu } : {}),
      ...(encryptor.apv ? { apv: encryptor.apv } : {}),
    }
    const key = await jose.importJWK(encryptor.publicJwk, encryptor.alg)
    const jwe = await new jose.CompactEncrypt(new TextEncoder().encode(data)).setProtectedHeader(header).encrypt(key)
    return { jwe, encryptionJwk: encryptor.publicJwk }
  }
  const callbacks = {
    hash,
    fetch: fetchImpl,
    verifyJwt,
    encryptJwe,
    decryptJwe: () => Promise.reject(new Error('encrypted request objects are not supported by this test wallet')),
    signJwt: () => Promise.reject(new Error('this test wallet does not sign responses')),
    getX509CertificateMetadata: sansOf,
  } as unknown as Omit<CallbackContext, 'generateRandom' | 'clientAuthentication'>
  return {
    name: 'openid4vc/openid4vp',
    async answer(uri, credentials, options = {}) {
      const { Openid4vpClient } = await import('@openid4vc/openid4vp')
      const client = new Openid4vpClient({ callbacks })
      const params = Object.fromEntries(new URL(uri).searchParams) as Json
      if (options.requestUriMethod) params.request_uri_method = options.requestUriMethod
      // 0.4.6 posts the members of `wallet.metadata` as form fields and no wallet_nonce (see oid4vp-wallets.md).
      const byPost = params.request_uri_method === 'post'
      const resolved = await client.resolveOpenId4vpAuthorizationRequest({
        authorizationRequestPayload: params,
        ...(byPost ? { wallet: { metadata: WALLET_METADATA as never } } : {}),
      })
      const request = resolved.authorizationRequestPayload as Json
      const responseUri = String(request.response_uri)
      if (options.tamper?.replay)
        return { ...(await postForm(responseUri, options.tamper.replay, fetchImpl)), sent: options.tamper.replay, request }
      const vpToken = await vpTokenFor(request, credentials, options, trust)
      const encrypted = request.response_mode === 'direct_post.jwt'
      const created = await client.createOpenid4vpAuthorizationResponse({
        authorizationRequestPayload: resolved.authorizationRequestPayload,
        authorizationResponsePayload: { vp_token: vpToken as never },
        ...(encrypted
          ? {
              jarm: {
                encryption: {
                  nonce: randomBytes(16).toString('base64url'),
                  ...(options.tamper?.encryptTo ? { jwk: options.tamper.encryptTo as Jwk } : {}),
                },
                serverMetadata: {
                  authorization_signing_alg_values_supported: ['ES256'],
                  authorization_encryption_alg_values_supported: ['ECDH-ES'],
                  authorization_encryption_enc_values_supported: ['A128GCM', 'A256GCM'],
                },
              },
            }
          : {}),
      })
      const { response } = await client.submitOpenid4vpAuthorizationResponse({
        authorizationRequestPayload: resolved.authorizationRequestPayload as never,
        authorizationResponsePayload: created.authorizationResponsePayload,
        ...(created.jarm ? { jarm: { responseJwt: created.jarm.responseJwt } } : {}),
      })
      const sent: Record<string, string> = created.jarm
        ? { response: created.jarm.responseJwt }
        : Object.fromEntries(
            Object.entries(created.authorizationResponsePayload)
              .filter(([, value]) => value !== undefined)
              .map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
          )
      const body = await readBody(response)
      return { status: response.status, body, redirectUri: redirectOf(body), sent, request }
    },
  }
}

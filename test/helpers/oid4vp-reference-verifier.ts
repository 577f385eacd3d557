/**
 * A TEST-ONLY OpenID4VP verifier, built on `@openid4vc/openid4vp`'s `Openid4vpVerifier`, to prove the wallet helpers
 * (test/helpers/oid4vp-wallets.ts) before didvault's own verifier exists: express on a plain loopback port behind the
 * TLS terminator of test/helpers/tls.ts (https://localhost:<port>), signed request objects by reference
 * (`decentralized_identifier:` with a did:jwk, or `x509_san_dns:` / `x509_hash:` with a self-signed certificate made by
 * openssl), `direct_post` and `direct_post.jwt` (ECDH-ES to a key of the request), DCQL checked with `dcql`, SD-JWT VC
 * (KB-JWT `aud`/`nonce`/`sd_hash`) and VP-JWT (`aud`/`nonce`) verified. Single use: the first response decides.
 */
import { execFileSync } from 'node:child_process'
import { createHash, createPrivateKey, randomBytes, X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import express from 'express'
import * as jose from 'jose'
import { DcqlPresentationResult, DcqlQuery } from 'dcql'
import { Openid4vpVerifier } from '@openid4vc/openid4vp'
import type { CallbackContext, Jwk, JwtSigner } from '@openid4vc/oauth2'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { digest } from '@sd-jwt/crypto-nodejs'
import { verifyPresentation } from 'did-jwt-vc'
import type { DIDResolutionResult, Resolvable } from 'did-resolver'
import { tlsTerminator, type TestCa, type TlsTerminator } from './tls.js'
import { loadDigitalbazaarLibraries, type LibraryDocumentLoader } from './w3c-di-vectors.js'

type Json = Record<string, unknown>

/** How the reference verifier identifies itself. */
export type RefClientIdPrefix = 'decentralized_identifier' | 'x509_san_dns' | 'x509_hash'

export interface RefRequestOptions {
  dcqlQuery: Json
  responseMode: 'direct_post' | 'direct_post.jwt'
  prefix?: RefClientIdPrefix
  requestUriMethod?: 'get' | 'post'
  /** Put a `state` in the request (default true); the response must then carry it back. */
  withState?: boolean
}

export interface RefRequest {
  id: string
  /** `openid4vp://?client_id=…&request_uri=…`. */
  uri: string
  clientId: string
  nonce: string
  /** The `direct_post.jwt` key of this request (public). */
  encryptionJwk?: jose.JWK
}

/** What a response yielded. */
export type RefOutcome =
  | { status: 'pending' }
  | { status: 'fulfilled'; credentials: Record<string, { format: string; claims: Json }[]> }
  | { status: 'failed'; error: string; description: string }

export interface ReferenceVerifier {
  origin: string
  createRequest(options: RefRequestOptions): Promise<RefRequest>
  outcome(id: string): RefOutcome
  /** For wallets: the public JWK of the verifier's DID URL (and of any did:jwk). */
  resolveDidKey(didUrl: string): Promise<jose.JWK>
  /** For wallets: the self-signed certificate (PEM) behind `x509_*` client ids. */
  certificatePem: string
  /** The `request_uri_method=post` bodies received, in order. */
  requestObjectPosts: Json[]
  close(): Promise<void>
}

/** The public JWK a did:jwk (URL) names. */
export const jwkOfDidJwk = (didUrl: string): jose.JWK =>
  JSON.parse(Buffer.from(didUrl.split('#')[0].slice('did:jwk:'.length), 'base64url').toString('utf8')) as jose.JWK

export const didJwkOf = (jwk: jose.JWK): string => `did:jwk:${Buffer.from(JSON.stringify(jwk)).toString('base64url')}`

/** A did:jwk resolver (did-resolver's `Resolvable`), enough for did-jwt-vc. */
export const didJwkResolver: Resolvable = {
  resolve: async (didUrl: string): Promise<DIDResolutionResult> => {
    const did = didUrl.split('#')[0]
    if (!did.startsWith('did:jwk:'))
      return { didResolutionMetadata: { error: 'unsupportedDidMethod' }, didDocument: null, didDocumentMetadata: {} }
    const method = { id: `${did}#0`, type: 'JsonWebKey2020', controller: did, publicKeyJwk: jwkOfDidJwk(did) }
    return {
      didResolutionMetadata: {},
      didDocumentMetadata: {},
      didDocument: { id: did, verificationMethod: [method], authentication: [method.id], assertionMethod: [method.id] } as never,
    }
  },
}

const hash: CallbackContext['hash'] = (data, alg) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest()

/** A self-signed P-256 certificate for `localhost` (openssl, one day). */
function selfSigned(): { pem: string; keyPem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'didvault-vp-verifier-'))
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'key.pem'),
      '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=reference verifier', '-addext', 'subjectAltName=DNS:localhost',
    ], { stdio: 'pipe' }) // prettier-ignore
    return { pem: readFileSync(join(dir, 'cert.pem'), 'utf8'), keyPem: readFileSync(join(dir, 'key.pem'), 'utf8') }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

interface Pending {
  payload: Json
  jwt: string
  encryptionKey?: { privateJwk: jose.JWK; publicJwk: jose.JWK }
  outcome: RefOutcome
  signer: JwtSigner
  postedOnce: boolean
}

/** Starts the reference verifier over https on loopback (behind `ca`'s TLS terminator). */
export async function startReferenceVerifier(
  ca: TestCa,
  options: { documentLoader?: LibraryDocumentLoader } = {},
): Promise<ReferenceVerifier> {
  const didKeys = await jose.generateKeyPair('ES256', { extractable: true })
  const didPublicJwk = await jose.exportJWK(didKeys.publicKey)
  const did = didJwkOf(didPublicJwk)
  const certificate = selfSigned()
  const certificateKey = createPrivateKey(certificate.keyPem)
  const x509 = new X509Certificate(certificate.pem)
  const x5c = [x509.raw.toString('base64')]
  const x509Hash = createHash('sha256').update(x509.raw).digest('base64url')
  const requests = new Map<string, Pending>()
  const requestObjectPosts: Json[] = []

  const signJwt: CallbackContext['signJwt'] = async (signer, { header, payload }) => {
    const key = signer.method === 'x5c' ? certificateKey : didKeys.privateKey
    const jwt = await new jose.CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader(header).sign(key)
    return { jwt, signerJwk: (signer.method === 'x5c' ? await jose.exportJWK(x509.publicKey) : didPublicJwk) as Jwk }
  }
  const decrypterOf =
    (decryptionKey: jose.JWK | undefined): CallbackContext['decryptJwe'] =>
    async (jwe) => {
      try {
        const { plaintext } = await jose.compactDecrypt(jwe, await jose.importJWK(decryptionKey as jose.JWK, 'ECDH-ES'), {
          keyManagementAlgorithms: ['ECDH-ES'],
          contentEncryptionAlgorithms: ['A128GCM', 'A256GCM'],
        })
        return { decrypted: true, payload: new TextDecoder().decode(plaintext), decryptionJwk: decryptionKey as Jwk }
      } catch {
        return { decrypted: false }
      }
    }
  const verifier = new Openid4vpVerifier({
    callbacks: {
      hash,
      signJwt,
      decryptJwe: decrypterOf(undefined),
      verifyJwt: async () => ({ verified: false }),
      encryptJwe: () => Promise.reject(new Error('unused')),
      fetch,
    },
  })

  const app = express()
  app.use(express.urlencoded({ extended: false, limit: '256kb' }))
  let origin = ''

  const sign = async (pending: Pending, extra: Json = {}) => {
    const header = { alg: 'ES256', typ: 'oauth-authz-req+jwt', ...(pending.signer.method === 'x5c' ? { x5c } : { kid: `${did}#0` }) }
    return (await signJwt(pending.signer, { header: header, payload: { ...pending.payload, ...extra } })).jwt
  }

  app.get('/request-objects/:id', (req, res) => {
    const pending = requests.get(req.params.id)
    if (!pending) return void res.status(404).json({ error: 'invalid_request_uri' })
    res.type('application/oauth-authz-req+jwt').send(pending.jwt)
  })
  app.post('/request-objects/:id', async (req, res) => {
    const pending = requests.get(req.params.id)
    if (!pending) return void res.status(404).json({ error: 'invalid_request_uri' })
    if (pending.postedOnce)
      return void res.status(400).json({ error: 'invalid_request', error_description: 'request object already fetched by POST' })
    pending.postedOnce = true
    requestObjectPosts.push({ ...(req.body as Json) })
    const walletNonce = (req.body as Json).wallet_nonce
    res
      .type('application/oauth-authz-req+jwt')
      .send(await sign(pending, typeof walletNonce === 'string' ? { wallet_nonce: walletNonce } : {}))
  })
  app.post('/responses/:id', async (req, res) => {
    const pending = requests.get(req.params.id)
    if (!pending) return void res.status(404).json({ error: 'invalid_request' })
    if (pending.outcome.status !== 'pending')
      return void res.status(400).json({ error: 'invalid_request', error_description: 'request already answered' })
    const refuse = (error: string, description: string) => {
      pending.outcome = { status: 'failed', error, description }
      res.status(400).json({ error, error_description: description })
    }
    try {
      const parsed = await verifier.parseOpenid4vpAuthorizationResponse({
        authorizationResponse: req.body as Json,
        authorizationRequestPayload: pending.payload as never,
        callbacks: { decryptJwe: decrypterOf(pending.encryptionKey?.privateJwk), verifyJwt: async () => ({ verified: false }) },
      })
      if (parsed.type !== 'dcql') return refuse('invalid_request', 'not a DCQL response')
      const query = DcqlQuery.parse(pending.payload.dcql_query as never)
      const clientId = String(pending.payload.client_id)
      const nonce = String(pending.payload.nonce)
      const credentials: Record<string, { format: string; claims: Json }[]> = {}
      const dcqlPresentations: Record<string, unknown[]> = {}
      for (const [queryId, presentations] of Object.entries(parsed.dcql.presentations as Record<string, unknown[]>)) {
        const format = (query.credentials as { id: string; format: string }[]).find((credential) => credential.id === queryId)?.format
        credentials[queryId] = []
        dcqlPresentations[queryId] = []
        for (const presentation of presentations) {
          const verified = await verifyOne(format, presentation, clientId, nonce, options.documentLoader)
          credentials[queryId].push({ format: String(format), claims: verified.claims })
          dcqlPresentations[queryId].push(verified.dcql)
        }
      }
      const dcqlResult = DcqlPresentationResult.fromDcqlPresentation(dcqlPresentations as never, { dcqlQuery: query })
      if (!dcqlResult.can_be_satisfied) return refuse('invalid_request', 'the presentations do not satisfy the DCQL query')
      pending.outcome = { status: 'fulfilled', credentials }
      res.status(200).json({})
    } catch (error) {
      refuse('invalid_request', error instanceof Error ? error.message : String(error))
    }
  })

  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  const tls: TlsTerminator = await tlsTerminator(ca, (server.address() as AddressInfo).port)
  origin = tls.origin

  return {
    origin,
    certificatePem: certificate.pem,
    requestObjectPosts,
    resolveDidKey: async (didUrl) => jwkOfDidJwk(didUrl),
    outcome: (id) => requests.get(id)?.outcome ?? { status: 'failed', error: 'unknown', description: 'no such request' },
    async createRequest({ dcqlQuery, responseMode, prefix = 'decentralized_identifier', requestUriMethod, withState = true }) {
      const id = randomBytes(32).toString('base64url')
      const clientId =
        prefix === 'decentralized_identifier'
          ? `decentralized_identifier:${did}`
          : prefix === 'x509_san_dns'
            ? 'x509_san_dns:localhost'
            : `x509_hash:${x509Hash}`
      const signer: JwtSigner =
        prefix === 'decentralized_identifier' ? { method: 'did', didUrl: `${did}#0`, alg: 'ES256' } : { method: 'x5c', x5c, alg: 'ES256' }
      let encryptionKey: Pending['encryptionKey']
      if (responseMode === 'direct_post.jwt') {
        const pair = await jose.generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true })
        const kid = randomBytes(8).toString('base64url')
        encryptionKey = {
          privateJwk: { ...(await jose.exportJWK(pair.privateKey)), kid },
          publicJwk: { ...(await jose.exportJWK(pair.publicKey)), kid, use: 'enc', alg: 'ECDH-ES' },
        }
      }
      const nonce = randomBytes(32).toString('base64url')
      const requestUri = `${origin}/request-objects/${id}`
      const created = await verifier.createOpenId4vpAuthorizationRequest({
        authorizationRequestPayload: {
          response_type: 'vp_token',
          client_id: clientId,
          response_uri: `${origin}/responses/${id}`,
          response_mode: responseMode,
          nonce,
          ...(withState ? { state: randomBytes(16).toString('base64url') } : {}),
          dcql_query: dcqlQuery,
          client_metadata: {
            vp_formats_supported: {
              'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256'], 'kb-jwt_alg_values': ['ES256'] },
              jwt_vc_json: { alg_values: ['ES256'] },
            },
            ...(encryptionKey
              ? { jwks: { keys: [encryptionKey.publicJwk as never] }, encrypted_response_enc_values_supported: ['A128GCM'] }
              : {}),
          },
        } as never,
        jar: { requestUri, jwtSigner: signer, expiresInSeconds: 300, additionalJwtPayload: { aud: 'https://self-issued.me/v2' } },
      })
      const jar = (created as { jar?: { authorizationRequestJwt: string } }).jar
      if (!jar) throw new Error('no request object was made')
      const payload = jose.decodeJwt(jar.authorizationRequestJwt) as Json
      requests.set(id, {
        payload,
        jwt: jar.authorizationRequestJwt,
        encryptionKey,
        outcome: { status: 'pending' },
        signer,
        postedOnce: false,
      })
      // request_uri_method belongs to the URI only (the library refuses it in the request object's payload).
      const uri = requestUriMethod ? `${created.authorizationRequest}&request_uri_method=${requestUriMethod}` : created.authorizationRequest
      return { id, uri, clientId, nonce, ...(encryptionKey ? { encryptionJwk: encryptionKey.publicJwk } : {}) }
    },
    async close() {
      await tls.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Verifies one presentation (signatures and binding to `aud` = client id and `nonce`) and says what dcql sees of it. */
async function verifyOne(
  format: string | undefined,
  presentation: unknown,
  clientId: string,
  nonce: string,
  documentLoader?: LibraryDocumentLoader,
): Promise<{ claims: Json; dcql: unknown }> {
  if (format === 'dc+sd-jwt' && typeof presentation === 'string') {
    const issuerJwk = await sdJwtIssuerJwk(presentation)
    const sdjwt = new SDJwtVcInstance({
      hasher: digest,
      verifier: async (data, signature) => verifySignature(issuerJwk, data, signature),
      kbVerifier: async (data, signature, payload) => verifySignature((payload.cnf as { jwk: jose.JWK }).jwk, data, signature),
    })
    const verified = await sdjwt.verify(presentation, { keyBindingNonce: nonce })
    if (!verified.kb) throw new Error('no key binding')
    if (verified.kb.payload.aud !== clientId) throw new Error('KB-JWT aud is not the client id')
    const claims = verified.payload as Json
    return { claims, dcql: { credential_format: 'dc+sd-jwt', vct: claims.vct, claims, cryptographic_holder_binding: true } }
  }
  if (format === 'jwt_vc_json' && typeof presentation === 'string') {
    const verified = await verifyPresentation(presentation, didJwkResolver, { audience: clientId, challenge: nonce })
    if (verified.payload.nonce !== nonce) throw new Error('VP-JWT nonce is not the request nonce')
    const vc = verified.verifiablePresentation.verifiableCredential?.[0]
    if (!vc || typeof vc === 'string') throw new Error('no credential in the VP-JWT')
    const claims = vc as unknown as Json
    const type = Array.isArray(claims.type) ? claims.type : [claims.type]
    return { claims, dcql: { credential_format: 'jwt_vc_json', type, claims, cryptographic_holder_binding: true } }
  }
  if (format === 'ldp_vc' && typeof presentation === 'object' && presentation !== null && documentLoader) {
    const libraries = await loadDigitalbazaarLibraries()
    const suite = ['ecdsa-rdfc-2019', 'ecdsa-sd-2023'].map(
      (cryptosuite) => new libraries.DataIntegrityProof({ cryptosuite: libraries.verifying(cryptosuite as 'ecdsa-rdfc-2019') }),
    )
    const vc = libraries.vc as unknown as {
      verify(options: Json): Promise<{ verified: boolean; error?: unknown }>
    }
    const result = await vc.verify({ presentation, challenge: nonce, domain: clientId, suite, documentLoader })
    if (!result.verified) throw new Error(`the Data Integrity presentation does not verify: ${String(result.error)}`)
    const credential = (presentation as Json).verifiableCredential
    const claims = (Array.isArray(credential) ? credential[0] : credential) as Json
    const type = Array.isArray(claims.type) ? claims.type : [claims.type]
    return { claims, dcql: { credential_format: 'ldp_vc', type, claims, cryptographic_holder_binding: true } }
  }
  throw new Error(`the reference verifier does not verify ${format} presentations`)
}

/** The SD-JWT's issuer key: a did:jwk `iss` (the only kind the harness issues). */
async function sdJwtIssuerJwk(presentation: string): Promise<jose.JWK> {
  const iss = String((jose.decodeJwt(presentation.split('~')[0]) as Json).iss)
  if (!iss.startsWith('did:jwk:')) throw new Error('the reference verifier trusts did:jwk issuers only')
  return jwkOfDidJwk(iss)
}

async function verifySignature(jwk: jose.JWK, data: string, signature: string): Promise<boolean> {
  try {
    const [header, payload] = data.split('.')
    await jose.compactVerify(`${header}.${payload}.${signature}`, await jose.importJWK(jwk, 'ES256'))
    return true
  } catch {
    return false
  }
}

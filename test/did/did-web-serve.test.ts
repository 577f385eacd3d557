/**
 * Foreign did:web through `didvault serve` (a child process) over real https: a loopback server
 * publishes did:web documents behind a test-only TLS terminator (a throw-away CA made by openssl,
 * trusted by the serve process through NODE_EXTRA_CA_CERTS only). With `--did-web-origin` naming
 * its origin, `GET /1.0/identifiers/` resolves them and a VC-JWT of such an issuer verifies; a
 * did:web of another origin resolves to notFound naming didWebOrigins, fails a credential's
 * signature check with that message, and is never requested. Documents that cannot be used (an `id`
 * that is not the DID, not JSON, oversized, a redirect, no answer) are notFound results, never a 500.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { ES256KSigner } from 'did-jwt'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DID_WEB_API_KEY, startDidWebOrigins, type DidWebOrigins } from '../helpers/did-web-origin.js'
import { http } from '../helpers/spawn.js'
import type { TlsTerminator } from '../helpers/tls.js'

const API_KEY = DID_WEB_API_KEY

let origins: DidWebOrigins | undefined
let allowed: TlsTerminator
let refused: TlsTerminator
let url: string
const requested: string[] = []
const privateKey = secp256k1.utils.randomSecretKey()

/** A did:web document whose `#key-1` is `privateKey`'s secp256k1 key (EcdsaSecp256k1VerificationKey2019, publicKeyJwk). */
function documentOf(did: string): Record<string, unknown> {
  const point = secp256k1.getPublicKey(privateKey, false)
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')
  const publicKeyJwk = { kty: 'EC', crv: 'secp256k1', x: b64(point.subarray(1, 33)), y: b64(point.subarray(33)) }
  const key = { id: `${did}#key-1`, type: 'EcdsaSecp256k1VerificationKey2019', controller: did, publicKeyJwk }
  return {
    '@context': ['https://www.w3.org/ns/did/v1'],
    id: did,
    verificationMethod: [key],
    authentication: [key.id],
    assertionMethod: [key.id],
  }
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url')
const hostOf = (t: TlsTerminator) => `localhost%3A${t.port}`
const didAt = (t: TlsTerminator, path: string) => `did:web:${hostOf(t)}${path}`

/** The documents server: a path's DID is of the allowed origin (`/issuers/good` → `did:web:localhost%3A<port>:issuers:good`). */
function serveDocuments(req: IncomingMessage, res: ServerResponse): void {
  requested.push(req.url!)
  const path = req.url!.replace(/\/did\.json$/, '')
  const did = path === '/.well-known' ? didAt(allowed, '') : didAt(allowed, path.replaceAll('/', ':'))
  const json = (body: unknown) => void res.writeHead(200, { 'content-type': 'application/did+ld+json' }).end(JSON.stringify(body))
  if (path === '/issuers/good' || path === '/.well-known') return json(documentOf(did))
  if (path === '/issuers/mismatch') return json(documentOf(didAt(allowed, ':issuers:good')))
  if (path === '/issuers/not-json') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>')
  if (path === '/issuers/oversized') return json({ ...documentOf(did), padding: 'x'.repeat(300 * 1024) })
  if (path === '/issuers/redirect') return void res.writeHead(302, { location: '/issuers/redirect-target/did.json' }).end()
  if (path === '/issuers/silent') return // never answers
  res.writeHead(404).end()
}

beforeAll(async () => {
  origins = await startDidWebOrigins(serveDocuments, 'didvault-didweb-')
  ;({ allowed, refused, url } = origins)
}, 180_000)

afterAll(() => origins?.close())

const resolve = (did: string) => http(`${url}/1.0/identifiers/${encodeURIComponent(did)}`)

async function verify(vcs: unknown[]): Promise<{ verified: boolean; checks: { check: string; verified: boolean; error?: string }[] }[]> {
  const { did } = (await http(`${url}/wallet`, { method: 'POST', token: API_KEY, json: {} })).body.wallet
  const didAuth = (await http(`${url}/did-auth-jwt`, { method: 'POST', token: API_KEY, json: { iss: did } })).body.jwt
  const answer = await http(`${url}/claims/verify`, {
    method: 'POST',
    token: API_KEY,
    headers: { 'x-did-auth': didAuth },
    json: { claims: vcs },
  })
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body.vcs
}

const vcJwtOf = (issuer: string) =>
  createVerifiableCredentialJwt(
    {
      sub: 'did:example:subject',
      nbf: Math.floor(Date.now() / 1000) - 60,
      vc: {
        '@context': ['https://www.w3.org/2018/credentials/v1'],
        type: ['VerifiableCredential'],
        credentialSubject: { name: 'Alice' },
      },
    },
    { did: issuer, signer: ES256KSigner(privateKey), alg: 'ES256K' },
  )

describe('foreign did:web through didvault serve over https', () => {
  it('resolves a did:web of an allowed origin (a path, and the .well-known location) to the document its origin serves', async () => {
    for (const did of [didAt(allowed, ':issuers:good'), didAt(allowed, '')]) {
      const answer = await resolve(did)
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      expect(answer.body.didDocument).toEqual(documentOf(did))
    }
    expect(requested).toEqual(expect.arrayContaining(['/issuers/good/did.json', '/.well-known/did.json']))
  })

  it('verifies a VC-JWT whose issuer is a did:web of an allowed origin; a tampered one fails its signature check', async () => {
    const jwt = await vcJwtOf(didAt(allowed, ':issuers:good'))
    const [header, payload] = jwt.split('.')
    const tampered = `${header}.${payload}.${Buffer.alloc(64, 1).toString('base64url')}`
    const [good, bad] = await verify([{ jwt }, { jwt: tampered }])
    expect(good.verified, JSON.stringify(good)).toBe(true)
    expect(bad.checks.find((c) => c.check === 'signature')?.verified).toBe(false)
  })

  it('a did:web of an origin not allowed: notFound naming didWebOrigins, signatures fail saying so, nothing requested', async () => {
    const did = didAt(refused, ':issuers:good')
    const answer = await resolve(did)
    expect(answer.status).toBe(404)
    expect(answer.body.didResolutionMetadata).toEqual({
      error: 'notFound',
      message: `did:web: origin https://localhost:${refused.port} is not allowed (didWebOrigins)`,
    })
    const jsonld = {
      '@context': ['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/security/suites/secp256k1recovery-2020/v2'],
      type: ['VerifiableCredential'],
      issuer: did,
      issuanceDate: '2026-01-01T00:00:00Z',
      credentialSubject: { id: 'did:example:subject' },
      proof: {
        type: 'EcdsaSecp256k1RecoverySignature2020',
        created: '2026-01-01T00:00:00Z',
        proofPurpose: 'assertionMethod',
        verificationMethod: `${did}#key-1`,
        jws: `${base64url(JSON.stringify({ alg: 'ES256K-R', b64: false, crit: ['b64'] }))}..${base64url(Buffer.alloc(65, 1))}`,
      },
    }
    const [jwtVc, jsonLdVc] = await verify([{ jwt: await vcJwtOf(did) }, { jsonld }])
    for (const vc of [jwtVc, jsonLdVc]) {
      expect(vc.verified).toBe(false)
      const failed = vc.checks.find((c) => c.check === 'signature' || c.check === 'proof')
      expect(failed, JSON.stringify(vc)).toMatchObject({ verified: false, error: expect.stringContaining('(didWebOrigins)') })
    }
    expect(refused.connections()).toBe(0)
  })

  it.each([
    ['mismatch', 'the document’s id is not'],
    ['not-json', 'not a JSON document'],
    ['oversized', 'the document is larger than 262144 bytes'],
    ['redirect', 'HTTP 302 (redirects are not followed)'],
    ['silent', 'no answer within 5000 ms'],
  ])(
    'a document that cannot be used (%s) is a notFound result saying why',
    async (path, why) => {
      const answer = await resolve(didAt(allowed, `:issuers:${path}`))
      expect(answer.status, JSON.stringify(answer.body)).toBe(404)
      expect(answer.body.didResolutionMetadata.error).toBe('notFound')
      expect(answer.body.didResolutionMetadata.message).toContain(why)
      expect(answer.body.didDocument).toBeNull()
    },
    20_000,
  )

  it('a redirect is not followed: its target is never requested', () => {
    expect(requested).toContain('/issuers/redirect/did.json')
    expect(requested).not.toContain('/issuers/redirect-target/did.json')
  })
})

/**
 * Access control by keys for foreign did:web DIDs, through `didvault serve` (a child process) over real https: a
 * loopback server publishes did:web documents behind a test-only TLS terminator (a throw-away CA made by openssl,
 * trusted by the serve process through NODE_EXTRA_CA_CERTS only), and `--did-web-origin` allows its origin.
 *
 * - A did:web holder whose current document lists its key under `authentication` (P-256 ES256, Ed25519 EdDSA,
 *   secp256k1 ES256K) controls its DID: it creates a role and grants it over the credentials carrying its DID.
 * - The document is read afresh by each request: once the document's owner rotates its authentication key, the old
 *   key's tokens are 403 UNAUTHENTICATED and the new key controls (one fetch budget per request, not one for the
 *   service's life).
 * - A document naming another DID as its `controller` (DID Core): that DID's keys control it (through that DID's own
 *   tokens; a token naming the did:web signed by such a key is refused, the key is not in the document).
 * - The attacks "make herself controller of a DID whose key she does not hold": a second key under the id of the listed one (neither controls); a key the document lists under
 *   `assertionMethod` only (a delegate: it
 *   authenticates, it never controls); a token naming the DID signed by her own key; an expired token of the real key;
 *   a did:web of an origin not allowed (never requested). Each is refused with the error body, and nothing is written
 *   (the role's assignments, read back, are unchanged).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createJWT, EdDSASigner, ES256KSigner, ES256Signer, type Signer } from 'did-jwt'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DID_WEB_API_KEY, startDidWebOrigins, type DidWebOrigins } from '../helpers/did-web-origin.js'
import { holderKey, didJwtHolder, type HolderKeyType } from '../helpers/key-holders.js'
import { http } from '../helpers/spawn.js'
import type { TlsTerminator } from '../helpers/tls.js'

const API_KEY = DID_WEB_API_KEY
const ALG = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' } as const

let origins: DidWebOrigins | undefined
let allowed: TlsTerminator
let refused: TlsTerminator
let url: string
const requested: string[] = []
/** The documents the server publishes, by path (`/holders/alice`). */
const published = new Map<string, Record<string, unknown>>()

/** A key: its JWK and what signs with it. */
interface Key {
  type: HolderKeyType
  jwk: Record<string, string>
  signer: Signer
}

function newKey(type: HolderKeyType): Key {
  const { secret, jwk } = holderKey(type)
  const signer = type === 'Ed25519' ? EdDSASigner(secret) : type === 'P-256' ? ES256Signer(secret) : ES256KSigner(secret)
  return { type, jwk, signer }
}

/** Publishes a did:web document at `path` listing `authentication` keys, and `assertionOnly` keys under assertionMethod only. */
function publish(path: string, doc: { authentication: Key[]; assertionOnly?: Key[]; controller?: string }): string {
  const did = `did:web:localhost%3A${allowed.port}${path.replaceAll('/', ':')}`
  const keys = [...doc.authentication, ...(doc.assertionOnly ?? [])]
  const methods = keys.map((key, i) => ({ id: `${did}#key-${i}`, type: 'JsonWebKey2020', controller: did, publicKeyJwk: key.jwk }))
  published.set(path, {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
    id: did,
    ...(doc.controller !== undefined && { controller: doc.controller }),
    verificationMethod: methods,
    authentication: methods.slice(0, doc.authentication.length).map((m) => m.id),
    assertionMethod: methods.map((m) => m.id),
  })
  return did
}

function serveDocuments(req: IncomingMessage, res: ServerResponse): void {
  requested.push(req.url!)
  const document = published.get(req.url!.replace(/\/did\.json$/, ''))
  if (document === undefined) return void res.writeHead(404).end()
  res.writeHead(200, { 'content-type': 'application/did+ld+json' }).end(JSON.stringify(document))
}

beforeAll(async () => {
  origins = await startDidWebOrigins(serveDocuments, 'didvault-didweb-access-')
  ;({ allowed, refused, url } = origins)
}, 180_000)

afterAll(() => origins?.close())

/** A DID-auth token naming `iss`, signed by `key` (aud `didvault`; `expIn` seconds from now). */
const tokenOf = (iss: string, key: Key, expIn = 600) => {
  const now = Math.floor(Date.now() / 1000)
  return createJWT(
    { iat: now - (expIn < 0 ? 1_200 : 0), exp: now + expIn, aud: 'didvault' },
    { issuer: iss, signer: key.signer, alg: ALG[key.type] },
  )
}

const call = (method: string, path: string, didAuth: string, json?: unknown) =>
  http(`${url}${path}`, { method, token: API_KEY, headers: { 'x-did-auth': didAuth }, ...(json !== undefined && { json }) })

/** Stores a VC-JWT whose DID (`jti`) is `did`, issued by `did` with `key`; resolves to its stored `_id`. */
async function storeCredentialOf(did: string, key: Key, didAuth: string): Promise<string> {
  const nbf = Math.floor(Date.now() / 1000) - 5
  const vc = { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], credentialSubject: { name: 'C' } }
  const jwt = await createVerifiableCredentialJwt({ jti: did, sub: did, nbf, vc }, { did, signer: key.signer, alg: ALG[key.type] })
  const res = await call('POST', '/claims', didAuth, { verify: true, claims: [{ jwt }] })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  expect(res.body.vcs[0].id).toBe(did)
  return res.body.vcs[0]._id
}

/** A role made by the caller of `didAuth` (its creator is the DID it acts through). */
async function roleOf(didAuth: string): Promise<string> {
  const res = await call('POST', '/roles', didAuth, { permissions: ['Read'] })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.role.did
}

const grant = (role: string, did: string, didAuth: string) => call('POST', '/roles/assignmnets', didAuth, { assignments: [{ role, did }] })
const assignmentsOf = async (role: string, didAuth: string) =>
  (await call('GET', `/roles/assignmnets?role=${encodeURIComponent(role)}`, didAuth)).body.assignments

function expectUnauthenticated(res: { status: number; body: unknown }) {
  expect(res.status, JSON.stringify(res.body)).toBe(403)
  expect(res.body).toEqual({ statusCode: 403, errorType: 'UNAUTHENTICATED', errorMessage: expect.any(String) })
}

function expectForbiddenItem(res: { status: number; body: any }) {
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  expect(res.body.assignments).toEqual([])
  expect(res.body.errors).toHaveLength(1)
  expect(res.body.errors[0].error).toEqual({ statusCode: 403, errorType: 'FORBIDDEN', errorMessage: expect.any(String) })
}

describe('access control by keys for foreign did:web (didWebOrigins, over https)', () => {
  it.each(['P-256', 'Ed25519', 'secp256k1'] as const)(
    'a %s key the document lists for authentication controls the did:web DID: role made, granted over its credentials',
    async (type) => {
      const key = newKey(type)
      const did = publish(`/holders/own-${type}`, { authentication: [key] })
      const didAuth = await tokenOf(did, key)
      await storeCredentialOf(did, key, didAuth)
      const role = await roleOf(didAuth)
      const res = await grant(role, did, didAuth)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.errors).toEqual([])
      expect(res.body.assignments).toEqual([expect.objectContaining({ role, did, governsCredentials: true })])
    },
  )

  it('the document is read afresh by each request: a rotated-out key no longer authenticates or controls; the new key does', async () => {
    const [old, rotated] = [newKey('P-256'), newKey('Ed25519')]
    const did = publish('/holders/rotating', { authentication: [old] })
    const byOld = await tokenOf(did, old)
    expect((await call('GET', '/roles', byOld)).status).toBe(200)
    publish('/holders/rotating', { authentication: [rotated] })
    expectUnauthenticated(await call('GET', '/roles', byOld))
    const byNew = await tokenOf(did, rotated)
    await storeCredentialOf(did, rotated, byNew)
    const role = await roleOf(byNew)
    const res = await grant(role, did, byNew)
    expect(res.body.errors).toEqual([])
    expect(res.body.assignments).toEqual([expect.objectContaining({ role, did, governsCredentials: true })])
  })

  it('a document naming another DID as `controller`: that DID’s key controls it; a token naming the did:web by that key is 403', async () => {
    const owner = newKey('P-256')
    const controller = didJwtHolder('key', 'P-256')
    const did = publish('/holders/handed', { authentication: [owner], controller: controller.did })
    await storeCredentialOf(did, owner, await tokenOf(did, owner))
    const byController = await controller.token()
    const role = await roleOf(byController)
    // Its key is not in the did:web document: it cannot sign as the did:web.
    expectUnauthenticated(await grant(role, did, await controller.token({ iss: did })))
    expect(await assignmentsOf(role, byController)).toEqual([])
    // Through its own DID it holds a key that controls the did:web (DID Core `controller`): it grants over its credentials.
    const res = await grant(role, did, byController)
    expect(res.body.errors).toEqual([])
    expect(res.body.assignments).toEqual([expect.objectContaining({ role, did, governsCredentials: true })])
    // Anyone else is refused, nothing written.
    const eve = await didJwtHolder('key', 'P-256').token()
    const eveRole = await roleOf(eve)
    expectForbiddenItem(await grant(eveRole, did, eve))
    expect(await assignmentsOf(eveRole, eve)).toEqual([])
  })

  it('a key listed under assertionMethod only (a delegate) authenticates the DID but never controls it', async () => {
    const [owner, delegate, eve] = [newKey('Ed25519'), newKey('P-256'), didJwtHolder('jwk', 'Ed25519')]
    const did = publish('/holders/delegated', { authentication: [owner], assertionOnly: [delegate] })
    await storeCredentialOf(did, owner, await tokenOf(did, owner))
    const byDelegate = await tokenOf(did, delegate)
    // It authenticates (a read is answered) but acts through no DID: it makes no role.
    expect((await call('GET', '/roles', byDelegate)).status).toBe(200)
    expect((await call('POST', '/roles', byDelegate, { permissions: ['Read'] })).status).toBe(403)
    const eveAuth = await eve.token()
    const role = await roleOf(eveAuth)
    expectForbiddenItem(await grant(role, did, `${byDelegate},${eveAuth}`))
    expect(await assignmentsOf(role, eveAuth)).toEqual([])
  })

  it('one method id naming two keys (the listed one and another) gives neither key control: the id is ambiguous', async () => {
    const [listed, other] = [newKey('P-256'), newKey('P-256')]
    const did = publish('/holders/twin-ids', { authentication: [listed] })
    const doc = published.get('/holders/twin-ids')! as { verificationMethod: Array<Record<string, unknown>> }
    doc.verificationMethod.push({ ...doc.verificationMethod[0], publicKeyJwk: other.jwk })
    const byOther = await tokenOf(did, other)
    // It signs for a method of the document, so it authenticates; it is not the key `authentication` lists.
    const read = await call('GET', '/roles', byOther)
    expect(read.status, JSON.stringify(read.body)).toBe(200)
    for (const didAuth of [byOther, await tokenOf(did, listed)]) {
      const res = await call('POST', '/roles', didAuth, { permissions: ['Read'] })
      expect(res.body).toEqual({ statusCode: 403, errorType: 'FORBIDDEN', errorMessage: expect.any(String) })
    }
  })

  it.each(['P-256', 'Ed25519', 'secp256k1'] as const)(
    '%s: a token naming the did:web signed by another key, and an expired token of its key, are 403 UNAUTHENTICATED',
    async (type) => {
      const [key, other] = [newKey(type), newKey(type)]
      const did = publish(`/holders/forged-${type}`, { authentication: [key] })
      const eve = didJwtHolder('key', type)
      const role = await roleOf(await eve.token())
      expectUnauthenticated(await grant(role, did, await tokenOf(did, other)))
      expectUnauthenticated(await grant(role, did, await tokenOf(did, key, -600)))
      expect(await assignmentsOf(role, await eve.token())).toEqual([])
    },
  )

  it('a did:web of an origin not allowed is 403 UNAUTHENTICATED and never requested', async () => {
    const key = newKey('P-256')
    const path = '/holders/elsewhere'
    const did = `did:web:localhost%3A${refused.port}${path.replaceAll('/', ':')}`
    published.set(path, { id: did })
    const before = refused.connections()
    expectUnauthenticated(await call('GET', '/roles', await tokenOf(did, key)))
    expect(refused.connections()).toBe(before)
  })
})

/**
 * `GET /1.0/identifiers/{did}` as the W3C DID Resolution HTTP(S) binding: `didvault serve` (the built CLI, a real
 * SQLite file) answers a resolution result on every path — 200, 410 for a deactivated DID, 400 `invalidDid` /
 * `invalidDidUrl`, 404 `notFound`, 406 `representationNotSupported`, 501 `methodNotSupported` — in the media type
 * `Accept` asks for; Veramo 7's universal-resolver client inside did-resolver's `Resolver`, didvault's own
 * `universalResolver` and `didvault/client` read each as the same result, never as a document or a rejection.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getUniversalResolverFor } from '@veramo/did-resolver'
import { Resolver } from 'did-resolver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from '../../src/client/index.js'
import { universalResolver } from '../../src/index.js'
import { didDocument, didResolution } from '../../src/wallets/schemas.js'
import { CLI, ensureBuilt } from '../helpers/build.js'
import { http, killAll, spawnNode } from '../helpers/spawn.js'

const RESULT_LD = 'application/ld+json; profile="https://w3id.org/did-resolution"'

let dir: string
let url: string
let live: string
let deactivated: string
/** The cases every reader must see alike: the DID (URL) asked for, the status and the resolution error. */
let cases: Array<{ name: string; did: string; status: number; error?: string }>

beforeAll(async () => {
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'didvault-resolution-'))
  const server = spawnNode([CLI, 'serve', '--port', '0', '--storage', `sqlite:${join(dir, 'didvault.db')}`], { cwd: dir })
  const [, key] = await server.waitFor(/API key for tenant "default".*: (\S+)$/m)
  ;[, url] = await server.waitFor(/didvault listening on (http:\/\/127\.0\.0\.1:\d+)"/)
  const wallet = async () => (await http(`${url}/wallet`, { method: 'POST', token: key, json: {} })).body.wallet.did as string
  live = await wallet()
  deactivated = await wallet()
  const jwt = (await http(`${url}/did-auth-jwt`, { method: 'POST', token: key, json: { iss: deactivated } })).body.jwt as string
  const network = deactivated.split(':')[2]
  const nobody = `did:ethr:${network}:0x0000000000000000000000000000000000000000`
  const configured = await http(`${url}/wallet/configure`, {
    method: 'POST',
    token: key,
    headers: { 'x-did-auth': jwt },
    json: { wallet: { did: deactivated }, walletConfig: { txsInput: [{ newOwner: nobody }] } },
  })
  expect(configured.status, JSON.stringify(configured.body)).toBe(200)
  cases = [
    { name: 'a DID', did: live, status: 200 },
    { name: 'a deactivated DID', did: deactivated, status: 410 },
    { name: 'a did:ethr that is not one', did: `did:ethr:${network}:0x1234`, status: 400, error: 'invalidDid' },
    { name: 'a malformed versionId', did: `${live}?versionId=abc`, status: 400, error: 'invalidDidUrl' },
    { name: 'a version beyond the latest', did: `${live}?versionId=99`, status: 404, error: 'notFound' },
    { name: 'a method not served', did: 'did:example:123456', status: 501, error: 'methodNotSupported' },
    // did:web is resolved, only from the origins the operator allows (didWebOrigins; none here): nothing is fetched.
    { name: 'a did:web of an origin not allowed', did: 'did:web:example.com', status: 404, error: 'notFound' },
    { name: 'a did:ethr network not served', did: `did:ethr:goerli:${live.split(':').at(-1)}`, status: 501, error: 'methodNotSupported' },
  ]
}, 120_000)

afterAll(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

const resolve = (did: string, accept?: string) =>
  http(`${url}/1.0/identifiers/${did.replace(/^[^?]*/, encodeURIComponent)}`, accept === undefined ? {} : { headers: { accept } })

describe('GET /1.0/identifiers/{did}: the W3C DID Resolution HTTP(S) binding', () => {
  it('answers a resolution result at the binding’s status on every path, in application/did-resolution by default', async () => {
    for (const c of cases) {
      const res = await resolve(c.did)
      expect(res.status, c.name).toBe(c.status)
      expect(res.headers.get('content-type'), c.name).toMatch(/^application\/did-resolution(;|$)/)
      expect(didResolution.safeParse(res.body).success, c.name).toBe(true)
      expect(res.body.didResolutionMetadata.error, c.name).toBe(c.error)
      if (c.error !== undefined) expect(res.body.didDocument, c.name).toBeNull()
      else expect(res.body.didDocument.id, c.name).toBe(c.did)
    }
    const gone = await resolve(deactivated)
    expect(gone.body.didDocumentMetadata.deactivated).toBe(true)
  })

  it('honours Accept: the DIF profile, the bare document, and 406 representationNotSupported for what it cannot give', async () => {
    const ld = await resolve(live, 'application/ld+json;profile="https://w3id.org/did-resolution"')
    expect([ld.status, ld.headers.get('content-type')?.replace(/; charset=utf-8$/, '')]).toEqual([200, RESULT_LD])
    expect(ld.body.didDocument.id).toBe(live)

    const bare = await resolve(live, 'application/did+ld+json')
    expect(bare.status).toBe(200)
    expect(bare.headers.get('content-type')).toMatch(/^application\/did\+ld\+json(;|$)/)
    expect(bare.headers.get('vary')).toMatch(/Accept/i)
    expect(didDocument.safeParse(bare.body).success).toBe(true)
    expect(bare.body.id).toBe(live)
    expect(bare.body).not.toHaveProperty('didResolutionMetadata')
    // A failed resolution has no document: the body is the result, in the result's media type.
    const missing = await resolve(`${live}?versionId=99`, 'application/did+ld+json')
    expect([missing.status, missing.body.didResolutionMetadata.error]).toEqual([404, 'notFound'])
    expect(missing.headers.get('content-type')).toMatch(/^application\/did-resolution(;|$)/)

    const refused = await resolve(live, 'text/html')
    expect(refused.status).toBe(406)
    expect(refused.body.didResolutionMetadata.error).toBe('representationNotSupported')
    expect(refused.body.didDocument).toBeNull()
    expect(refused.headers.get('content-type')).toMatch(/^application\/did-resolution(;|$)/)
  })

  it('Veramo 7’s universal-resolver client inside did-resolver’s Resolver reads every answer as the result it is', async () => {
    const resolver = new Resolver(getUniversalResolverFor(['ethr', 'web', 'example'], `${url}/1.0/identifiers/`), { cache: false })
    // Resolver hands Veramo's client the DID without the URL's query: the version cases do not reach the route from it.
    for (const c of cases.filter((c) => !c.did.includes('?'))) {
      const result = await resolver.resolve(c.did)
      expect(result.didResolutionMetadata.error, c.name).toBe(c.error)
      expect(result, c.name).not.toHaveProperty('errorType')
      if (c.status === 410) expect([result.didDocument?.id, result.didDocumentMetadata.deactivated]).toEqual([c.did, true])
    }
  })

  it('didvault’s own universalResolver reads each status, 410 included', async () => {
    const resolver = universalResolver({ url })
    for (const c of cases.filter((c) => !c.did.includes('?'))) {
      const result = await resolver.resolve(c.did)
      expect(result.didResolutionMetadata.error, c.name).toBe(c.error)
      if (c.error === undefined) expect(result.didDocument?.id, c.name).toBe(c.did)
    }
    const gone = await resolver.resolve(deactivated)
    expect(gone.didDocumentMetadata.deactivated).toBe(true)
  })

  it('didvault/client resolves — never rejects — to the same result on every path', async () => {
    const client = createClient({ baseUrl: url })
    for (const c of cases) {
      const [did, query] = c.did.split('?')
      const version = query === undefined ? {} : { versionId: query.replace(/^versionId=/, '') }
      const result = await client.resolveDid({ did, ...version })
      expect(result, c.name).toEqual((await resolve(c.did)).body)
    }
    // A DID refused before anything is sent is the same result.
    expect((await client.resolveDid({ did: '' })).didResolutionMetadata.error).toBe('invalidDid')
  })
})

/**
 * did:web of DIDs the service does not hold, in process: the DID → URL rule (the did:web
 * specification's examples; malformed DIDs refused), the same URLs as web-did-resolver's (a
 * differential test: web-did-resolver runs in a child process trusting a throw-away CA through
 * NODE_EXTRA_CA_CERTS, a TLS terminator on loopback records what it asks for), and no request to a
 * host the operator did not allow or under the service's own publicUrl (a loopback listener that
 * must see no connection).
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer, type AddressInfo, type Server as NetServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DidWebResolver, didWebOfWallet, didWebUrl } from '../../src/did/methods/web/index.js'
import { ROOT } from '../helpers/build.js'
import { cleanEnv } from '../helpers/spawn.js'
import { makeTestCa, tlsTerminator, type TestCa, type TlsTerminator } from '../helpers/tls.js'

const hrefOf = (did: string) => {
  const url = didWebUrl(did)
  return url instanceof URL ? url.href : url
}

describe('did:web DID → URL', () => {
  it.each([
    // The did:web specification's examples (w3c-ccg.github.io/did-method-web, Read).
    ['did:web:w3c-ccg.github.io', 'https://w3c-ccg.github.io/.well-known/did.json'],
    ['did:web:w3c-ccg.github.io:user:alice', 'https://w3c-ccg.github.io/user/alice/did.json'],
    ['did:web:example.com%3A3000:user:alice', 'https://example.com:3000/user/alice/did.json'],
    ['did:web:example.com%3a3000', 'https://example.com:3000/.well-known/did.json'],
  ])('%s is at %s', (did, url) => {
    expect(hrefOf(did)).toBe(url)
  })

  it.each([
    'did:web:',
    'did:web:example.com:',
    'did:web:example.com::a',
    'did:web:example.com:..',
    'did:web:example.com:a%2Fb',
    'did:web:example.com:a%3Fb',
    'did:web:user%40example.com',
    'did:web:example.com%2Fpath',
    'did:web:example.com%3A99999',
    'did:web:exa_mple.com',
    'did:web:example.com:%E0%A4%A',
    `did:web:example.com:${'a'.repeat(2_000)}`,
  ])('%s is refused (invalidDid), nothing fetched', async (did) => {
    expect(hrefOf(did)).toHaveProperty('invalid')
    const result = await new DidWebResolver({ origins: ['https://example.com'] }).forRequest().resolve(did)
    expect(result.didResolutionMetadata.error).toBe('invalidDid')
  })
})

describe("a wallet's did:web DID under publicUrl", () => {
  it.each([
    ['https://id.example.com', 'did:web:id.example.com:dids:w1', 'https://id.example.com/dids/w1/did.json'],
    ['https://localhost:8443/', 'did:web:localhost%3A8443:dids:w1', 'https://localhost:8443/dids/w1/did.json'],
    ['http://127.0.0.1:3000/vault/api', 'did:web:127.0.0.1%3A3000:vault:api:dids:w1', 'https://127.0.0.1:3000/vault/api/dids/w1/did.json'],
  ])('under %s the DID is %s, at %s by the did:web rule', (publicUrl, did, url) => {
    expect(didWebOfWallet(publicUrl, 'w1')).toBe(did)
    expect(hrefOf(did)).toBe(url)
  })
})

describe('did:web resolution asks no host the operator did not allow', () => {
  let listener: NetServer
  let port: number
  let connections = 0

  beforeAll(async () => {
    listener = createServer((socket) => {
      connections++
      socket.destroy()
    })
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    port = (listener.address() as AddressInfo).port
  })
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())))

  it('a did:web of an origin not in didWebOrigins is notFound naming didWebOrigins, and the listener sees no connection', async () => {
    const resolver = new DidWebResolver({ origins: ['https://lists.example'] })
    for (const did of [`did:web:127.0.0.1%3A${port}`, `did:web:127.0.0.1%3A${port}:user:alice`, `did:web:localhost%3A${port}#key-1`]) {
      const result = await resolver.forRequest().resolve(did)
      expect(result.didResolutionMetadata).toEqual({
        error: 'notFound',
        message: `did:web: origin https://${did.includes('localhost') ? 'localhost' : '127.0.0.1'}:${port} is not allowed (didWebOrigins)`,
      })
      expect(result.didDocument).toBeNull()
    }
    expect(connections).toBe(0)
  })

  it('a did:web under the service’s own publicUrl is never fetched, its origin allowed or not: own answers, or notFound', async () => {
    const origin = `https://127.0.0.1:${port}`
    const did = `did:web:127.0.0.1%3A${port}:dids:w1`
    const withoutOwn = new DidWebResolver({ origins: [origin], publicUrl: origin })
    expect((await withoutOwn.forRequest().resolve(did)).didResolutionMetadata).toEqual({
      error: 'notFound',
      message: 'did:web: under the service’s publicUrl and not among its DIDs',
    })
    const document = { id: did }
    const own = { resolve: async () => ({ didResolutionMetadata: {}, didDocument: document, didDocumentMetadata: {} }) }
    const withOwn = new DidWebResolver({ origins: [origin], publicUrl: `${origin}/`, own })
    expect((await withOwn.forRequest().resolve(did)).didDocument).toBe(document)
    expect(connections).toBe(0)
  })

  it('a request reads each document once, at most maxDocumentsPerRequest of them; the next request has its own budget', async () => {
    const before = connections
    const resolver = new DidWebResolver({ origins: [`https://127.0.0.1:${port}`], maxDocumentsPerRequest: 2 })
    const request = resolver.forRequest()
    const [a, b, c] = ['a', 'b', 'c'].map((path) => `did:web:127.0.0.1%3A${port}:${path}`)
    const first = await request.resolve(a)
    // The listener closes every connection: the document cannot be had, and that failure is the request's answer for it.
    expect(first.didResolutionMetadata).toMatchObject({ error: 'notFound', message: expect.stringContaining(`/a/did.json: `) })
    expect(await request.resolve(`${a}#key-1`)).toEqual(first)
    await request.resolve(b)
    expect((await request.resolve(c)).didResolutionMetadata).toEqual({
      error: 'notFound',
      message: 'did:web: this request already read 2 did:web documents (maxDocumentsPerRequest)',
    })
    expect(connections - before).toBe(2)
    await resolver.forRequest().resolve(c)
    expect(connections - before).toBe(3)
  })

  it('didWebOrigins follow the status lists’ rules: https, http only on loopback, an origin and nothing more', () => {
    for (const origin of ['http://example.com', 'https://example.com/path', 'example.com', 'https://example.com?q'])
      expect(() => new DidWebResolver({ origins: [origin] })).toThrow(/^didWebOrigins: .* must be an origin/)
    expect(() => new DidWebResolver({ origins: ['http://127.0.0.1:8080', 'https://example.com:8443'] })).not.toThrow()
  })
})

describe('the same URLs as web-did-resolver (differential)', () => {
  let ca: TestCa
  let recorder: Server
  let terminator: TlsTerminator
  const asked: string[] = []

  beforeAll(async () => {
    ca = makeTestCa()
    recorder = createHttpServer((req, res) => {
      asked.push(`https://${req.headers.host}${req.url}`)
      res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve))
    terminator = await tlsTerminator(ca, (recorder.address() as AddressInfo).port)
  })
  afterAll(async () => {
    await terminator.close()
    await new Promise((resolve) => recorder.close(resolve))
    ca.remove()
  })

  it('maps DIDs with ports, paths and percent-encoded segments to the URLs web-did-resolver fetches', async () => {
    const p = terminator.port
    const dids = [
      `did:web:localhost%3A${p}`,
      `did:web:localhost%3a${p}:user:alice`,
      `did:web:localhost%3A${p}:a:b:c`,
      `did:web:127.0.0.1%3A${p}:issuers:x`,
      `did:web:localhost%3A${p}:caf%C3%A9`,
      `did:web:localhost%3A${p}:a-b.c_d:1`,
    ]
    const script = `
      import { Resolver } from 'did-resolver'
      import { getResolver } from 'web-did-resolver'
      const resolver = new Resolver(getResolver(), { cache: false })
      for (const did of JSON.parse(process.argv[1])) await resolver.resolve(did)`
    // Asynchronously: the recorder and the terminator answer from this process.
    await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(dids)], {
      cwd: ROOT,
      env: cleanEnv({ NODE_EXTRA_CA_CERTS: ca.caFile }),
      timeout: 60_000,
    })
    expect(asked).toEqual(dids.map(hrefOf))
  }, 70_000)
})

/**
 * `createClient` against a recording `fetch`: how each call becomes a request (method, path,
 * query, body, headers), which headers each way of giving auth sends, and what each kind of
 * answer becomes (result, `IdentityError`, `TransportError`). The types are the service's.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createClient, TransportError, type ClientOperations, type ClientOptions, type DidvaultClient } from '../../src/client/index.js'
import { IdentityError, type BoundIdentityService, type IdentityService } from '../../src/index.js'
import { type CONTRACTS } from '../../src/service/contracts.js'

interface Sent {
  url: string
  method: string
  headers: Record<string, string>
  body?: string
}

/** A client whose `fetch` records each request and answers with `answer`. */
function recording(options: Partial<ClientOptions> = {}, answer: () => Response | Promise<Response> = () => Response.json({ ok: true })) {
  const sent: Sent[] = []
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const headers = { ...(init?.headers as Record<string, string>) }
    sent.push({
      url: input instanceof Request ? input.url : input.toString(),
      method: init?.method ?? 'GET',
      headers,
      body: init?.body as string | undefined,
    })
    return answer()
  }
  return { client: createClient({ baseUrl: 'http://127.0.0.1:8080/identity/', fetch, ...options }), sent }
}

describe('requests', () => {
  it('a GET’s input is its query: arrays as repeated parameters, numbers as digits, undefined left out', async () => {
    const { client, sent } = recording({ apiKey: 'k' })
    await client.getClaims({ ids: ['urn:a', 'did:ethr:dev:0x1'], limit: 10, issuer: undefined, type: 'A B' })
    expect(sent).toEqual([
      {
        url: 'http://127.0.0.1:8080/identity/claims?ids=urn%3Aa&ids=did%3Aethr%3Adev%3A0x1&limit=10&type=A+B',
        method: 'GET',
        headers: { authorization: 'Bearer k' },
      },
    ])
    await client.getWallets()
    expect(sent[1].url).toBe('http://127.0.0.1:8080/identity/wallets')
  })

  it('other methods send their input as a JSON body; path parameters go into the path, encoded, and not into the body', async () => {
    const { client, sent } = recording({ apiKey: 'k', didAuth: 't1,t2' })
    await client.createVaultWallet({ vaultID: 'a/b c', wallet: { alias: 'x' } })
    await client.deleteRoles({ dids: 'did:ethr:dev:0x1' })
    expect(sent).toEqual([
      {
        url: 'http://127.0.0.1:8080/identity/vaults/a%2Fb%20c/wallet',
        method: 'POST',
        headers: { authorization: 'Bearer k', 'x-did-auth': 't1,t2', 'content-type': 'application/json' },
        body: '{"wallet":{"alias":"x"}}',
      },
      {
        url: 'http://127.0.0.1:8080/identity/roles',
        method: 'DELETE',
        headers: { authorization: 'Bearer k', 'x-did-auth': 't1,t2', 'content-type': 'application/json' },
        body: '{"dids":"did:ethr:dev:0x1"}',
      },
    ])
  })

  it('a missing path parameter is the service’s 422, and nothing is sent', async () => {
    const { client, sent } = recording()
    const error = await client.initializeVault({} as never).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(IdentityError)
    const errorMessage = expect.stringMatching(/^invalid request: vaultID: /)
    expect((error as IdentityError).toJSON()).toMatchObject({ statusCode: 422, errorType: 'VALIDATION_ERROR', errorMessage })
    expect(sent).toEqual([])
  })

  it('resolveDid reads by media type: a result at an error status the route declares resolves; anything else does not', async () => {
    const result = { '@context': 'x', didDocument: null, didDocumentMetadata: {}, didResolutionMetadata: { error: 'notFound' } }
    const as =
      (status: number, type: string, body = JSON.stringify(result)) =>
      () =>
        new Response(body, { status, headers: { 'content-type': type } })
    const resolved = await recording({}, as(404, 'application/did-resolution')).client.resolveDid({ did: 'did:ethr:dev:0x1' })
    expect(resolved).toEqual(result)
    const profiled = as(404, 'application/ld+json; profile="https://w3id.org/did-resolution"; charset=utf-8')
    expect(await recording({}, profiled).client.resolveDid({ did: 'did:ethr:dev:0x1' })).toEqual(result)
    // A proxy's page at a declared status, a result in a media type the route does not declare, a status it does not answer.
    for (const answer of [as(404, 'text/html', '<h1>Not Found</h1>'), as(404, 'application/xml'), as(502, 'application/did-resolution')]) {
      const error = await recording({}, answer)
        .client.resolveDid({ did: 'did:ethr:dev:0x1' })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TransportError)
    }
  })

  it('resolveDid and openApiDocument: public routes, no auth headers', async () => {
    const RESULT = { accept: 'application/did-resolution' }
    const { client, sent } = recording({ apiKey: 'k', didAuth: 't' })
    await client.resolveDid({ did: 'did:ethr:dev:0x1', versionTime: '2024-05-01T12:00:00Z' })
    await client.resolveDid({ did: 'did:ethr:dev:0x1', versionId: 3 })
    await client.openApiDocument()
    expect(sent.map((s) => [s.method, s.url, s.headers])).toEqual([
      // Asked for the resolution result, in the first of the route's media types.
      ['GET', 'http://127.0.0.1:8080/identity/1.0/identifiers/did%3Aethr%3Adev%3A0x1?versionTime=2024-05-01T12%3A00%3A00Z', RESULT],
      ['GET', 'http://127.0.0.1:8080/identity/1.0/identifiers/did%3Aethr%3Adev%3A0x1?versionId=3', RESULT],
      ['GET', 'http://127.0.0.1:8080/identity/openapi.json', {}],
    ])
  })
})

describe('auth', () => {
  it('`auth` fields win over apiKey and didAuth; a function is asked again for every call (tokens refresh)', async () => {
    let n = 0
    const { client, sent } = recording({ apiKey: 'k', didAuth: 'old', auth: () => ({ didAuth: `fresh-${++n}` }) })
    await client.getWallets()
    await client.getWallets()
    expect(sent.map((s) => s.headers)).toEqual([
      { authorization: 'Bearer k', 'x-did-auth': 'fresh-1' },
      { authorization: 'Bearer k', 'x-did-auth': 'fresh-2' },
    ])
  })

  it('as(auth) sends exactly those headers, like service.as: the Access Token JWT without the API key', async () => {
    const { client, sent } = recording({ apiKey: 'k', didAuth: 't' })
    await client.as({ authorization: 'Bearer eyJ.access.jwt' }).deleteClaims({ ids: ['x'] })
    await client.as(async () => ({ authorization: 'Bearer other' })).getVaults()
    expect(sent.map((s) => s.headers)).toEqual([
      { authorization: 'Bearer eyJ.access.jwt', 'content-type': 'application/json' },
      { authorization: 'Bearer other' },
    ])
  })
})

describe('answers', () => {
  it('an error body is the IdentityError it carries, with its own status (404 of an unknown route included)', async () => {
    const notFound = { statusCode: 404, errorType: 'NOT_FOUND', errorMessage: 'no such route' }
    const { client } = recording({}, () => Response.json(notFound, { status: 404 }))
    const error = await client.getVaults().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(IdentityError)
    expect((error as IdentityError).toJSON()).toEqual({ statusCode: 404, errorType: 'NOT_FOUND', errorMessage: 'no such route' })
  })

  it('a 503 SERVICE_UNAVAILABLE (storage down) is an IdentityError of that type, not a TransportError', async () => {
    const unavailable = {
      statusCode: 503,
      errorType: 'SERVICE_UNAVAILABLE',
      errorMessage: 'Get Identity Vaults failed: storage unavailable, retry later',
    }
    const { client } = recording({}, () => Response.json(unavailable, { status: 503, headers: { 'retry-after': '1' } }))
    const error = await client.getVaults().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(IdentityError)
    expect((error as IdentityError).toJSON()).toEqual(unavailable)
  })

  const teapot = { statusCode: 418, errorType: 'TEAPOT', errorMessage: 'x' }
  it.each([
    [
      'a network failure',
      () => Promise.reject(new TypeError('fetch failed')),
      undefined,
      /GET \/vaults: no response from http:\/\/127\.0\.0\.1:8080\/identity/,
    ],
    [
      'a proxy’s HTML error page',
      () => new Response('<html>Bad gateway</html>', { status: 502 }),
      502,
      /HTTP 502 with a body that is not JSON/,
    ],
    [
      'JSON that is not an error body',
      () => Response.json({ error: 'nope' }, { status: 500 }),
      500,
      /HTTP 500 without didvault's error body/,
    ],
    ['an error body of an unknown type', () => Response.json(teapot, { status: 418 }), 418, /error body/],
    ['a 200 that is not JSON', () => new Response('ok'), 200, /HTTP 200 with a body that is not JSON/],
  ])('%s is a TransportError, not an IdentityError', async (_name, answer, status, message) => {
    const { client } = recording({}, answer)
    const error = await client.getVaults().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TransportError)
    expect(error).not.toBeInstanceOf(IdentityError)
    expect((error as TransportError).status).toBe(status)
    expect((error as TransportError).message).toMatch(message)
  })
})

describe('types', () => {
  it('the client’s operations are exactly the service’s, bound (IdentityService.as)', () => {
    // Every operation but the wallet-facing ones (`client: false`: their clients are wallets, not an issuing backend).
    type ClientSide = Pick<BoundIdentityService, keyof ClientOperations>
    expectTypeOf<ClientOperations>().toEqualTypeOf<ClientSide>()
    type WalletFacing = {
      [K in keyof typeof CONTRACTS]: (typeof CONTRACTS)[K] extends { client: false } ? K : never
    }[keyof typeof CONTRACTS]
    expectTypeOf<keyof BoundIdentityService>().toEqualTypeOf<keyof ClientOperations | WalletFacing>()
    expectTypeOf<ReturnType<DidvaultClient['as']>>().toEqualTypeOf<ClientSide>()
    expectTypeOf<Pick<DidvaultClient, keyof ClientSide>>().toEqualTypeOf<ClientSide>()
    expectTypeOf<Parameters<DidvaultClient['createVaultWallet']>[0]>().toHaveProperty('vaultID')
    expectTypeOf<Awaited<ReturnType<DidvaultClient['createVault']>>>().toEqualTypeOf<Awaited<ReturnType<IdentityService['createVault']>>>()
  })
})

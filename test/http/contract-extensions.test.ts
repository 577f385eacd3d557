/**
 * The operation contract's extensions for protocol endpoints (OID4VCI): form bodies, OAuth error answers, statuses
 * 400/401 with `WWW-Authenticate`, authenticators registered by a module, root routes (`createWellKnownRouter`),
 * response headers, operations that are no client methods. The OID4VCI operations are not in the table yet: these
 * tests run the router, the OpenAPI document and the client over the table and operations of their own (the
 * internal seams `routerOver`, `openApiDocumentOf`, `clientOver`, `dispatcher.withOperations`), over real HTTP.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Validator } from '@seriousme/openapi-schema-validator'
import express from 'express'
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { IdentityService, UnavailableError, createMemoryStorage, randomMasterKey, staticTenants } from '../../src/index.js'
import type { AuthContext, Caller } from '../../src/auth/context.js'
import { clientOver } from '../../src/client/create-client.js'
import * as expressEntry from '../../src/http/index.js'
import { openApiDocumentOf } from '../../src/http/openapi.js'
import { routerOver } from '../../src/http/router.js'
import { defineContract, MOUNT, type Contracts } from '../../src/operations/contract.js'
import { defineOperation } from '../../src/operations/define.js'
import { OAuthError } from '../../src/oid4vci/oauth-error.js'
import { CONTRACTS } from '../../src/service/contracts.js'
import type { OperationTable } from '../../src/service/dispatcher.js'
import { IdentityError, notFound, unauthenticated } from '../../src/errors.js'

const TOKEN = 'token-tenant-a-0123456789'
const PUBLIC_URL = 'https://issuer.example/identity'

const OAUTH_ERRORS = {
  400: 'invalid_request, invalid_grant',
  401: 'invalid_token',
  404: 'invalid_request: no such issuer',
  413: 'invalid_request: the body is over the limit',
  500: 'server_error',
  503: 'temporarily_unavailable',
} as const

const formEcho = defineContract({
  summary: 'Test token endpoint',
  auth: 'public',
  tag: 'test',
  errors: OAUTH_ERRORS,
  routes: [{ method: 'post', path: '/t/form' }],
  bodyTypes: ['application/x-www-form-urlencoded'],
  errorFormat: 'oauth',
  client: false,
  input: z.strictObject({ grant_type: z.string(), code: z.string().optional() }),
  response: z.object({ grant_type: z.string(), code: z.string().optional() }),
  responseHeaders: () => ({ 'cache-control': 'no-store', 'x-test': 'yes' }),
})

const credential = defineContract({
  summary: 'Test credential endpoint',
  auth: 'oid4vci-access',
  tag: 'test',
  errors: OAUTH_ERRORS,
  routes: [{ method: 'post', path: '/t/:issuer/credential' }],
  params: z.object({ issuer: z.string() }),
  errorFormat: 'oauth',
  client: false,
  input: z.strictObject({ format: z.string() }),
  response: z.object({ tenant: z.string() }),
})

const rootDocument = defineContract({
  summary: 'Test metadata at the host root',
  auth: 'public',
  tag: 'test',
  errors: OAUTH_ERRORS,
  routes: [{ method: 'get', path: `/.well-known/test-issuer${MOUNT}/t/:issuer`, root: true }],
  params: z.object({ issuer: z.string() }),
  errorFormat: 'oauth',
  client: false,
  input: z.strictObject({}),
  response: z.object({ issuer: z.string() }),
})

const plain = defineContract({
  summary: 'Test operation of the client',
  auth: 'tenant',
  tag: 'test',
  errors: { 403: 'UNAUTHENTICATED', 422: 'VALIDATION_ERROR' },
  routes: [{ method: 'post', path: '/t/plain' }],
  input: z.strictObject({ n: z.number() }),
  response: z.object({ doubled: z.number() }),
})

const TEST_CONTRACTS = { formEcho, credential, rootDocument, plain }
const TABLE: Contracts = { ...CONTRACTS, ...TEST_CONTRACTS }

const OPERATIONS = {
  formEcho: defineOperation(formEcho, {
    handler: async (_ctx, _caller, input) => {
      if (input.grant_type === 'bad')
        throw new OAuthError('invalid_grant', 'the code was used', 400, {
          body: { c_nonce: 'n-1', error: 'not-this' },
          headers: { 'DPoP-Nonce': 'dn' },
        })
      if (input.grant_type === 'boom') throw new Error('secret-detail of a library')
      if (input.grant_type === 'down') throw new UnavailableError('db host x down', 'storage unavailable')
      if (input.grant_type === 'missing') throw notFound('no such issuer')
      return input
    },
  }),
  credential: defineOperation(credential, { handler: async (_ctx, caller) => ({ tenant: caller.tenantId }) }),
  rootDocument: defineOperation(rootDocument, { handler: async (_ctx, _caller, input) => ({ issuer: input.issuer }) }),
  plain: defineOperation(plain, { handler: async (_ctx, _caller, input) => ({ doubled: input.n * 2 }) }),
} as unknown as OperationTable

/** What the registered authenticator was given, per request. */
const seen: AuthContext[] = []
async function accessToken(auth: AuthContext): Promise<Caller> {
  seen.push(auth)
  if (auth.authorization !== 'DPoP good-token' || auth.dpop !== 'a-proof') throw unauthenticated('the access token is not valid')
  return { tenantId: 'tenant-a', dids: [], addresses: [] }
}

let service: IdentityService
let server: Server
let origin: string
beforeAll(async () => {
  service = await IdentityService.create({
    storage: createMemoryStorage(),
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [TOKEN]: 'tenant-a' }),
    publicUrl: PUBLIC_URL,
  })
  const served = { dispatcher: service.dispatcher.withOperations(OPERATIONS, { 'oid4vci-access': accessToken }), config: service.config }
  // A table whose module did not register its authenticator: its protected routes are not served.
  const unregistered = { dispatcher: service.dispatcher.withOperations(OPERATIONS), config: service.config }
  const app = express()
  app.use('/identity', routerOver(served, TABLE))
  app.use('/bare', routerOver(unregistered, TABLE))
  app.use(routerOver(served, TABLE, {}, 'root'))
  server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await service.close()
})

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(origin + path, { method: 'POST', body, headers })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> }
}
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

describe('form bodies', () => {
  it('are parsed into the operation input; the 200 carries the contract’s response headers', async () => {
    const res = await post('/identity/t/form', 'grant_type=urn%3Aietf%3Aparams&code=a+b%2Bc', FORM)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ grant_type: 'urn:ietf:params', code: 'a b+c' })
    expect(res.headers.get('x-test')).toBe('yes')
    expect(res.headers.get('cache-control')).toBe('no-store')
  })

  it('JSON is refused where only a form is declared: 400 invalid_request, not stored by any cache', async () => {
    const res = await post('/identity/t/form', JSON.stringify({ grant_type: 'x' }), { 'content-type': 'application/json' })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'Content-Type must be application/x-www-form-urlencoded' })
    expect(res.headers.get('cache-control')).toBe('no-store')
  })

  it('a parameter given twice is 400 invalid_request naming it; an unknown one too', async () => {
    const twice = await post('/identity/t/form', 'grant_type=a&grant_type=b', FORM)
    expect(twice.status).toBe(400)
    expect(twice.body.error).toBe('invalid_request')
    expect(twice.body.error_description).toContain('grant_type')
    const unknown = await post('/identity/t/form', 'grant_type=a&__proto__=x', FORM)
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toBe('invalid_request')
  })

  it('are bounded like JSON bodies: over the limit is 413 invalid_request; another charset 400', async () => {
    const big = await post('/identity/t/form', `grant_type=${'a'.repeat(1_100_000)}`, FORM)
    expect(big.status).toBe(413)
    expect(big.body.error).toBe('invalid_request')
    const latin1 = await post('/identity/t/form', 'grant_type=a', {
      'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1',
    })
    expect(latin1.status).toBe(400)
  })

  it('other routes keep JSON only (a form body to them is the spec’s 422)', async () => {
    const res = await post('/identity/t/plain', 'n=1', { ...FORM, authorization: `Bearer ${TOKEN}` })
    expect(res.status).toBe(422)
    expect(res.body).toMatchObject({ errorType: 'VALIDATION_ERROR', errorMessage: 'Content-Type must be application/json' })
  })
})

describe('JSON answers', () => {
  it('a POST’s is written with its type and length and no ETag (only a conditional GET could use one)', async () => {
    const res = await fetch(`${origin}/identity/t/plain`, {
      method: 'POST',
      body: JSON.stringify({ n: 21 }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    })
    const text = await res.text()
    expect(res.status).toBe(200)
    expect(JSON.parse(text)).toEqual({ doubled: 42 })
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)))
    expect(res.headers.get('etag')).toBeNull()
    // The contract's response headers still come with it.
    const form = await post('/identity/t/form', 'grant_type=x', FORM)
    expect(form.headers.get('etag')).toBeNull()
    expect(form.headers.get('x-test')).toBe('yes')
  })

  it('a GET’s keeps Express’s ETag, and the same GET with it is 304', async () => {
    const url = `${origin}/.well-known/test-issuer/identity/t/acme`
    const first = await fetch(url)
    const etag = first.headers.get('etag')
    expect(first.status).toBe(200)
    expect(etag).toMatch(/^W\/"/)
    // fetch would add `Cache-Control: no-cache` to a conditional request, which makes any answer stale.
    expect((await fetch(url, { headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' } })).status).toBe(304)
  })
})

describe('OAuth error answers (errorFormat: oauth)', () => {
  it('an OAuthError is answered as itself: status, code, description, its body members and headers', async () => {
    const res = await post('/identity/t/form', 'grant_type=bad', FORM)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'the code was used', c_nonce: 'n-1' })
    expect(res.headers.get('dpop-nonce')).toBe('dn')
    expect(res.headers.get('cache-control')).toBe('no-store')
  })

  it('a failure is 500 server_error saying nothing of it; storage unavailable 503 with Retry-After; unknown 404', async () => {
    const boom = await post('/identity/t/form', 'grant_type=boom', FORM)
    expect(boom.status).toBe(500)
    expect(boom.body.error).toBe('server_error')
    expect(JSON.stringify(boom.body)).not.toContain('secret-detail')
    const down = await post('/identity/t/form', 'grant_type=down', FORM)
    expect(down.status).toBe(503)
    expect(down.body.error).toBe('temporarily_unavailable')
    expect(down.headers.get('retry-after')).toBe('1')
    expect(JSON.stringify(down.body)).not.toContain('db host')
    const missing = await post('/identity/t/form', 'grant_type=missing', FORM)
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'no such issuer' })
  })

  it('the embedded call rejects with the same OAuthError', async () => {
    const dispatcher = service.dispatcher.withOperations(OPERATIONS)
    const error = await dispatcher.call('formEcho' as never, { grant_type: 'x', extra: 1 }, {}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OAuthError)
    expect((error as OAuthError).oauthBody().error).toBe('invalid_request')
    expect((error as OAuthError).statusCode).toBe(400)
  })
})

/** Sends only the headers of a POST announcing a `length`-byte body; resolves to what the server answers before any body byte. */
function headersOnly(path: string, headers: Record<string, string>, length: number): Promise<string> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const lines = [`POST ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Content-Type: application/json', `Content-Length: ${length}`]
      socket.write([...lines, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n') + '\r\n\r\n')
    })
    let received = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer without the body; got ${JSON.stringify(received)}`))
    }, 5_000)
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8')
      const end = received.indexOf('\r\n\r\n')
      const size = /content-length: (\d+)/i.exec(received)?.[1]
      if (end >= 0 && size !== undefined && received.length >= end + 4 + Number(size)) {
        clearTimeout(timer)
        socket.destroy()
        resolve(received)
      }
    })
    socket.on('error', reject)
  })
}

describe('registered authenticators', () => {
  it('an unauthenticated request is 401 invalid_token with WWW-Authenticate, answered before its (oversized) body is sent', async () => {
    const bare = await headersOnly('/identity/t/acme/credential', {}, 2_000_000)
    expect(bare).toMatch(/^HTTP\/1\.1 401 /)
    expect(bare).toMatch(/^www-authenticate: Bearer\r$/im)
    expect(bare).toMatch(/^connection: close\r$/im)
    expect(bare).toMatch(/^cache-control: no-store\r$/im)
    expect(JSON.parse(bare.slice(bare.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: 'invalid_token' })

    const dpop = await headersOnly('/identity/t/acme/credential', { Authorization: 'DPoP stale', DPoP: 'a-proof' }, 2_000_000)
    expect(dpop).toMatch(/^HTTP\/1\.1 401 /)
    expect(dpop).toMatch(/^www-authenticate: DPoP error="invalid_token", error_description="the access token is not valid"\r$/im)
    const bearer = await headersOnly('/identity/t/acme/credential', { Authorization: 'Bearer stale' }, 2_000_000)
    expect(bearer).toMatch(/^www-authenticate: Bearer error="invalid_token"/im)
  })

  it('the authenticator gets the headers, the method, the public URL and the path parameters', async () => {
    seen.length = 0
    const res = await post('/identity/t/acme/credential?x=1', JSON.stringify({ format: 'dc+sd-jwt' }), {
      'content-type': 'application/json',
      authorization: 'DPoP good-token',
      dpop: 'a-proof',
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ tenant: 'tenant-a' })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ method: 'POST', url: `${PUBLIC_URL}/t/acme/credential`, params: { issuer: 'acme' }, dpop: 'a-proof' })
  })

  it('a route whose requirement no module registered is not served: 404', async () => {
    const res = await post('/bare/t/acme/credential', JSON.stringify({ format: 'x' }), {
      'content-type': 'application/json',
      authorization: 'DPoP good-token',
      dpop: 'a-proof',
    })
    expect(res.status).toBe(404)
    expect(res.body.error).toBe('invalid_request')
  })
})

describe('root routes', () => {
  it('are answered at the host root with publicUrl’s path inserted, by the root router only', async () => {
    const res = await fetch(`${origin}/.well-known/test-issuer/identity/t/acme`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ issuer: 'acme' })
    // Not under the mount, and not without publicUrl's path.
    expect((await fetch(`${origin}/identity/.well-known/test-issuer/identity/t/acme`)).status).toBe(404)
    expect((await fetch(`${origin}/.well-known/test-issuer/t/acme`)).status).toBe(404)
  })

  it('didvault/express exports createWellKnownRouter beside createRouter', () => {
    expect(typeof expressEntry.createWellKnownRouter).toBe('function')
    expect(typeof expressEntry.createRouter).toBe('function')
  })
})

describe('the client and the OpenAPI document', () => {
  it('the client has no method for client: false operations (type and runtime), and calls the others', async () => {
    const client = clientOver(TEST_CONTRACTS, { baseUrl: `${origin}/identity`, apiKey: TOKEN })
    expect(Object.keys(client).sort()).toEqual(['as', 'openApiDocument', 'plain'])
    expectTypeOf(client).not.toHaveProperty('formEcho')
    expectTypeOf(client).toHaveProperty('plain')
    expect(await client.plain({ n: 21 })).toEqual({ doubled: 42 })
  })

  it('documents form bodies, OAuth error bodies, 400/401, the access-token scheme and root routes, and validates', async () => {
    const doc = openApiDocumentOf(TABLE) as unknown as {
      paths: Record<string, Record<string, Record<string, any>>>
      components: Record<string, Record<string, unknown>>
    }
    const result = await new Validator().validate(doc)
    expect(result.errors ?? []).toEqual([])
    await SwaggerParser.validate(structuredClone(doc) as never)
    const token = doc.paths['/t/form'].post
    expect(Object.keys(token.requestBody.content)).toEqual(['application/x-www-form-urlencoded'])
    expect(token.responses[400].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/OAuthErrorBody' })
    const protectedRoute = doc.paths['/t/{issuer}/credential'].post
    expect(protectedRoute.security).toEqual([{ oid4vciAccessToken: [] }])
    expect(protectedRoute.responses[401].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/OAuthErrorBody' })
    expect(doc.components.securitySchemes.oid4vciAccessToken).toMatchObject({ type: 'http', scheme: 'bearer' })
    const root = doc.paths['/.well-known/test-issuer{mount}/t/{issuer}'].get
    expect(root.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['issuer', 'mount'])
    // The spec's error body stays on the other operations.
    expect(doc.paths['/t/plain'].post.responses[422].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' })
  })

  it('an IdentityError of a non-OAuth operation is unchanged', async () => {
    const res = await post('/identity/t/plain', JSON.stringify({ n: 'x' }), {
      'content-type': 'application/json',
      authorization: `Bearer ${TOKEN}`,
    })
    expect(res.status).toBe(422)
    expect(IdentityError.fromBody(res.body as never).errorType).toBe('VALIDATION_ERROR')
  })
})

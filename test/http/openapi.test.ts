/**
 * `GET /openapi.json`: served without auth, a valid OpenAPI 3.1 document (checked by an
 * independent validator), generated from the same operation table the router and the service
 * use — so every route, schema and security requirement is there.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { OPERATIONS, type IdentityService, type OperationInput, type OperationName } from '../../src/index.js'
import type { ErrorStatus } from '../../src/operations/contract.js'
import { ROOT } from '../helpers/build.js'
import { startHarness, type Harness } from '../helpers/harness.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(() => h.close())

const SECURITY = {
  tenant: [{ baseAuth: [] }],
  'tenant+did': [{ baseAuth: [], didAuth: [] }],
  access: [{ accessToken: [] }],
  'oid4vci-access': [{ oid4vciAccessToken: [] }],
  public: undefined,
}

describe('GET /openapi.json', () => {
  it('is served without auth and validates as OpenAPI 3.1', async () => {
    const res = await h.request('GET', '/openapi.json', { token: null })
    expect(res.status).toBe(200)
    expect(res.body.openapi).toBe('3.1.0')
    const validator = new Validator()
    const result = await validator.validate(res.body)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('validates with a second validator, @apidevtools/swagger-parser (its OpenAPI 3.1 schema and its own checks)', async () => {
    const doc = (await h.request('GET', '/openapi.json', { token: null })).body
    const validated = await SwaggerParser.validate(structuredClone(doc))
    expect((validated as { openapi?: string }).openapi).toBe('3.1.0')
  })

  it('documents every route of the operation table, aliases included, with its security, schemas and error body', async () => {
    const doc = (await h.request('GET', '/openapi.json', { token: null })).body
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['accessToken', 'baseAuth', 'didAuth', 'oid4vciAccessToken'])
    expect(doc.components.securitySchemes.didAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-did-auth' })
    expect(doc.components.schemas.ErrorBody.required.sort()).toEqual(['errorMessage', 'errorType', 'statusCode'])
    let routes = 0
    for (const [name, op] of Object.entries(OPERATIONS)) {
      for (const route of op.routes) {
        routes++
        const entry = doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method]
        expect(entry, `${route.method} ${route.path}`).toBeDefined()
        expect(entry.security).toEqual(SECURITY[op.auth])
        // A served document (a status list) is described in its own media types, with its 304.
        const document = 'document' in op
        if (document)
          expect(Object.keys(entry.responses['200'].content).sort()).toEqual(
            name === 'getStatusList'
              ? ['application/statuslist+jwt', 'application/vc+jwt', 'application/vc+ld+json']
              : name === 'getRequestObject' || name === 'postRequestObject'
                ? ['application/oauth-authz-req+jwt']
                : ['application/json'],
          )
        // An operation declaring its media types (DID resolution) is described in each; the others in JSON.
        else if ('media' in op && op.media) expect(Object.keys(entry.responses['200'].content)).toEqual(Object.keys(op.media))
        // An operation answering 204 No Content (the OID4VCI notification endpoint) has no 200 body.
        else if ('noContent' in op && op.noContent)
          expect([entry.responses['200'], entry.responses['204']?.content]).toEqual([undefined, undefined])
        // The authorization endpoint redirects the user agent (302, no body); PAR answers 201 Created (RFC 9126).
        else if ('redirect' in op && op.redirect)
          expect([entry.responses['200'], entry.responses['302']?.content]).toEqual([undefined, undefined])
        else if ('successStatus' in op && op.successStatus)
          expect(entry.responses[String(op.successStatus)].content['application/json'].schema).toBeDefined()
        else expect(entry.responses['200'].content['application/json'].schema).toBeDefined()
        if ('acceptedWhen' in op && op.acceptedWhen) expect(entry.responses['202'].content['application/json'].schema).toBeDefined()
        else expect(entry.responses['202']).toBeUndefined()
        // every error status the entry declares, with the error body or the body it declares, and no other
        const declared = Object.keys(op.errors).sort()
        expect(
          Object.keys(entry.responses)
            // helper "deferred": 202 Accepted is a success of the OID4VCI credential endpoints (`acceptedWhen`).
            .filter((status) => !['200', '201', '202', '204', '302'].includes(status) && !(document && status === '304'))
            .sort(),
          `${route.method} ${route.path}`,
        ).toEqual(declared)
        for (const status of declared) {
          const own = op.errors[Number(status) as ErrorStatus]
          if (typeof own === 'string')
            expect(entry.responses[status].content['application/json'].schema).toEqual({
              $ref: `#/components/schemas/${'errorFormat' in op && op.errorFormat === 'oauth' ? 'OAuthErrorBody' : 'ErrorBody'}`,
            })
          else expect(Object.keys(entry.responses[status].content), `${name} ${status}`).toEqual(own!.mediaTypes ?? ['application/json'])
        }
        // Every operation reads or writes storage: each may answer 503 SERVICE_UNAVAILABLE.
        expect(entry.responses['503']?.description, `${route.method} ${route.path}`).toMatch(/^SERVICE_UNAVAILABLE/)
        expect(entry.tags).toContain(op.tag)
        if (route.method === 'get') expect(entry.requestBody).toBeUndefined()
        // a body in each media type the contract admits (JSON by default; a form for the OAuth token and PAR endpoints)
        else for (const type of op.bodyTypes ?? ['application/json']) expect(entry.requestBody.content[type].schema, type).toBeDefined()
        // a route several operations share is named after the route; the others after their operation
        expect(entry.operationId.startsWith(route.discriminator ? `${route.method}Claims` : name)).toBe(true)
      }
    }
    // the spec's alias and the path parameter
    expect(doc.paths['/wallet'].get.summary).toContain('alias of GET /wallets')
    expect(doc.paths['/vaults/{vaultID}/wallet'].post.parameters).toEqual([
      expect.objectContaining({ in: 'path', name: 'vaultID', required: true }),
    ])
    expect(doc.paths['/wallets'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'alias',
      'cursor',
      'did',
      'limit',
      'vaultId',
    ])
    // both spellings of the assignments path, each method; the delete takes the Access Token JWT
    for (const path of ['/roles/assignmnets', '/roles/assignments']) {
      expect(Object.keys(doc.paths[path]).sort()).toEqual(['delete', 'get', 'post'])
      expect(doc.paths[path].delete.security).toEqual([{ accessToken: [] }])
      expect(doc.paths[path].post.security).toEqual([{ baseAuth: [], didAuth: [] }])
    }
    expect(doc.paths['/roles/assignments'].post.summary).toContain('alias of POST /roles/assignmnets')
    expect(Object.keys(doc.paths['/roles']).sort()).toEqual(['delete', 'get', 'post', 'put'])
    expect(doc.components.schemas.Role.required.sort()).toEqual([
      '_id',
      'createdAt',
      'creator',
      'description',
      'did',
      'permissions',
      'updatedAt',
    ])
    expect(routes).toBeGreaterThanOrEqual(21)
  })

  it('documents PATCH /claims as its three operations: oneOf with the discriminator `operation`', async () => {
    const doc = (await h.request('GET', '/openapi.json', { token: null })).body
    const patch = doc.paths['/claims'].patch
    const body = patch.requestBody.content['application/json'].schema
    expect(body.discriminator).toEqual({ propertyName: 'operation' })
    expect(body.oneOf).toHaveLength(3)
    type Part = { properties?: { operation?: { enum?: string[] } }; required?: string[] }
    const values = body.oneOf.map((member: { allOf: Part[] }) => {
      // each member: the operation's own input, and `operation` required with its one value
      const named = member.allOf.find((part) => part.required?.includes('operation'))!
      expect(named.properties!.operation!.enum).toHaveLength(1)
      return named.properties!.operation!.enum![0]
    })
    expect(values).toEqual(['verify', 'addProof', 'removeProof'])
    expect(patch.responses['200'].content['application/json'].schema.anyOf).toHaveLength(2)
    expect(patch.tags).toEqual(['Verifiable credentials'])
  })

  it('every example in the document is accepted by the operation’s own schema', () => {
    for (const [name, op] of Object.entries(OPERATIONS)) {
      if (!('example' in op) || op.example === undefined) continue
      expect(op.input.safeParse(op.example).success, name).toBe(true)
    }
  })

  it('documents the resolver route with its versionId and versionTime query parameters', async () => {
    const doc = (await h.request('GET', '/openapi.json', { token: null })).body
    const resolve = doc.paths['/1.0/identifiers/{did}'].get
    expect(resolve.security).toBeUndefined()
    expect(resolve.parameters.map((p: { in: string; name: string; required?: boolean }) => [p.in, p.name, p.required ?? false])).toEqual([
      ['path', 'did', true],
      ['query', 'versionId', false],
      ['query', 'versionTime', false],
    ])
    // W3C DID Resolution results at the binding's statuses, in the result's media types; the bare document at 200 too.
    expect(Object.keys(resolve.responses).sort()).toEqual(['200', '400', '404', '406', '410', '500', '501', '503'])
    expect(resolve.responses['400'].description).toContain('invalidDidUrl')
    const result = resolve.responses['200'].content['application/did-resolution'].schema
    for (const status of ['400', '404', '406', '410', '500', '501', '503']) {
      expect(Object.keys(resolve.responses[status].content)).toEqual([
        'application/did-resolution',
        'application/ld+json;profile="https://w3id.org/did-resolution"',
        'application/json',
      ])
      expect(resolve.responses[status].content['application/did-resolution'].schema).toEqual(result)
    }
    expect(resolve.responses['200'].content['application/did+ld+json'].schema).not.toEqual(result)
  })

  it('every pattern compiles as an ECMA-262 regular expression without flags (JSON Schema patterns have none)', async () => {
    const doc = (await h.request('GET', '/openapi.json', { token: null })).body
    const patterns = valuesOf(doc, 'pattern') as string[]
    expect(patterns.length).toBeGreaterThan(5)
    for (const pattern of patterns) {
      expect(() => new RegExp(pattern, 'u'), pattern).not.toThrow()
      // A flag of the zod regex left in the text (`^(jwt)$/i`) compiles, and never matches.
      expect(pattern, pattern).not.toMatch(/\/[dgimsuvy]+$/)
    }
  })

  it('every example of the document, and every request body of the README’s walkthrough, validates with ajv against its schema', async () => {
    const doc = (await h.request('GET', '/openapi.json', { token: null })).body
    const ajv = documentAjv(doc)
    let examples = 0
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [type, media] of Object.entries((operation.requestBody?.content ?? {}) as Record<string, any>)) {
          if (media.example === undefined) continue
          examples++
          const pointer = `/paths/${escape(path)}/${method}/requestBody/content/${escape(type)}/schema`
          expectValid(ajv, pointer, media.example, `${method} ${path}`)
        }
      }
    }
    expect(examples).toBeGreaterThanOrEqual(10)
    // The README's curl walkthrough: each body, its shell variables given values of their kind.
    const requests = readmeRequests()
    expect(requests.map((r) => r.path)).toEqual([
      '/vaults',
      '/did-auth-jwt',
      '/vaults/{vaultID}/wallet',
      '/wallet/configure',
      '/claims/sign',
      '/claims/verify',
    ])
    expect(requests.find((r) => r.path === '/claims/sign')!.body).toMatchObject({ format: 'JWT' })
    for (const { path, body } of requests) {
      expectValid(ajv, `/paths/${escape(path)}/post/requestBody/content/application~1json/schema`, body, `README: POST ${path}`)
    }
    // The case-insensitive fields, as the service takes them.
    const roles = `/paths/${escape('/roles')}/post/requestBody/content/application~1json/schema`
    for (const permissions of [['Read'], ['read', 'WRITE']]) expectValid(ajv, roles, { permissions }, JSON.stringify(permissions))
    expect(ajv.validate(`doc#${roles}`, { permissions: ['Reader'] })).toBe(false)
  })

  it('the router can leave it out', async () => {
    const { default: express } = await import('express')
    const { createRouter } = await import('../../src/http/router.js')
    const router = createRouter(h.service, { openApiRoute: false })
    const app = express().use(router)
    const server = app.listen(0, '127.0.0.1')
    await new Promise((r) => server.once('listening', r))
    const { port } = server.address() as { port: number }
    const res = await fetch(`http://127.0.0.1:${port}/openapi.json`)
    expect(res.status).toBe(404)
    await new Promise((r) => server.close(r))
  })
})

/** Every value of `key` anywhere in `value`. */
function valuesOf(value: unknown, key: string): unknown[] {
  if (Array.isArray(value)) return value.flatMap((v) => valuesOf(v, key))
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).flatMap(([k, v]) => (k === key && typeof v === 'string' ? [v] : valuesOf(v, key)))
}

/** A JSON Pointer token. */
const escape = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1')

/** ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect) holding the document, so a schema is reached by its pointer and its `$ref`s resolve. */
function documentAjv(doc: object): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
  ajv.addSchema({ ...doc, $id: 'doc' })
  return ajv
}

function expectValid(ajv: Ajv2020, pointer: string, value: unknown, what: string): void {
  const validate = ajv.getSchema(`doc#${pointer}`)
  expect(validate, pointer).toBeDefined()
  const valid = validate!(value)
  expect(valid ? [] : validate!.errors, what).toEqual([])
}

/**
 * The request bodies of the README's curl walkthrough (the ```sh block starting with `KEY=`): each `curl … $API/<path> -d <json>`,
 * its path as the document names it and its body with the shell variables given values of their kind.
 */
function readmeRequests(): Array<{ path: string; body: unknown }> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.startsWith('KEY='))!
  const VALUES: Record<string, string> = {
    DID: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72',
    NEXT: 'did:ethr:dev:0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    VC: 'eyJhbGciOiJFUzI1NksifQ.eyJpc3MiOiJkaWQ6ZXRocjpkZXY6MHgxIn0.c2lnbmF0dXJl',
  }
  const requests: Array<{ path: string; body: unknown }> = []
  for (const line of block.replaceAll('\\\n', ' ').split('\n')) {
    const path = /\$API(\/[^\s|)]+)/.exec(line)?.[1]
    const data = /-d '([^']*)'|-d "((?:[^"\\]|\\.)*)"/.exec(line)
    if (path === undefined || data === null) continue
    const text = data[1] ?? data[2].replaceAll('\\"', '"').replace(/\$(\w+)/g, (_m, name: string) => VALUES[name])
    requests.push({ path: path.replace(/\$VAULT_ID/, '{vaultID}'), body: JSON.parse(text) })
  }
  return requests
}

describe('service method types', () => {
  it('no operation takes an `unknown` input', () => {
    type UnknownInputs = { [K in OperationName]: unknown extends OperationInput<(typeof OPERATIONS)[K]> ? K : never }[OperationName]
    expectTypeOf<UnknownInputs>().toBeNever()
    expectTypeOf<Parameters<IdentityService['createVault']>[0]>().toHaveProperty('name')
    expectTypeOf<Parameters<IdentityService['createVaultWallet']>[0]>().toHaveProperty('vaultID')
  })
})

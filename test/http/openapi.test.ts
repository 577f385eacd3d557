/**
 * `GET /openapi.json`: served without auth, a valid OpenAPI 3.1 document (checked by an
 * independent validator), generated from the same operation table the router and the service
 * use — so every route, schema and security requirement is there.
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { OPERATIONS, type IdentityService, type OperationInput, type OperationName } from '../../src/index.js'
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

  it('documents every route of the operation table, aliases included, with its security, schemas and error body', async () => {
    const doc = (await h.request('GET', '/openapi.json', { token: null })).body
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['accessToken', 'baseAuth', 'didAuth'])
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
        if (document) expect(Object.keys(entry.responses['200'].content).sort()).toEqual(['application/vc+jwt', 'application/vc+ld+json'])
        else expect(entry.responses['200'].content['application/json'].schema).toBeDefined()
        // every error status the entry declares, with the error body, and no other
        const declared = Object.keys(op.errors).sort()
        expect(
          Object.keys(entry.responses)
            .filter((status) => status !== '200' && !(document && status === '304'))
            .sort(),
          `${route.method} ${route.path}`,
        ).toEqual(declared)
        for (const status of declared)
          expect(entry.responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' })
        // Every operation reads or writes storage: each may answer 503 SERVICE_UNAVAILABLE.
        expect(entry.responses['503']?.description, `${route.method} ${route.path}`).toMatch(/^SERVICE_UNAVAILABLE/)
        expect(entry.tags).toContain(op.tag)
        if (route.method === 'get') expect(entry.requestBody).toBeUndefined()
        else expect(entry.requestBody.content['application/json'].schema).toBeDefined()
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
    expect(resolve.responses['422'].description).toContain('invalidDidUrl')
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

describe('service method types', () => {
  it('no operation takes an `unknown` input', () => {
    type UnknownInputs = { [K in OperationName]: unknown extends OperationInput<(typeof OPERATIONS)[K]> ? K : never }[OperationName]
    expectTypeOf<UnknownInputs>().toBeNever()
    expectTypeOf<Parameters<IdentityService['createVault']>[0]>().toHaveProperty('name')
    expectTypeOf<Parameters<IdentityService['createVaultWallet']>[0]>().toHaveProperty('vaultID')
  })
})

/**
 * The OpenAPI 3.1 document of the router, generated from the operation contracts with
 * `@asteasolutions/zod-to-openapi`: every route (aliases included) with its request and
 * response schemas, security requirements and error responses.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi'
import { z } from 'zod'
import type { AuthRequirement } from '../auth/context.js'
import { MOUNT, type Contracts, type ErrorResponse, type OperationContract } from '../operations/contract.js'
import { routesOf, type SharedRoute } from '../operations/routes.js'
import { CONTRACTS } from '../service/contracts.js'
import { errorBody, oauthErrorBody } from '../operations/schemas.js'
import packageJson from '../../package.json' with { type: 'json' }

type Contract = OperationContract<z.ZodObject, z.ZodType, z.ZodType>

const SECURITY: Record<AuthRequirement, RouteConfig['security']> = {
  tenant: [{ baseAuth: [] }],
  'tenant+did': [{ baseAuth: [], didAuth: [] }],
  access: [{ accessToken: [] }],
  public: undefined,
  'oid4vci-access': [{ oid4vciAccessToken: [] }],
}

/**
 * An error status of a contract: the spec's error body (the OAuth one under `errorFormat: 'oauth'`), or the body and
 * media types it declares.
 */
const errorResponse = (declared: string | ErrorResponse, contract: Contract) =>
  typeof declared === 'string'
    ? { description: declared, content: { 'application/json': { schema: contract.errorFormat === 'oauth' ? oauthErrorBody : errorBody } } }
    : {
        description: declared.description,
        content: Object.fromEntries((declared.mediaTypes ?? ['application/json']).map((type) => [type, { schema: declared.schema }])),
      }

/** In the path of a root route: the path of the service's `publicUrl`. */
const MOUNT_PARAMETER = z.string().meta({
  description: 'The path of the service’s `publicUrl` (`/identity` for `https://issuer.example/identity`; empty at a host root)',
})

const ROOT_NOTE =
  'Served from the host root (`createWellKnownRouter`; `didvault serve` mounts it), not under the path the other routes are mounted at.'

/** `/vaults/:vaultID/wallet` → `/vaults/{vaultID}/wallet`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')

/** Builds the document (paths relative to where the router is mounted; root routes from the host root). */
export function openApiDocument(): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  return openApiDocumentOf(CONTRACTS)
}

/** @internal The document of the routes of `contracts` (the table, or in tests the table and operations of their own). */
export function openApiDocumentOf(contracts: Contracts): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry()
  registry.registerComponent('securitySchemes', 'baseAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'Base Auth Token: an API key of a tenant (`Authorization: Bearer <key>`; a bare key is accepted too). Create keys ' +
      'with `didvault keys create`.',
  })
  registry.registerComponent('securitySchemes', 'didAuth', {
    type: 'apiKey',
    in: 'header',
    name: 'x-did-auth',
    description:
      'DID Auth Token: the `jwt` of `POST /did-auth-jwt` (or any ES256K/ES256K-R, ES256 or EdDSA JWT signed by a key controlling its ' +
      '`iss` DID, `aud` = the service audience, at most 24 h). Several may be sent comma-separated.',
  })
  registry.registerComponent('securitySchemes', 'accessToken', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'Access Token JWT: a DID-auth JWT sent as `Authorization: Bearer <jwt>`; its `iss` must be a wallet DID held by ' +
      'the service, whose tenant becomes the caller’s.',
  })

  const routes = routesOf(contracts)
  if (routes.some((route) => route.auth === 'oid4vci-access')) {
    registry.registerComponent('securitySchemes', 'oid4vciAccessToken', {
      type: 'http',
      scheme: 'bearer',
      description:
        'An access token of the OID4VCI issuer (its token endpoint), sent as `Authorization: Bearer <token>` or, ' +
        'DPoP-bound (RFC 9449), as `Authorization: DPoP <token>` with a `DPoP` proof header.',
    })
  }
  for (const route of routes) registry.registerPath(pathOf(route, contracts))

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'didvault',
      version: packageJson.version,
      description:
        'Identity vaults, wallets, DIDs, verifiable credentials and DID-auth tokens. Errors are `{ statusCode, ' +
        'errorType, errorMessage }` with the HTTP status equal to `statusCode`, except where a status documents its ' +
        'own body (DID resolution answers W3C resolution results). Durations (`expiresIn`, `validity`) are ' +
        'milliseconds; `exp` is UNIX time in milliseconds.',
    },
  })
  return withDiscriminators(document)
}

/** The OpenAPI description of one route: its operation, or the operations sharing it (`oneOf` with a discriminator). */
function pathOf(route: SharedRoute, table: Contracts): RouteConfig {
  const contracts = route.operations.map((o) => table[o.name] as Contract)
  const [first] = contracts
  const hasBody = route.method !== 'get'
  const request: RouteConfig['request'] = {}
  const root = route.root === true && route.path.includes(MOUNT)
  if (first.params || root) request.params = root ? z.object({ ...first.params?.shape, mount: MOUNT_PARAMETER }) : first.params
  if (!hasBody) request.query = first.input as z.ZodObject
  else {
    const body = bodyOf(route, contracts)
    const types = [...new Set(contracts.flatMap((c) => c.bodyTypes ?? ['application/json']))]
    request.body = { required: true, content: Object.fromEntries(types.map((type) => [type, body])) }
  }
  const responses: RouteConfig['responses'] = first.noContent
    ? { 204: { description: 'Success: no content' } }
    : {
        [first.redirect ? 302 : (first.successStatus ?? 200)]: first.redirect
          ? { description: 'Found: the user agent is sent on to `Location` (no body, `Cache-Control: no-store`)' }
          : first.document
            ? documentResponse(first)
            : first.media
              ? { description: 'Success', content: mediaContent(first) }
              : {
                  description: 'Success',
                  content: { 'application/json': { schema: oneOf([...new Set(contracts.map((c) => c.response))]) } },
                },
      }
  if (first.document) responses[304] = { description: 'Not Modified: `If-None-Match` names the current ETag' }
  if (first.acceptedWhen)
    responses[202] = {
      description: 'Accepted: not issued yet (`transaction_id`, `interval`)',
      content: { 'application/json': { schema: first.response } },
    }
  for (const contract of contracts) {
    for (const [status, declared] of Object.entries(contract.errors)) {
      if (declared !== undefined) responses[status] ??= errorResponse(declared, contract)
    }
  }
  const shared = route.discriminator !== undefined
  const { name, alias } = route.operations[0]
  const summary = shared
    ? contracts.map((c, i) => `${c.summary} (${route.discriminator}: "${route.operations[i].value}")`).join('; ')
    : first.summary
  return {
    method: route.method,
    path: openApiPath(route.path),
    operationId: shared ? operationIdOf(route) : alias === 0 ? name : `${name}Alias${alias}`,
    summary: shared || alias === 0 ? summary : `${summary} (alias of ${canonicalRouteOf(first)})`,
    description:
      [
        shared
          ? contracts.map((c, i) => `**${route.operations[i].value}**: ${c.description ?? c.summary}`).join('\n\n')
          : first.description,
        route.root === true ? ROOT_NOTE : undefined,
      ]
        .filter((text) => text !== undefined)
        .join('\n\n') || undefined,
    tags: [...new Set(contracts.map((c) => c.tag))],
    security: SECURITY[route.auth],
    request,
    responses,
  }
}

/** The 200 of a served document: the body is the document, in each media type its `contentType` may name. */
function documentResponse(contract: Contract): NonNullable<RouteConfig['responses']>[number] {
  const shape = (contract.response as z.ZodObject).shape as Record<string, z.ZodType>
  const types = (shape.contentType as z.ZodEnum).options as string[]
  const content = Object.fromEntries(types.map((type) => [type, { schema: type.endsWith('json') ? z.object({}) : z.string() }]))
  return { description: 'The document, with `ETag` and `Cache-Control: public, max-age=<s>`', content }
}

/** The 200 of an operation declaring its media types: each with its body's schema. */
const mediaContent = (contract: Contract) =>
  Object.fromEntries(Object.entries(contract.media ?? {}).map(([type, media]) => [type, { schema: media.schema ?? contract.response }]))

/** The body of a route: its operation's input, or one member per operation sharing it, each with its discriminator value required. */
function bodyOf(route: SharedRoute, contracts: Contract[]): { schema: z.ZodType; example?: unknown } {
  if (route.discriminator === undefined)
    return { schema: contracts[0].input, ...(contracts[0].example !== undefined && { example: contracts[0].example }) }
  const field = route.discriminator
  const members = contracts.map((c, i) => z.intersection(z.object({ [field]: z.literal(route.operations[i].value!) }), c.input))
  const example =
    contracts[0].example === undefined ? undefined : { [field]: route.operations[0].value, ...(contracts[0].example as object) }
  return { schema: z.union(members).meta({ [DISCRIMINATOR]: field }), ...(example !== undefined && { example }) }
}

const oneOf = (schemas: z.ZodType[]): z.ZodType =>
  schemas.length === 1 ? schemas[0] : z.union(schemas as [z.ZodType, z.ZodType, ...z.ZodType[]])

const canonicalRouteOf = (contract: Contract) => `${contract.routes[0].method.toUpperCase()} ${contract.routes[0].path}`

/** `patch /claims` → `patchClaims`. */
const operationIdOf = (route: SharedRoute) =>
  route.method +
  route.path
    .split('/')
    .filter((part) => part !== '' && !part.startsWith(':'))
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('')

/** A mark left on a shared route's body schema, turned into an OpenAPI discriminator once the document is generated. */
const DISCRIMINATOR = 'x-didvault-discriminator'

type Document = ReturnType<OpenApiGeneratorV31['generateDocument']>

/** Each marked body: `oneOf` (its members exclude each other) with `discriminator: { propertyName }`. */
function withDiscriminators(document: Document): Document {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(
      item as Record<string, { requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> } }>,
    )) {
      const schema = operation?.requestBody?.content?.['application/json']?.schema
      if (!schema || typeof schema[DISCRIMINATOR] !== 'string') continue
      schema.oneOf = schema.anyOf
      delete schema.anyOf
      schema.discriminator = { propertyName: schema[DISCRIMINATOR] }
      delete schema[DISCRIMINATOR]
    }
  }
  return document
}

/**
 * The OpenAPI 3.1 document of the router, generated from the operation contracts with
 * `@asteasolutions/zod-to-openapi`: every route (aliases included) with its request and
 * response schemas, security requirements and error responses.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi'
import { z } from 'zod'
import type { AuthRequirement } from '../auth/context.js'
import type { OperationContract } from '../operations/contract.js'
import { CONTRACTS } from '../service/contracts.js'
import { errorBody } from '../operations/schemas.js'
import packageJson from '../../package.json' with { type: 'json' }

type Contract = OperationContract<z.ZodObject, z.ZodType, z.ZodType>

const SECURITY: Record<AuthRequirement, RouteConfig['security']> = {
  tenant: [{ baseAuth: [] }],
  'tenant+did': [{ baseAuth: [], didAuth: [] }],
  access: [{ accessToken: [] }],
}

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: errorBody } } })

/** `/vaults/:vaultID/wallet` → `/vaults/{vaultID}/wallet`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')

/** Builds the document (paths relative to where the router is mounted). */
export function openApiDocument(): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry()
  registry.registerComponent('securitySchemes', 'baseAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'Base Auth Token: an API key of a tenant (`Authorization: Bearer <key>`; a bare key is accepted too). Create keys with `didvault keys create`.',
  })
  registry.registerComponent('securitySchemes', 'didAuth', {
    type: 'apiKey',
    in: 'header',
    name: 'x-did-auth',
    description: 'DID Auth Token: the `jwt` of `POST /did-auth-jwt` (or any ES256K/ES256K-R JWT signed by a key controlling its `iss` DID, `aud` = the service audience, at most 24 h). Several may be sent comma-separated.',
  })
  registry.registerComponent('securitySchemes', 'accessToken', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access Token JWT: a DID-auth JWT sent as `Authorization: Bearer <jwt>`; its `iss` must be a wallet DID held by the service, whose tenant becomes the caller’s.',
  })

  for (const [name, op] of Object.entries(CONTRACTS) as Array<[string, Contract]>) {
    op.routes.forEach((route, i) => {
      const hasBody = route.method !== 'get'
      const request: RouteConfig['request'] = {}
      if (op.params) request.params = op.params
      if (hasBody) {
        request.body = { required: true, content: { 'application/json': { schema: op.input, ...(op.example !== undefined && { example: op.example }) } } }
      } else {
        request.query = op.input as z.ZodObject
      }
      const responses: RouteConfig['responses'] = {
        200: { description: 'Success', content: { 'application/json': { schema: op.response } } },
        403: errorResponse('UNAUTHENTICATED: missing or invalid token; FORBIDDEN: authenticated but not allowed'),
        422: errorResponse('VALIDATION_ERROR, NOT_FOUND (unknown to this tenant) or CONFLICT'),
        500: errorResponse('INTERNAL_ERROR (the message carries no detail)'),
      }
      if (name === 'createVaultWallet') responses[409] = errorResponse('VAULT_NOT_INITIALIZED: the MPC vault is not initialized yet')
      if (hasBody) responses[413] = errorResponse('PAYLOAD_TOO_LARGE: the body is over the limit (1 MiB by default)')
      registry.registerPath({
        method: route.method,
        path: openApiPath(route.path),
        operationId: i === 0 ? name : `${name}Alias${i}`,
        summary: i === 0 ? op.summary : `${op.summary} (alias of ${op.routes[0].method.toUpperCase()} ${op.routes[0].path})`,
        description: op.description,
        tags: [tagOf(route.path)],
        security: SECURITY[op.auth],
        request,
        responses,
      })
    })
  }

  registry.registerPath({
    method: 'get',
    path: '/1.0/identifiers/{did}',
    operationId: 'resolveDid',
    summary: 'Resolve a DID',
    description:
      'The DID resolution result (DID documents are public: no auth). The query is the DID URL’s query: `versionId` or `versionTime` (not both) resolve a past version of the document, with `versionId`/`updated` and, when a later one exists, `nextVersionId`/`nextUpdate` in `didDocumentMetadata`. A malformed value is the resolution error `invalidDidUrl` (422), never ignored.',
    tags: ['DIDs'],
    request: {
      params: z.object({ did: z.string() }),
      query: z.object({
        versionId: z
          .string()
          .regex(/^\d+$/)
          .optional()
          .meta({ description: 'The version: an event sequence number of the embedded registry (0 = before any change), a block number on chain. Beyond the latest: `notFound`.' }),
        versionTime: z
          .string()
          .optional()
          .meta({ description: 'The document as it was at this time: ISO 8601 with seconds and an offset, e.g. `2024-05-01T12:00:00Z`. Before the first change: the initial document.', example: '2024-05-01T12:00:00Z' }),
      }),
    },
    responses: {
      200: { description: 'DID resolution result', content: { 'application/json': { schema: z.object({ didDocument: z.record(z.string(), z.unknown()).nullable(), didDocumentMetadata: z.record(z.string(), z.unknown()), didResolutionMetadata: z.record(z.string(), z.unknown()) }) } } },
      422: errorResponse('invalidDid, invalidDidUrl (malformed versionId/versionTime), notFound (also a versionId beyond the latest), unknownNetwork, …'),
    },
  })

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'didvault',
      version: packageJson.version,
      description: 'Identity vaults, wallets, DIDs, verifiable credentials and DID-auth tokens. Errors are always `{ statusCode, errorType, errorMessage }` with the HTTP status equal to `statusCode`. Durations (`expiresIn`, `validity`) are milliseconds; `exp` is UNIX time in milliseconds.',
    },
  })
}

function tagOf(path: string): string {
  if (path.startsWith('/vaults')) return 'Identity vaults'
  if (path.startsWith('/wallet')) return 'Identity wallets'
  if (path.startsWith('/roles')) return 'Roles'
  if (path.startsWith('/claims')) return 'Verifiable credentials'
  return 'DID-auth tokens'
}

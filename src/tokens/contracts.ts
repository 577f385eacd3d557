/**
 * The contracts of the operations on DID-auth tokens (see `operations/contract.ts`): summary,
 * auth, tag, errors, routes, schemas, batch field, example. Browser-safe: schemas and types only.
 */
import { BODY_ERRORS, defineContract } from '../operations/contract.js'
import { didAuthToken, generateToken } from './schemas.js'

const TAG = 'DID-auth tokens'

export const TOKEN_CONTRACTS = {
  /**
   * Generate Token (`POST /did-auth-jwt`): a DID-auth token (JWT and JSON-LD) for a wallet of the caller's tenant; send its `jwt` as
   * `x-did-auth`.
   */
  generateToken: defineContract({
    summary: 'Generate Token',
    description:
      'Issues a DID-auth token for `iss`, a wallet DID of the tenant: a DIDAuthCredential as JWT (ES256K-R) and JSON-LD. ' +
      'Default lifetime 15 minutes, at most 24 hours. Requires a Base Auth Token (a deviation from the spec, which lists ' +
      'none: otherwise anyone could mint tokens for any DID the service holds).',
    auth: 'tenant',
    tag: TAG,
    audit: { action: 'token.generate', target: 'wallet', targetField: 'iss' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/did-auth-jwt' }],
    input: generateToken,
    response: didAuthToken,
    example: { iss: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72', expiresIn: 600_000 },
  }),
}

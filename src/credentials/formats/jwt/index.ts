/** The VC-JWT credential format: a W3C verifiable credential (data model 1.1) in the `vc` claim of a JWT, by did-jwt-vc. */
import { invalid } from '../../../errors.js'
import { CREDENTIALS_STATUS_V1_URL, CREDENTIALS_V1_URL, CREDENTIALS_V2_URL } from '../../../proofs/jsonld/index.js'
import { jsonLdBoundsError } from '../../../proofs/jsonld/bounds.js'
import { decodeJwt } from '../../../proofs/jwt-verifier.js'
import type { CredentialFormat } from '../port.js'
import { assertOneDataModel } from '../w3c-document.js'
import { jwtHash } from './content-hash.js'
import { issueJwtCredential } from './issue.js'
import { parseJwt } from './parse.js'
import { verifyJwtCredential } from './verify.js'

/** The payload of a JWT, or undefined when it does not decode. */
function payloadOf(jwt: string): Record<string, unknown> | undefined {
  try {
    return decodeJwt(jwt).payload
  } catch {
    return undefined
  }
}

export const jwtFormat: CredentialFormat<string> = {
  name: 'JWT',
  member: 'jwt',
  claimDids: true,
  mediaType: 'application/vc+jwt',
  // Data model 1.1, like every VC-JWT of the service, with the status context that defines the list's terms.
  statusListContexts: [CREDENTIALS_STATUS_V1_URL],
  is: (encoded): encoded is string => typeof encoded === 'string',
  // Bounded when parsed: its payload is decoded against `limits.depth` there.
  checkInput: () => undefined,
  parse: async (jwt, limits) => parseJwt(jwt, limits.depth),
  assemble: (jwt) => jwt as string,
  contentHash: jwtHash,
  document(jwt) {
    const vc = payloadOf(jwt)?.vc
    return typeof vc === 'object' && vc !== null && !Array.isArray(vc) ? (vc as Record<string, unknown>) : undefined
  },
  subjects(jwt) {
    const payload = payloadOf(jwt)
    const vc = payload?.vc as { credentialSubject?: { id?: unknown } } | undefined
    return [payload?.sub ?? vc?.credentialSubject?.id].filter((s): s is string => typeof s === 'string')
  },
  assertSigns: () => undefined,
  contextsOf({ claims, named }, field) {
    if (Object.keys(claims).length === 0) throw invalid(`${field}.payload: a JWT credential needs at least one claim about its subject`)
    assertOneDataModel(named, field, invalid)
    if (named.includes(CREDENTIALS_V2_URL))
      throw invalid(`${field}: ${CREDENTIALS_V2_URL} is for JSON-LD credentials (a VC-JWT is data model 1.1, with ${CREDENTIALS_V1_URL})`)
    return named
  },
  checkContent(content, field, limits) {
    // Not JSON-LD to the service: forbidden keys and nesting refused, its size not bounded here.
    const any = Number.MAX_SAFE_INTEGER
    const bounds = { maxNodes: any, maxArrayLength: any, maxStringLength: any, maxDepth: limits.jsonld.maxDepth }
    const refused = jsonLdBoundsError(content.claims, bounds)
    if (refused !== undefined) throw invalid(`${field}.payload: ${refused.message}`)
  },
  issue: (content, signer, options = {}) => issueJwtCredential(content, signer, { resolver: options.resolver }),
  verify: verifyJwtCredential,
}

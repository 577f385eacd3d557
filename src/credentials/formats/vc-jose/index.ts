/**
 * The VC-JOSE credential format (W3C "Securing Verifiable Credentials using JOSE and COSE"): a VCDM 2.0 credential
 * secured as a compact JWS whose payload is the credential (`typ: vc+jwt`, `cty: vc`, `kid` the issuer's DID URL),
 * carried as `{ jwt }` and told apart from a VC-JWT by its `typ` or by a payload that is a credential (no `vc` claim).
 */
import { invalid } from '../../../errors.js'
import { jsonLdBoundsError } from '../../../proofs/jsonld/bounds.js'
import { CREDENTIALS_V1_URL, CREDENTIALS_V2_URL } from '../../../proofs/jsonld/index.js'
import type { CredentialFormat, FormatLimits } from '../port.js'
import { unsignedCredential } from '../w3c-document.js'
import { decodeJws, VC_TYP } from './decode.js'
import { issueVcJose } from './issue.js'
import { parseVcJose, vcJoseHash } from './parse.js'
import { verifyVcJose } from './verify.js'

/**
 * Whether `encoded` is meant as a VC-JOSE credential: a compact JWS whose header says `typ: vc+jwt`, or whose payload
 * has an `@context` and no `vc` claim (a credential as the payload itself, whatever its header says — parse then names
 * what is wrong with it rather than calling it a VC-JWT without `vc`).
 */
function isVcJose(encoded: unknown): encoded is string {
  if (typeof encoded !== 'string') return false
  const decoded = decodeJws(encoded)
  if (decoded === undefined) return false
  return decoded.header.typ === VC_TYP || (decoded.payload['@context'] !== undefined && decoded.payload.vc === undefined)
}

/** Refuses (422 naming `field`) a document over the service's JSON-LD bounds. */
function checkBounds(value: unknown, field: string, limits: FormatLimits): void {
  const refused = jsonLdBoundsError(value, limits.jsonld)
  if (refused !== undefined) throw invalid(`${field}: ${refused.message}`)
}

export const vcJoseFormat: CredentialFormat<string> = {
  name: 'VC-JOSE',
  member: 'jwt',
  claimDids: true,
  mediaType: 'application/vc+jwt',
  statusListContexts: [CREDENTIALS_V2_URL],
  is: isVcJose,
  // Bounded when parsed: its payload is decoded against `limits.depth` there.
  checkInput: () => undefined,
  parse: async (jws, limits) => parseVcJose(jws, limits.depth),
  assemble: (jws) => jws as string,
  contentHash: vcJoseHash,
  document: (jws) => decodeJws(jws)?.payload,
  subjects(jws) {
    const subjects = [decodeJws(jws)?.payload.credentialSubject].flat() as Array<{ id?: unknown } | null | undefined>
    const ids = subjects.map((s) => (typeof s === 'object' && s !== null ? s.id : undefined))
    return ids.every((id) => typeof id === 'string') ? ids : []
  },
  assertSigns: () => undefined,
  contextsOf({ named }, field) {
    if (named.includes(CREDENTIALS_V1_URL))
      throw invalid(`${field}: a VC-JOSE credential is VC Data Model 2.0 (${CREDENTIALS_V2_URL}), not ${CREDENTIALS_V1_URL}`)
    return [CREDENTIALS_V2_URL, ...named.filter((c) => c !== CREDENTIALS_V2_URL)]
  },
  checkContent: (content, field, limits) => checkBounds(unsignedCredential(content), field, limits),
  issue: (content, signer, options = {}) => issueVcJose(content, signer, { resolver: options.resolver }),
  verify: verifyVcJose,
}

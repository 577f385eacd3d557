/**
 * The JSON-LD credential format: a W3C verifiable credential as a JSON-LD document with a proof set of didvault's
 * suites (secp256k1 keys), data model 1.1 or 2.0.
 */
import { invalid } from '../../../errors.js'
import { assertJsonLdSigns, CREDENTIALS_V2_URL } from '../../../proofs/jsonld/index.js'
import { jsonLdBoundsError } from '../../../proofs/jsonld/bounds.js'
import type { CredentialFormat, FormatLimits } from '../port.js'
import { assertOneDataModel, unsignedCredential } from '../w3c-document.js'
import { jsonLdHash } from './content-hash.js'
import { issueJsonLdCredential } from './issue.js'
import { parseJsonLd } from './parse.js'
import { isV2Credential, verifyJsonLdCredential } from './verify.js'

export { isV2Credential }

/** Refuses (422, naming `field` and the bound) JSON over the service's JSON-LD bounds or holding a forbidden key. */
function checkInput(value: unknown, field: string, limits: FormatLimits): void {
  const refused = jsonLdBoundsError(value, limits.jsonld)
  if (refused !== undefined) throw invalid(`${field}: ${refused.message}`)
}

export const jsonLdFormat: CredentialFormat<Record<string, unknown>> = {
  name: 'JSON-LD',
  member: 'jsonld',
  claimDids: true,
  mediaType: 'application/vc+ld+json',
  // Data model 2.0: its context defines the terms of a Bitstring status list.
  statusListContexts: [CREDENTIALS_V2_URL],
  is: (encoded): encoded is Record<string, unknown> => typeof encoded === 'object' && encoded !== null && !Array.isArray(encoded),
  checkInput,
  parse: async (jsonld) => parseJsonLd(jsonld),
  assemble: (jsonld) => jsonld as Record<string, unknown>,
  contentHash: jsonLdHash,
  document: (jsonld) => jsonld,
  subjects(jsonld) {
    const subjects = [jsonld.credentialSubject].flat() as Array<{ id?: unknown } | null>
    const ids = subjects.map((s) => (typeof s === 'object' && s !== null ? s.id : undefined))
    // A subject without a DID is not the holder: the credential is then bound to no one.
    return ids.every((id) => typeof id === 'string') ? ids : []
  },
  assertSigns: assertJsonLdSigns,
  contextsOf({ named, withStatus }, field) {
    // A JSON-LD credential with status that names no context is data model 2.0, whose context defines the status terms.
    const contexts = withStatus && named.length === 0 ? [CREDENTIALS_V2_URL] : named
    assertOneDataModel(contexts, field, invalid)
    if (withStatus && !contexts.includes(CREDENTIALS_V2_URL))
      throw invalid(
        `${field}: a JSON-LD credential with status must be data model 2.0 (its context defines BitstringStatusListEntry): ` +
          `add ${CREDENTIALS_V2_URL} to \`context\`, or name no context`,
      )
    return contexts
  },
  checkContent: (content, field, limits) => checkInput(unsignedCredential(content), field, limits),
  issue: issueJsonLdCredential,
  verify: verifyJsonLdCredential,
}

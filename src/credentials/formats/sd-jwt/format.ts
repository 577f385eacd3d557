/**
 * The SD-JWT VC credential format (`SD-JWT`, draft-ietf-oauth-sd-jwt-vc): the codec of this folder behind the
 * credential-format port. Its claims get no claim DID; they take no contexts, types or Bitstring status entries (the
 * type is `vct`; status is a Token Status List reference, `status.status_list`, allocated by src/status); `cnf.jwk`
 * and `vct` come from {@link SdJwtContent}.
 */
import { invalid } from '../../../errors.js'
import { jsonLdBoundsError } from '../../../proofs/jsonld/bounds.js'
import { decodeJwt } from '../../../proofs/jwt-verifier.js'
import type { CredentialFormat, CredentialVerification, SdJwtContent } from '../port.js'
import { checkSdJwtInput, joinSdJwt, parseSdJwt, sdJwtHash } from './index-fields.js'
import { parseSdJwtVc } from './parse.js'
import { issueSdJwtVc } from './issue.js'
import { keyBindingChecks } from './key-binding.js'
import type { SDJWTVCStatusReference } from '@sd-jwt/sd-jwt-vc'
import { formatPointer } from './pointer.js'
import { presentSdJwtVc } from './present.js'
import { verifySdJwtVc } from './verify.js'
import { withStatus } from '../checks.js'

/** The always-visible payload of an SD-JWT's issuer-signed JWT, or undefined when it does not decode. */
function payloadOf(compact: string): Record<string, unknown> | undefined {
  try {
    return decodeJwt(compact.slice(0, compact.indexOf('~'))).payload
  } catch {
    return undefined
  }
}

const SECONDS = (ms: number) => Math.floor(ms / 1000)

export const sdJwtFormat: CredentialFormat<string> = {
  name: 'SD-JWT',
  member: 'sdjwt',
  claimDids: false,
  mediaType: 'application/dc+sd-jwt',
  // No Bitstring status list is issued in this format (its lists are Token Status Lists: src/status/mechanisms).
  statusListContexts: [],
  is: (encoded): encoded is string => typeof encoded === 'string' && encoded.includes('~'),
  checkInput: (compact, field) => checkSdJwtInput(compact, field),
  async parse(compact, limits, options) {
    const parsed = parseSdJwt(compact, limits.depth)
    // Every disclosure decodes and fits a digest of the credential, none twice (known of one this format just issued).
    if (options?.issued !== true) await parseSdJwtVc(compact)
    return parsed
  },
  assemble: (issuerSigned, disclosures) => joinSdJwt(issuerSigned as string, disclosures),
  contentHash: sdJwtHash,
  document: () => undefined,
  subjects: (compact) => [payloadOf(compact)?.sub].filter((s): s is string => typeof s === 'string'),
  // Every key type of the service signs SD-JWT VCs (EdDSA, ES256, ES256K).
  assertSigns: () => undefined,
  contextsOf({ named }, field) {
    if (named.length > 0) throw invalid(`${field}.context: an SD-JWT VC has no JSON-LD contexts`)
    // Status is a Token Status List reference (`status.status_list`), allocated by src/status: no context.
    return []
  },
  checkContent(content, field, limits) {
    if (content.types.length > 0) throw invalid(`${field}.type: an SD-JWT VC's type is its \`vct\``)
    const any = Number.MAX_SAFE_INTEGER
    const bounds = { maxNodes: any, maxArrayLength: any, maxStringLength: any, maxDepth: limits.jsonld.maxDepth }
    const refused = jsonLdBoundsError(content.claims, bounds)
    if (refused !== undefined) throw invalid(`${field}.payload: ${refused.message}`)
  },
  issue(content, signer, options = {}) {
    const sd: SdJwtContent | undefined = content.sdJwt
    if (sd === undefined) throw new Error('an SD-JWT VC is issued with its sdJwt content')
    return issueSdJwtVc({
      signer,
      issuer: content.issuer,
      resolver: options.resolver,
      vct: sd.vct,
      payload: { ...content.claims, ...(content.subject !== undefined && { sub: content.subject }) },
      // Privacy by default: every top-level claim of the payload, never `sub` (the subject stays visible).
      disclose: sd.disclose ?? Object.keys(content.claims).map((name) => formatPointer([name])),
      decoys: sd.decoys,
      holderJwk: sd.holderJwk,
      // The Token Status List reference src/status allocated (`{ status_list: { idx, uri } }`).
      ...(content.status?.[0] !== undefined && { status: content.status[0] as unknown as SDJWTVCStatusReference }),
      iat: SECONDS(content.issuedAt),
      ...(content.expiresAt !== undefined && { exp: SECONDS(content.expiresAt) }),
    })
  },
  async verify(compact, options): Promise<CredentialVerification> {
    const outcome = await verifySdJwtVc(compact, { resolver: options.resolver, now: options.now, skewSeconds: options.skewSeconds })
    // Its Token Status List reference (`status.status_list`, never disclosable), once every other check passed.
    const credentialStatus = typeof compact === 'string' ? payloadOf(compact)?.status : undefined
    const checks = await withStatus(outcome.checks, { issuer: outcome.issuer ?? '', credentialStatus }, options)
    const failed = checks.find((c) => !c.verified)
    return {
      verified: failed === undefined,
      issuer: outcome.issuer,
      checks,
      ...(failed !== undefined && { error: outcome.error ?? `${failed.check}: ${failed.error ?? 'failed'}` }),
      ...(failed === undefined && outcome.disclosed !== undefined && { disclosed: outcome.disclosed }),
    }
  },
  present: (compact, { disclose, nonce, aud, now, holderSigner }) =>
    presentSdJwtVc(compact, { disclose, nonce, aud, iat: SECONDS(now), holderSigner }),
  keyBindingChecks,
}

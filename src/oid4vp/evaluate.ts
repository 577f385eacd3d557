/**
 * A wallet's `vp_token` judged against its presentation request (OID4VP 1.0 §8.1, §6 DCQL, Appendix B): what the
 * response endpoint stores as the request's outcome. Run after {@link checkVpTokenBounds} (`vp-token-bounds.ts`), inside
 * the response's deadline; nothing here writes.
 *
 * 1. Form (`invalid_request`): an object whose keys are credential query ids of the request's DCQL query, each value a
 *    non-empty array — one presentation unless the query says `multiple` — of presentations of the query's format
 *    (`dc+sd-jwt` and `jwt_vc_json`: a string; `ldp_vc`: an object).
 * 2. Verification (`verification_failed`, with the failed checks): each presentation exactly as
 *    `POST /presentations/verify` verifies it, bound to the request — `dc+sd-jwt`: the KB-JWT's `nonce` and `aud` (the
 *    whole client id); `jwt_vc_json`: the VP-JWT's `nonce` and `aud`; `ldp_vc`: the proof's `challenge` and `domain` —,
 *    its credential's signature and status, and for W3C formats, when the query requires cryptographic holder binding
 *    (its default), the credential's subject being the holder (`holderBinding`). A presentation holds one credential,
 *    of the query's format. `transaction_data` entries are checked in the KB-JWTs of the queries they name.
 * 3. DCQL (`query_not_satisfied`, naming the query and the claim): the verified claims — an SD-JWT VC's disclosed
 *    claims, a W3C credential from its root (a VC-JWT's `vc` claim) — against `meta`, `claims`, `claim_sets` and
 *    `credential_sets`, through the adapter (`ctx.oid4vp.lib.matchVpDcql`).
 *
 * Fulfilled: per credential query, each credential with `claims` = only the claims the query asked for (at their
 * paths); for a query naming no claims, the credential's claims that are not selectively disclosable (SD-JWT) or its
 * whole content (W3C). `unrequested` lists the paths of the SD-JWT claims the wallet disclosed that the query did not
 * ask for: reported, never in `claims`.
 */
import type { Caller } from '../auth/context.js'
import type { CredentialsContext } from '../credentials/context.js'
import { credentialFormatNamed, sdJwtDisclosedPaths } from '../credentials/formats/index.js'
import type { JsonLdDocument } from '../proofs/jsonld/index.js'
import type { PresentationCheck, VerifyPresentationInput, VerifyPresentationResponse } from '../presentations/schemas.js'
import { verifyPresentation } from '../presentations/verify.js'
import type { Oid4vpRuntime } from './module.js'
import type { OutcomeCheck, PresentationOutcome, PresentedCredential } from './outcome-schemas.js'
import type { VpClaimPath, VpDcqlCredential, VpDcqlQuery } from './protocol/index.js'
import { transactionDataCheck, uncoveredTransactionData } from './transaction-data.js'

/** What the evaluation reaches: what `POST /presentations/verify` does, and the running verifier. */
export type EvaluateContext = Pick<CredentialsContext, 'config' | 'jsonld' | 'keys' | 'now' | 'resolvers' | 'status'> & {
  oid4vp: Oid4vpRuntime
}

/** The request a `vp_token` answers. */
export interface EvaluatedRequest {
  /** The request's DCQL query, as validated at creation. */
  dcqlQuery: Record<string, unknown>
  nonce: string
  /** The whole client identifier, prefix included. */
  clientId: string
  transactionData?: string[]
}

/** The DCQL formats the verifier takes, and how each presents. */
const FORMATS = {
  'dc+sd-jwt': { form: 'string', verified: 'SD-JWT' },
  jwt_vc_json: { form: 'string', verified: 'JWT' },
  ldp_vc: { form: 'object', verified: 'JSON-LD' },
} as const
type Format = keyof typeof FORMATS

/** One verified presentation, with what DCQL and the outcome need of it. */
interface Verified {
  dcql: VpDcqlCredential
  presented: Omit<PresentedCredential, 'claims' | 'unrequested'>
  /** SD-JWT: the paths of the selectively disclosed claims (array indices as numbers). */
  disclosedPaths: Array<Array<string | number>>
}

const failed = (error: string, errorDescription: string, checks?: OutcomeCheck[]): PresentationOutcome => ({
  status: 'failed',
  error,
  errorDescription,
  ...(checks !== undefined && { checks }),
})

/**
 * The outcome of `vpToken` (the parsed `vp_token`) for `request`: `fulfilled` with each credential query's verified
 * credentials, or `failed` with why. Never throws for a wallet's input.
 */
export async function evaluateVpToken(
  ctx: EvaluateContext,
  caller: Caller,
  request: EvaluatedRequest,
  vpToken: unknown,
): Promise<PresentationOutcome> {
  const lib = ctx.oid4vp.lib
  const parsed = lib.parseVpDcqlQuery(request.dcqlQuery)
  if (!parsed.ok) throw new Error(`the stored DCQL query does not read: ${parsed.error}`)
  const query = parsed.query
  const form = formError(query, vpToken)
  if (form !== undefined) return failed('invalid_request', form)
  const presentations = vpToken as Record<string, unknown[]>
  const uncovered = uncoveredTransactionData(request.transactionData, Object.keys(presentations))
  if (uncovered !== undefined) return failed('query_not_satisfied', uncovered)

  const verified: Record<string, Verified[]> = {}
  for (const [queryId, items] of Object.entries(presentations)) {
    const credentialQuery = query.credentials.find((c) => c.id === queryId)!
    const format = credentialQuery.format as Format
    verified[queryId] = []
    for (const [index, item] of items.entries()) {
      const where = `credential query '${queryId}', presentation ${index}`
      const input = verifyInputOf(format, item, request, credentialQuery.require_cryptographic_holder_binding !== false)
      const result = await verifyPresentation(ctx, caller, input)
      const checks = checksOf(result)
      const tx = transactionDataCheck(request.transactionData, queryId, format, item)
      if (tx !== undefined) checks.push(tx)
      // The credential's own failed checks first: the presentation's `credential` check only sums them up.
      const bad = checks.filter((c) => !c.verified).sort((a, b) => Number(a.check === 'credential') - Number(b.check === 'credential'))
      if (bad.length > 0) {
        const first = bad[0]
        const of = first.credential === undefined ? '' : ` (credential ${first.credential})`
        const reason = `${first.check}${of}: ${first.error ?? 'failed'}`
        return failed(
          'verification_failed',
          `${where}: ${reason}`,
          bad.map((c) => ({ ...c, query: queryId, presentation: index })),
        )
      }
      if (result.vcs.length !== 1) return failed('invalid_request', `${where}: a presentation holds exactly one credential`)
      if (result.vcs[0].format !== FORMATS[format].verified)
        return failed('invalid_request', `${where}: a ${format} presentation holds a ${result.vcs[0].format} credential`)
      verified[queryId].push(await describe(format, item, result, checks, input.holderBinding === true || format === 'dc+sd-jwt'))
    }
  }

  const dcql = Object.fromEntries(Object.entries(verified).map(([id, list]) => [id, list.map((v) => v.dcql)]))
  const matched = lib.matchVpDcql(query, dcql)
  if (!matched.satisfied) return failed('query_not_satisfied', matched.error)
  const credentials: Record<string, PresentedCredential[]> = {}
  for (const [queryId, matches] of Object.entries(matched.matches)) {
    credentials[queryId] = matches.map((match) => {
      const one = verified[queryId][match.index]
      const asked = matched.asksClaims[queryId]
      const unrequested = one.disclosedPaths.filter((path) => !match.paths.some((wanted) => related(path, wanted)))
      const claims = asked ? match.claims : mandatoryClaims(one.dcql.claims, one.disclosedPaths)
      return { ...one.presented, claims, unrequested }
    })
  }
  return { status: 'fulfilled', credentials }
}

/** Why `vpToken` is not a `vp_token` of `query` (OID4VP §8.1), or undefined. */
function formError(query: VpDcqlQuery, vpToken: unknown): string | undefined {
  if (typeof vpToken !== 'object' || vpToken === null || Array.isArray(vpToken))
    return 'vp_token must be a JSON object of credential query ids to arrays of presentations'
  const entries = Object.entries(vpToken)
  if (entries.length === 0) return 'vp_token presents no credential'
  for (const [queryId, items] of entries) {
    const credentialQuery = query.credentials.find((c) => c.id === queryId)
    if (credentialQuery === undefined) return `vp_token: '${queryId.slice(0, 60)}' is no credential query id of the request`
    if (!Array.isArray(items) || items.length === 0) return `vp_token: '${queryId}' must be a non-empty array of presentations`
    if (credentialQuery.multiple !== true && items.length > 1)
      return `vp_token: credential query '${queryId}' does not allow multiple credentials, and ${items.length} are presented`
    if (!(credentialQuery.format in FORMATS)) return `vp_token: the verifier does not take ${credentialQuery.format} presentations`
    const { form } = FORMATS[credentialQuery.format as Format]
    for (const [i, item] of items.entries()) {
      const ok =
        form === 'string' ? typeof item === 'string' && item !== '' : typeof item === 'object' && item !== null && !Array.isArray(item)
      if (ok) continue
      const shape = form === 'string' ? 'a string' : 'a JSON object'
      return `vp_token: '${queryId}' presentation ${i} must be ${shape} (${credentialQuery.format})`
    }
  }
  return undefined
}

/** The `POST /presentations/verify` input of one presentation, bound to the request. */
function verifyInputOf(format: Format, item: unknown, request: EvaluatedRequest, holderBinding: boolean): VerifyPresentationInput {
  const binding = { nonce: request.nonce, aud: request.clientId }
  if (format === 'dc+sd-jwt') return { presentation: { sdjwt: item as string }, ...binding }
  if (format === 'jwt_vc_json') return { presentation: { jwt: item as string }, ...binding, ...(holderBinding && { holderBinding }) }
  return {
    presentation: { jsonld: item as JsonLdDocument },
    challenge: request.nonce,
    domain: request.clientId,
    ...(holderBinding && { holderBinding }),
  }
}

/** Every named check: the presentation's, then its credentials' (each naming its credential's index). */
function checksOf(result: VerifyPresentationResponse): OutcomeCheck[] {
  const checks: OutcomeCheck[] = result.checks.map((c: PresentationCheck) => ({ ...c }))
  for (const [i, vc] of result.vcs.entries()) for (const c of vc.checks) checks.push({ ...c, credential: i })
  return checks
}

/** A verified presentation as DCQL and the outcome see it. */
async function describe(
  format: Format,
  item: unknown,
  result: VerifyPresentationResponse,
  checks: OutcomeCheck[],
  holderBinding: boolean,
): Promise<Verified> {
  const [vc] = result.vcs
  if (format === 'dc+sd-jwt') {
    const claims = ('disclosed' in vc && vc.disclosed) || {}
    const { paths: disclosedPaths, cnf } = await sdJwtDisclosedPaths(item as string)
    const vct = typeof claims.vct === 'string' ? claims.vct : ''
    const jwk = (cnf as { jwk?: Record<string, unknown> } | undefined)?.jwk
    return {
      dcql: { format, vct, claims, holderBinding },
      presented: { format, issuer: vc.issuer, holder: jwk === undefined ? null : { jwk }, vct, checks },
      disclosedPaths,
    }
  }
  const credential =
    format === 'jwt_vc_json' ? vcOfJwt((vc as { jwt: string }).jwt) : withoutProof((vc as { jsonld: JsonLdDocument }).jsonld)
  const types = [credential.type].flat().filter((t): t is string => typeof t === 'string')
  return {
    dcql: { format, types, claims: credential, holderBinding },
    presented: { format, issuer: vc.issuer, holder: result.holder === null ? null : { did: result.holder }, types, checks },
    disclosedPaths: [],
  }
}

/** The W3C credential a VC-JWT carries (its `vc` claim, as the format reads it). */
const vcOfJwt = (jwt: string): Record<string, unknown> => credentialFormatNamed('JWT').document(jwt) ?? {}

const withoutProof = ({ proof: _proof, ...rest }: JsonLdDocument): Record<string, unknown> => rest

/** Whether disclosed `path` is on the way to a requested claim, or within one (`null` stands for any index). */
function related(path: ReadonlyArray<string | number>, wanted: VpClaimPath): boolean {
  const n = Math.min(path.length, wanted.length)
  for (let i = 0; i < n; i++) {
    const w = wanted[i]
    if (w === null ? typeof path[i] !== 'number' : w !== path[i]) return false
  }
  return true
}

/** The claims without the selectively disclosed ones: what a query naming no claims gets. */
function mandatoryClaims(
  claims: Record<string, unknown>,
  disclosed: ReadonlyArray<ReadonlyArray<string | number>>,
): Record<string, unknown> {
  if (disclosed.length === 0) return claims
  const copy = structuredClone(claims)
  // Deepest first, array elements from the highest index: removing one never moves another still to remove.
  const sorted = [...disclosed].sort((a, b) => b.length - a.length || compareLast(b, a))
  for (const path of sorted) {
    let parent: unknown = copy
    for (const segment of path.slice(0, -1)) parent = (parent as Record<string | number, unknown> | undefined)?.[segment]
    const last = path[path.length - 1]
    if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1)
    else if (parent !== null && typeof parent === 'object') delete (parent as Record<string, unknown>)[last as string]
  }
  return copy
}

const compareLast = (a: ReadonlyArray<string | number>, b: ReadonlyArray<string | number>) => {
  const [x, y] = [a[a.length - 1], b[b.length - 1]]
  return typeof x === 'number' && typeof y === 'number' ? x - y : 0
}

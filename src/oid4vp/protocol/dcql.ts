/**
 * DCQL (OID4VP 1.0 §6) on the `dcql` library: a verifier's query read and validated ({@link parseVpDcqlQuery}), and the
 * verified credentials of a wallet's `vp_token` matched against it ({@link matchVpDcql}) — each credential query's
 * `meta` (`vct_values`, `type_values`), its `claims` and `claim_sets` (values included), holder binding, and the
 * query's `credential_sets`. Pure: what the credentials are and whether they verified is the caller's.
 */
import { DcqlPresentationResult, DcqlQuery } from 'dcql'

/**
 * A DCQL query as validated (the library's parsed form, described here by the members the verifier reads, so that the
 * package's declarations never name the optional `dcql` package).
 */
export interface VpDcqlQuery {
  readonly credentials: ReadonlyArray<
    Readonly<Record<string, unknown>> & {
      readonly id: string
      readonly format: string
      readonly multiple?: boolean
      readonly require_cryptographic_holder_binding?: boolean
    }
  >
  readonly credential_sets?: ReadonlyArray<Readonly<Record<string, unknown>>>
}

/** A claims path pointer (OID4VP §7): object member names, array indices, `null` for every element. */
export type VpClaimPath = Array<string | number | null>

/** The outcome of reading a DCQL query: the query, or why it is not one. */
export type VpDcqlParse = { ok: true; query: VpDcqlQuery } | { ok: false; error: string }

/**
 * Reads `json` as a DCQL query: the shape (`DcqlQuery.parse`), then the rules across it (`DcqlQuery.validate`: unique
 * credential query ids, `credential_sets` and `claim_sets` naming only ids that exist).
 */
export function parseVpDcqlQuery(json: unknown): VpDcqlParse {
  let query: DcqlQuery.Output
  try {
    query = DcqlQuery.parse(json as DcqlQuery.Input)
  } catch (err) {
    return { ok: false, error: `dcql_query: ${issueOf(err)}` }
  }
  try {
    DcqlQuery.validate(query)
  } catch (err) {
    return { ok: false, error: `dcql_query: ${issueOf(err)}` }
  }
  return { ok: true, query }
}

/** A verified credential as DCQL sees it: its format, type, claims and whether its holder proved a key bound to it. */
export type VpDcqlCredential =
  | { format: 'dc+sd-jwt'; vct: string; claims: Record<string, unknown>; holderBinding: boolean }
  | { format: 'jwt_vc_json' | 'ldp_vc'; types: string[]; claims: Record<string, unknown>; holderBinding: boolean }

/** A presented credential that satisfies its credential query. */
export interface VpDcqlMatch {
  /** Its index among the presentations of its credential query. */
  index: number
  /** The claims the query asked for, at their paths (the first claim set it satisfies); `{}` when it names no claims. */
  claims: Record<string, unknown>
  /** The paths of those claims; empty when the query names no claims. */
  paths: VpClaimPath[]
}

/** What {@link matchVpDcql} found. */
export type VpDcqlOutcome =
  { satisfied: true; matches: Record<string, VpDcqlMatch[]>; asksClaims: Record<string, boolean> } | { satisfied: false; error: string }

/**
 * Matches the verified credentials of a `vp_token` (per credential query id, in order) against `query`, through
 * `DcqlPresentationResult.fromDcqlPresentation`: satisfied when every presented credential satisfies its query and
 * the query's `credential_sets` (without them: every credential query) are met. The ids, the arrays being non-empty
 * and `multiple` are the caller's to have checked (the library refuses them too).
 */
export function matchVpDcql(query: VpDcqlQuery, presented: Record<string, VpDcqlCredential[]>): VpDcqlOutcome {
  const record = Object.fromEntries(Object.entries(presented).map(([id, credentials]) => [id, credentials.map(dcqlPresentationOf)]))
  let result: DcqlPresentationResult
  try {
    result = DcqlPresentationResult.fromDcqlPresentation(record as never, { dcqlQuery: query as DcqlQuery.Output })
  } catch (err) {
    return { satisfied: false, error: issueOf(err) }
  }
  for (const [id, match] of Object.entries(result.credential_matches)) {
    const failed = match.failed_credentials?.[0]
    if (failed !== undefined)
      return { satisfied: false, error: `credential query '${id}', presentation ${failed.input_credential_index}: ${reasonOf(failed)}` }
  }
  if (!result.can_be_satisfied) return { satisfied: false, error: unmetOf(query, result) }
  const matches: Record<string, VpDcqlMatch[]> = {}
  const asksClaims: Record<string, boolean> = {}
  for (const [id, match] of Object.entries(result.credential_matches)) {
    const credentialQuery = query.credentials.find((c) => c.id === id)!
    asksClaims[id] = credentialQuery.claims !== undefined
    matches[id] = (match.valid_credentials ?? []).map((valid) => {
      const set = valid.claims.valid_claim_sets[0]
      const claims = (credentialQuery.claims ?? []) as Array<{ path: VpClaimPath }>
      const indexes = set.valid_claim_indexes ?? []
      return {
        index: valid.input_credential_index,
        // As JSON: array elements the path skipped are null (the library leaves them undefined).
        claims: JSON.parse(JSON.stringify(set.output)) as Record<string, unknown>,
        paths: indexes.map((i) => claims[i].path),
      }
    })
  }
  return { satisfied: true, matches, asksClaims }
}

/** The library's presentation record entry of a verified credential. */
function dcqlPresentationOf(credential: VpDcqlCredential): Record<string, unknown> {
  const common = { claims: credential.claims, cryptographic_holder_binding: credential.holderBinding }
  return credential.format === 'dc+sd-jwt'
    ? { credential_format: 'dc+sd-jwt', vct: credential.vct, ...common }
    : { credential_format: credential.format, type: credential.types, ...common }
}

/** Why a credential does not satisfy its query: the first message of its meta, claims or trusted authorities issues. */
function reasonOf(failed: { meta: unknown; claims: unknown; trusted_authorities: unknown }): string {
  for (const part of [failed.meta, failed.claims, failed.trusted_authorities] as Array<{ success?: boolean } & Record<string, unknown>>) {
    if (part?.success !== false) continue
    const message = firstMessage(part)
    if (message !== undefined) return message
  }
  return 'it does not satisfy the credential query'
}

/** Which required credential query or credential set the presentations leave unmet. */
function unmetOf(query: VpDcqlQuery, result: DcqlPresentationResult): string {
  const sets = result.credential_sets
  if (sets !== undefined) {
    const unmet = sets.findIndex((set) => set.required !== false && set.matching_options === undefined)
    if (unmet >= 0) {
      const options = sets[unmet].options.map((o) => `[${o.join(', ')}]`).join(' | ')
      return `credential set ${unmet} is required and none of its options is presented: ${options}`
    }
  }
  const missing = query.credentials.find((c) => result.credential_matches[c.id]?.success !== true)
  return missing !== undefined
    ? `credential query '${missing.id}' is required and not presented`
    : 'the presentations do not satisfy the query'
}

/** The first string found in a library result's `issues` (flattened valibot issues), depth first. */
function firstMessage(value: unknown, depth = 0): string | undefined {
  if (depth > 12 || value === null || typeof value !== 'object') return undefined
  const issues = (value as { issues?: unknown }).issues
  const search = issues !== undefined ? [issues] : Object.values(value)
  for (const item of search) {
    if (typeof item === 'string') return item
    if (Array.isArray(item)) {
      const text = item.find((i): i is string => typeof i === 'string')
      if (text !== undefined) return text
    }
    const found = firstMessage(item, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

/** A library error as one line: a valibot issue with its path, or the error's message. */
function issueOf(err: unknown): string {
  const issues = (err as { issues?: Array<{ message?: string; path?: Array<{ key?: unknown }> }> }).issues
  if (Array.isArray(issues) && issues.length > 0) {
    const [issue] = issues
    const path = (issue.path ?? []).map((p) => String(p.key)).join('.')
    return `${path === '' ? '' : `${path}: `}${issue.message ?? 'invalid'}`.slice(0, 500)
  }
  return (err instanceof Error ? err.message : String(err)).slice(0, 500)
}

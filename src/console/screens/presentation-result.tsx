/**
 * The result of a presentation request as the OpenID screen shows it while it is read again: pending; fulfilled, with
 * each presented credential (format, issuer, type, holder, the disclosed claims the query asked for, what the wallet
 * disclosed unasked) and its named checks; or failed, with the error (the wallet's own, such as `access_denied`, or the
 * verifier's) and the checks that failed. Only what the result holds is shown: never a disclosure's salt, and of the
 * holder's key only its type.
 */
import { Checks, type NamedCheck } from '../ui/checks.js'

/** A named check of the result. */
export interface ResultCheck extends NamedCheck {
  credential?: number
}

/** One presented credential of a fulfilled result. */
export interface ResultCredential {
  format: string
  issuer: string | null
  holder: { did?: string; jwk?: Record<string, unknown> } | null
  vct?: string
  types?: string[]
  claims: Record<string, unknown>
  unrequested: Array<Array<string | number | null>>
  checks: ResultCheck[]
}

/** A presentation result (Get a presentation result). */
export interface PresentationResultView {
  status: string
  answeredAt?: string
  checks?: ResultCheck[]
  credentials?: Record<string, ResultCredential[]>
  error?: string
  errorDescription?: string
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

/** The holder: its DID, or the type of its key (never the key). */
function holderOf(holder: ResultCredential['holder']): string {
  if (holder?.did !== undefined) return holder.did
  const jwk = holder?.jwk
  if (jwk !== undefined) {
    const type = [jwk.kty, jwk.crv].filter((p): p is string => typeof p === 'string').join(' ')
    return `a key the wallet proved it holds (${type})`
  }
  return '—'
}

/** The claims as leaf paths and values (`address.locality`). */
function leaves(value: unknown, path: string[] = []): Array<[string, string]> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) => leaves(inner, [...path, key]))
  return [[path.join('.'), shown(value)]]
}

/** The presented credential a check of a failed result is about. */
const credentialOf = (c: ResultCheck) => (c.credential !== undefined ? `credential ${c.credential}` : undefined)

function Presented({ query, credential }: { query: string; credential: ResultCredential }) {
  const claims = leaves(credential.claims)
  return (
    <div class="presented" data-query={query}>
      <h4>
        Credential query <code>{query}</code>
      </h4>
      <dl class="facts">
        <dt>Format</dt>
        <dd>{credential.format}</dd>
        <dt>Issuer</dt>
        <dd class="mono">{credential.issuer ?? '—'}</dd>
        <dt>Type</dt>
        <dd class="mono">{credential.vct ?? credential.types?.join(', ') ?? '—'}</dd>
        <dt>Holder</dt>
        <dd class="mono">{holderOf(credential.holder)}</dd>
        <dt>Unrequested disclosures</dt>
        <dd class="unrequested">
          {credential.unrequested.length === 0 ? 'none' : credential.unrequested.map((p) => p.join('.')).join(', ')}
        </dd>
      </dl>
      <table class="claims">
        <caption>Presented claims (verified)</caption>
        <thead>
          <tr>
            <th scope="col">Claim</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {claims.map(([path, value]) => (
            <tr key={path} data-claim={path}>
              <td class="mono">{path}</td>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Checks checks={credential.checks} label={`Checks of ${query}`} />
    </div>
  )
}

/** A presentation request's result, announced politely as it changes. */
export function PresentationResult({ result }: { result: PresentationResultView }) {
  return (
    <div class="result presentation-result" role="status" aria-live="polite" data-status={result.status}>
      <p>
        Result: <strong class={`outcome ${result.status}`}>{result.status}</strong>
        {result.status === 'pending' && ' — waiting for the wallet (read again every 2 s)'}
        {result.answeredAt !== undefined && ` at ${result.answeredAt}`}
      </p>
      {result.error !== undefined && (
        <p class="error presentation-error" data-error={result.error}>
          {result.error}
          {result.errorDescription !== undefined && `: ${result.errorDescription}`}
        </p>
      )}
      {result.checks && <Checks checks={result.checks} label="Checks" about={credentialOf} />}
      {result.credentials &&
        Object.entries(result.credentials).flatMap(([query, credentials]) =>
          credentials.map((credential, i) => <Presented key={`${query}-${i}`} query={query} credential={credential} />),
        )}
    </div>
  )
}

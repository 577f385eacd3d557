/**
 * Audit trail: the tenant's records (Get Audit Records) as a timeline, filtered by actor, action, target, outcome and
 * request id, paged by cursor; the chain's verification by the service (Verify Audit Chain); the records shown
 * exported as JSON lines (a file made in the page, nothing sent anywhere).
 */
import { useEffect, useState } from 'preact/hooks'
import type { ScreenProps } from '../screen.js'
import { AUDIT_ACTIONS, type AuditChainReport, type AuditEntry } from '../../audit/schemas.js'
import './operations.css'

/** Records per page asked of the service. */
export const PAGE_SIZE = 100

interface Filters {
  actor: string
  action: string
  target: string
  outcome: string
  requestId: string
}

const NO_FILTER: Filters = { actor: '', action: '', target: '', outcome: '', requestId: '' }

/** Outcome and request id are filtered in the page (the API filters actor, action and target). */
const shown = (records: AuditEntry[], f: Filters): AuditEntry[] =>
  records.filter((r) => (f.outcome === '' || r.outcome === f.outcome) && (f.requestId === '' || r.requestId.includes(f.requestId.trim())))

const actorOf = (r: AuditEntry): string => [...r.actor.dids, r.actor.apiKeyId, r.actor.system].filter(Boolean).join(', ') || '—'

/** The records as JSON lines, one record a line. */
export const jsonLines = (records: AuditEntry[]): string => records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : '')

function download(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/jsonl' }))
  const link = document.createElement('a')
  link.href = url
  link.download = name
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

function TextFilter({ id, label, value, onInput }: { id: string; label: string; value: string; onInput: (v: string) => void }) {
  return (
    <p class="field">
      <label for={id}>{label}</label>
      <input id={id} type="text" value={value} onInput={(e) => onInput(e.currentTarget.value)} />
    </p>
  )
}

function ChainStatus({ report }: { report: AuditChainReport | undefined }) {
  if (report === undefined) return <p>Chain: not verified yet.</p>
  const broken = report.break
  return (
    <p class={`chain ${report.ok ? 'ok' : 'broken'}`} data-ok={String(report.ok)}>
      Chain: <strong>{report.ok ? 'verified' : 'BROKEN'}</strong>{' '}
      <span class="muted">
        ({report.records} record(s) sound
        {broken !== undefined && `; breaks at #${broken.seq}: ${broken.problem}`}
        {broken?.act !== undefined && ` (${broken.act.action} ${broken.act.targetType} ${broken.act.targetId})`}
        {report.unchained !== undefined && `; ${report.unchained.records} not chained yet, oldest ${report.unchained.oldest}`})
      </span>
    </p>
  )
}

export function AuditScreen(props: ScreenProps) {
  const [filters, setFilters] = useState<Filters>(NO_FILTER)
  const [records, setRecords] = useState<AuditEntry[]>([])
  const [cursor, setCursor] = useState<string | undefined>()
  const [lag, setLag] = useState<number | undefined>()
  const [chain, setChain] = useState<AuditChainReport | undefined>()
  const [busy, setBusy] = useState(false)

  const set = (field: keyof Filters) => (value: string) => setFilters((f) => ({ ...f, [field]: value }))

  const fetchPage = async (from?: string) => {
    setBusy(true)
    try {
      const query = {
        limit: PAGE_SIZE,
        ...(filters.actor.trim() !== '' && { actor: filters.actor.trim() }),
        ...(filters.action !== '' && { action: filters.action as AuditEntry['action'] }),
        ...(filters.target.trim() !== '' && { target: filters.target.trim() }),
        ...(from !== undefined && { cursor: from }),
      }
      const page = await props.client.getAuditRecords(query)
      setRecords((before) => (from === undefined ? page.records : [...before, ...page.records]))
      setCursor(page.nextCursor)
      setLag(page.lag?.records)
    } catch (err) {
      props.report(err)
    } finally {
      setBusy(false)
    }
  }

  const verify = async () => {
    try {
      setChain(await props.client.verifyAuditChain({}))
    } catch (err) {
      props.report(err)
    }
  }

  useEffect(() => {
    void fetchPage()
    void verify()
  }, [])

  const visible = shown(records, filters)
  return (
    <div class="screen audit">
      <ChainStatus report={chain} />
      <p>
        <button type="button" onClick={() => void verify()}>
          Verify chain
        </button>
      </p>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault()
          void fetchPage()
        }}
      >
        <TextFilter id="audit-actor" label="Actor (DID or key id)" value={filters.actor} onInput={set('actor')} />
        <p class="field">
          <label for="audit-action">Action</label>
          <select id="audit-action" value={filters.action} onChange={(e) => set('action')(e.currentTarget.value)}>
            <option value="">any</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </p>
        <TextFilter id="audit-target" label="Target (id or DID)" value={filters.target} onInput={set('target')} />
        <p class="field">
          <label for="audit-outcome">Outcome</label>
          <select id="audit-outcome" value={filters.outcome} onChange={(e) => set('outcome')(e.currentTarget.value)}>
            <option value="">any</option>
            <option value="ok">ok</option>
            <option value="refused">refused</option>
          </select>
        </p>
        <TextFilter id="audit-request" label="Request id" value={filters.requestId} onInput={set('requestId')} />
        <button type="submit" disabled={busy}>
          Apply filters
        </button>{' '}
        <button type="button" onClick={() => download(jsonLines(visible), 'didvault-audit.jsonl')} disabled={visible.length === 0}>
          Export JSON lines ({visible.length})
        </button>
      </form>
      {lag !== undefined && <p class="muted">{lag} record(s) committed but not chained yet: they appear once chained.</p>}
      <ol class="timeline" aria-label="Audit records, oldest first">
        {visible.map((r) => (
          <li key={r.seq} class={`record ${r.outcome}`} data-seq={r.seq} data-action={r.action} data-request-id={r.requestId}>
            <span class="seq">#{r.seq}</span> <time dateTime={r.time}>{r.time}</time> <strong class="action">{r.action}</strong>{' '}
            <span class={`outcome ${r.outcome}`}>{r.outcome}</span>
            {r.error !== undefined && <span class="error"> {r.error}</span>}
            <br />
            <span class="muted">actor</span> <span class="mono actor">{actorOf(r)}</span> <span class="muted">target</span>{' '}
            <span class="mono target">
              {r.target.type} {r.target.id}
              {r.target.role !== undefined && ` (role ${r.target.role})`}
            </span>{' '}
            <span class="muted">request</span> <span class="mono request-id">{r.requestId}</span>
          </li>
        ))}
      </ol>
      {visible.length === 0 && !busy && <p>No record matches.</p>}
      {cursor !== undefined && (
        <button type="button" onClick={() => void fetchPage(cursor)} disabled={busy}>
          Next {PAGE_SIZE} records
        </button>
      )}
      <p role="status" aria-live="polite" class="busy">
        {busy ? 'Loading…' : ''}
      </p>
    </div>
  )
}

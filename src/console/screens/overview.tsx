/**
 * Overview: health, the storage backend, the tenant's counts (Get Overview) and, when `/metrics` is served on this
 * origin, request rate and mean latency over the last minutes as small inline-SVG charts (sampled every 5 s).
 */
import { useEffect, useState } from 'preact/hooks'
import type { DidvaultClient } from '../../client/index.js'
import type { ScreenProps } from '../screen.js'
import { Sparkline } from '../ui/sparkline.js'
import { metricTotals, type MetricTotals } from '../ui/metrics.js'

type Overview = Awaited<ReturnType<DidvaultClient['getOverview']>>

const SAMPLE_MS = 5_000
const KEEP = 24

/** The overview screen. */
export function OverviewScreen({ client, report }: ScreenProps) {
  const [overview, setOverview] = useState<Overview>()
  const [health, setHealth] = useState<string>('checking…')
  const [metrics, setMetrics] = useState<'none' | MetricTotals[]>([])
  useEffect(() => {
    client.getOverview({}).then(setOverview, report)
    fetch('/health/ready').then(
      (r) => setHealth(r.ok ? 'ready' : `not ready (${r.status})`),
      () => setHealth('unreachable'),
    )
    let live = true
    const sample = async () => {
      const res = await fetch('/metrics').catch(() => undefined)
      if (!live) return
      if (!res?.ok) return setMetrics('none')
      const totals = metricTotals(await res.text())
      setMetrics((kept) => (kept === 'none' ? kept : [...kept, totals].slice(-KEEP)))
    }
    void sample()
    const timer = setInterval(() => void sample(), SAMPLE_MS)
    return () => {
      live = false
      clearInterval(timer)
    }
  }, [client, report])
  const counts = overview?.counts
  const rates = metrics === 'none' ? [] : rateSeries(metrics)
  return (
    <>
      <div class="cards">
        <Card label="Health" value={health} />
        <Card label="Storage" value={overview?.storage ?? '…'} />
        <Card label="Vaults" value={counts?.vaults} />
        <Card label="Wallets" value={counts?.wallets} />
        <Card label="Credentials" value={counts?.credentials.total} />
        <Card label="Status lists" value={counts?.statusLists} />
        <Card label="Audit records" value={counts?.auditRecords} />
      </div>
      <h2>Credentials by format</h2>
      {counts && (
        <ul>
          {Object.entries(counts.credentials.byFormat).map(([format, n]) => (
            <li key={format}>
              {format}: {n}
            </li>
          ))}
          {Object.keys(counts.credentials.byFormat).length === 0 && <li class="muted">none stored</li>}
        </ul>
      )}
      <h2>Requests</h2>
      {metrics === 'none' ? (
        <p class="muted">
          /metrics is not served on this origin (off, or on its own port: --metrics-port). Read request rates and latency there, or from
          your Prometheus.
        </p>
      ) : rates.length < 2 ? (
        <p class="muted">Sampling /metrics every 5 s…</p>
      ) : (
        <div class="cards">
          <figure class="card">
            <figcaption>Requests per second</figcaption>
            <Sparkline values={rates.map((r) => r.perSecond)} label="Requests per second, last samples" />
            <span class="value">{rates[rates.length - 1].perSecond.toFixed(2)}</span>
          </figure>
          <figure class="card">
            <figcaption>Mean latency, ms</figcaption>
            <Sparkline values={rates.map((r) => r.meanMs)} label="Mean request latency in milliseconds, last samples" />
            <span class="value">{rates[rates.length - 1].meanMs.toFixed(1)}</span>
          </figure>
        </div>
      )}
    </>
  )
}

function Card({ label, value }: { label: string; value: string | number | undefined }) {
  return (
    <div class="card">
      <div class="muted">{label}</div>
      <div class="value" data-count={label}>
        {value ?? '…'}
      </div>
    </div>
  )
}

/** Per interval between samples: requests per second and mean latency (ms) of the requests of that interval. */
function rateSeries(samples: MetricTotals[]) {
  return samples.slice(1).map((s, i) => {
    const prev = samples[i]
    const requests = s.requests - prev.requests
    const seconds = (s.at - prev.at) / 1000 || 1
    return { perSecond: requests / seconds, meanMs: requests > 0 ? ((s.durationSeconds - prev.durationSeconds) / requests) * 1000 : 0 }
  })
}

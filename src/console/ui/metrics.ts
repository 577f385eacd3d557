/** Totals read from a Prometheus text exposition (`GET /metrics`): requests served and their summed duration. */

export interface MetricTotals {
  /** When sampled, ms since the epoch. */
  at: number
  requests: number
  durationSeconds: number
}

/** The sums over every series of `didvault_http_request_duration_seconds_count` and `_sum`. */
export function metricTotals(text: string, at: number = Date.now()): MetricTotals {
  let requests = 0
  let durationSeconds = 0
  for (const line of text.split('\n')) {
    const match = /^didvault_http_request_duration_seconds_(count|sum)(?:\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line)
    if (!match) continue
    if (match[1] === 'count') requests += Number(match[2])
    else durationSeconds += Number(match[2])
  }
  return { at, requests, durationSeconds }
}

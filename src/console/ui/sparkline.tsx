/** A small line chart as inline SVG (no script, no style attribute: the CSP allows it). */

export interface SparklineProps {
  values: number[]
  /** The chart's accessible name. */
  label: string
}

/** `values` as a polyline scaled to the box. */
export function Sparkline({ values, label }: SparklineProps) {
  const width = 200
  const height = 50
  const max = Math.max(...values, 1e-9)
  const step = values.length > 1 ? width / (values.length - 1) : width
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(height - (v / max) * (height - 4) - 2).toFixed(1)}`).join(' ')
  return (
    <svg class="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      <polyline points={points} />
    </svg>
  )
}

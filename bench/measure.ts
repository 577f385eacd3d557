/** Time-bounded measurement of operations: warm up, then run back to back for a fixed time. */
import { performance } from 'node:perf_hooks'

export interface Measurement {
  ops: number
  opsPerSec: number
  p50Ms: number
  p95Ms: number
}

export interface MeasureOptions {
  warmupMs: number
  durationMs: number
}

/** An operation to measure. Sync functions are not awaited. */
export interface Operation {
  label: string
  fn: () => unknown
}

/** Slice length when two operations are measured alternately. */
const SLICE_MS = 100

/** Nearest-rank percentile of ascending `sorted`. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]
}

const round = (n: number, digits: number) => Number(n.toFixed(digits))

/** Calls `fn` one at a time until `ms` have passed, pushing each call's duration (ms) onto `durations`. */
async function loop(fn: () => unknown, ms: number, durations: number[] = []): Promise<void> {
  const end = performance.now() + ms
  for (let t = performance.now(); t < end; ) {
    const result = fn()
    if (result instanceof Promise) await result
    const after = performance.now()
    durations.push(after - t)
    t = after
  }
}

function summarize(label: string, durations: number[]): Measurement {
  const totalMs = durations.reduce((a, b) => a + b, 0)
  durations.sort((a, b) => a - b)
  const result: Measurement = {
    ops: durations.length,
    opsPerSec: round((durations.length * 1000) / totalMs, 1),
    p50Ms: round(percentile(durations, 0.5), 3),
    p95Ms: round(percentile(durations, 0.95), 3),
  }
  process.stderr.write(`bench: ${label.padEnd(48)} ${String(result.opsPerSec).padStart(9)} ops/s  p50 ${result.p50Ms} ms  p95 ${result.p95Ms} ms\n`)
  return result
}

/** Measures one operation after a warm-up whose results are dropped. */
export async function measure(op: Operation, options: MeasureOptions): Promise<Measurement> {
  await loop(op.fn, options.warmupMs)
  const durations: number[] = []
  await loop(op.fn, options.durationMs, durations)
  return summarize(op.label, durations)
}

/**
 * Measures two operations in alternating short slices, each for `durationMs` in total, so
 * that load changes on the machine affect both alike: the basis for a ratio between them.
 */
export async function measurePair(a: Operation, b: Operation, options: MeasureOptions): Promise<[Measurement, Measurement]> {
  await loop(a.fn, options.warmupMs)
  await loop(b.fn, options.warmupMs)
  const da: number[] = []
  const db: number[] = []
  for (let spent = 0; spent < options.durationMs; spent += SLICE_MS) {
    await loop(a.fn, SLICE_MS, da)
    await loop(b.fn, SLICE_MS, db)
  }
  return [summarize(a.label, da), summarize(b.label, db)]
}

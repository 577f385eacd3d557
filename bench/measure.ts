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
  /** Brings about the condition the operation is measured under, before each of its slices (e.g. background load). */
  enter?: () => Promise<void>
  /** Undoes `enter` after each slice. */
  leave?: () => Promise<void>
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
  for (let t = performance.now(); t < end;) {
    const result = fn()
    if (result instanceof Promise) await result
    const after = performance.now()
    durations.push(after - t)
    t = after
  }
}

/** Summarizes the durations (ms) of `label`'s operations, and prints the summary on stderr. */
export function summarize(label: string, durations: number[]): Measurement {
  const totalMs = durations.reduce((a, b) => a + b, 0)
  durations.sort((a, b) => a - b)
  const result: Measurement = {
    ops: durations.length,
    opsPerSec: round((durations.length * 1000) / totalMs, 1),
    p50Ms: round(percentile(durations, 0.5), 3),
    p95Ms: round(percentile(durations, 0.95), 3),
  }
  process.stderr.write(
    `bench: ${label.padEnd(48)} ${String(result.opsPerSec).padStart(9)} ops/s  p50 ${result.p50Ms} ms  p95 ${result.p95Ms} ms\n`,
  )
  return result
}

/** Measures one operation after a warm-up whose results are dropped. */
export async function measure(op: Operation, options: MeasureOptions): Promise<Measurement> {
  await loop(op.fn, options.warmupMs)
  const durations: number[] = []
  await loop(op.fn, options.durationMs, durations)
  return summarize(op.label, durations)
}

/** Runs `op` for `ms` inside its `enter`/`leave` condition. */
async function slice(op: Operation, ms: number, durations?: number[]): Promise<void> {
  await op.enter?.()
  try {
    await loop(op.fn, ms, durations)
  } finally {
    await op.leave?.()
  }
}

/**
 * Measures two operations in alternating short slices (`sliceMs` each), each for `durationMs`
 * in total, so that load changes on the machine affect both alike: the basis for a ratio
 * between them.
 */
export async function measurePair(
  a: Operation,
  b: Operation,
  options: MeasureOptions,
  sliceMs = SLICE_MS,
): Promise<[Measurement, Measurement]> {
  const [ma, mb] = await measureInterleaved([a, b], options, sliceMs)
  return [ma, mb]
}

/**
 * Measures operations in alternating short slices (`sliceMs` each, in turn), each for `durationMs` in total, after a
 * warm-up of each: the basis for ratios between any two of them.
 */
export async function measureInterleaved(ops: Operation[], options: MeasureOptions, sliceMs = SLICE_MS): Promise<Measurement[]> {
  for (const op of ops) await slice(op, options.warmupMs)
  const durations = ops.map((): number[] => [])
  for (let spent = 0; spent < options.durationMs; spent += sliceMs) {
    for (const [i, op] of ops.entries()) await slice(op, sliceMs, durations[i])
  }
  return ops.map((op, i) => summarize(op.label, durations[i]))
}

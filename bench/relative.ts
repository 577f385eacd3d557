/**
 * The result objects of a bench that measures named operations interleaved and reports each against one of them, its
 * base (the HSM benches, ./pkcs11.ts and ./hsm-master-key.ts): each operation's measurement with its rate ÷ the base's.
 */
import { measureInterleaved, type Measurement, type MeasureOptions, type Operation } from './measure.js'

/** A measurement, and its ops/s ÷ the base operation's measured interleaved with it (3 decimals; the base's own: 1). */
export type Relative = Measurement & { ratio: number }

/** Measures `ops` interleaved (in the order of their keys) and gives each with its rate ÷ `ops[base]`'s. */
export async function measureRelative<K extends string>(
  ops: Record<K, Operation>,
  base: NoInfer<K>,
  options: MeasureOptions,
): Promise<Record<K, Relative>> {
  const names = Object.keys(ops) as K[]
  const measured = await measureInterleaved(
    names.map((name) => ops[name]),
    options,
  )
  const baseRate = measured[names.indexOf(base)].opsPerSec
  return Object.fromEntries(
    names.map((name, i) => [name, { ...measured[i], ratio: Number((measured[i].opsPerSec / baseRate).toFixed(3)) }]),
  ) as Record<K, Relative>
}

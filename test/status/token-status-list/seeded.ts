/** Seeded "random" statuses for the Token Status List tests: the same every run, so a failure names its case. */
import type { StatusListBits } from '../../../src/status/token-status-list/index.js'

/** mulberry32: numbers in [0, 1) from `seed`. */
export function seeded(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** `size` statuses, 0 (VALID) but for `count` random positions holding random non-zero values of `bits` bits. */
export function randomStatuses(size: number, bits: StatusListBits, seed: number, count = 500): Uint8Array {
  const random = seeded(seed)
  const values = new Uint8Array(size)
  for (let n = 0; n < count; n++) values[Math.floor(random() * size)] = 1 + Math.floor(random() * ((1 << bits) - 1))
  return values
}

/** The fields an adapter's `increment` writes along with the counter (`Collection.increment`'s `set`), checked. */
import type { StoredRecord } from './port.js'

/** `set`'s entries: each a value (not `undefined`), none of them `id` or the incremented `field`. */
export function incrementSet<T extends StoredRecord>(field: string, set: Partial<T> | undefined): [string, unknown][] {
  const entries = Object.entries(set ?? {})
  for (const [key, value] of entries) {
    if (key === 'id' || key === field) throw new TypeError(`increment cannot also set "${key}"`)
    if (value === undefined) throw new TypeError(`increment sets values: "${key}" is undefined`)
  }
  return entries
}

/** `increment`'s `atMost`, when given, is a finite number. */
export function assertAtMost(atMost: number | undefined): void {
  if (atMost !== undefined && !Number.isFinite(atMost)) throw new TypeError(`increment's atMost must be a finite number, got ${atMost}`)
}

/** Runtime checks of the JSON scalars a query may compare with (shared by every adapter). */
import type { Scalar } from './port.js'

/** A string, a finite number, a boolean or null. */
export function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
}

export function assertScalar(value: unknown): asserts value is Scalar {
  if (!isScalar(value)) throw new TypeError(`expected a JSON scalar (string, finite number, boolean or null), got ${typeof value}`)
}

export function assertScalars(values: unknown): asserts values is Scalar[] {
  if (!Array.isArray(values)) throw new TypeError('expected an array of JSON scalars')
  values.forEach(assertScalar)
}

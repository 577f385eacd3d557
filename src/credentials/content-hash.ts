/**
 * What content hashes are made of (DESIGN §4 *Store VCs*): SHA-256, and JSON in canonical form (sorted keys).
 * Each format's `contentHash` says what makes two of its credentials the same content.
 */
import { createHash } from 'node:crypto'

/** SHA-256 of a text, hex. */
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

/** JSON with object keys sorted: the same document and proofs give the same text whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

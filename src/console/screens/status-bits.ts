/**
 * The bits List Status Lists answers with `withBits=true`: one bit per index (set: revoked or suspended), most
 * significant bit first, base64url without padding — decoded here for the bitmap.
 */

/** A list's current statuses: which entries are set. */
export interface ListBits {
  /** Entries of the list. */
  size: number
  /** Whether entry `index` is set. */
  isSet(index: number): boolean
  /** The set indexes, ascending, up to `max`. */
  setIndexes(max: number): number[]
}

function base64urlBytes(text: string): Uint8Array {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/')
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4))
  return Uint8Array.from(binary, (c) => c.charCodeAt(0))
}

/** The `bits` of a list of `size` entries. */
export function listBits(bits: string, size: number): ListBits {
  const bytes = base64urlBytes(bits)
  const isSet = (index: number): boolean => index >= 0 && index < size && ((bytes[index >> 3] >> (7 - (index & 7))) & 1) === 1
  const setIndexes = (max: number): number[] => {
    const found: number[] = []
    for (let byte = 0; byte < bytes.length && found.length < max; byte++) {
      if (bytes[byte] === 0) continue
      for (let index = byte * 8; index < Math.min(size, byte * 8 + 8) && found.length < max; index++) if (isSet(index)) found.push(index)
    }
    return found
  }
  return { size, isSet, setIndexes }
}

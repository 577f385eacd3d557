/**
 * The bitstring of a status list, by digitalbazaar's `@digitalbazaar/bitstring`: bits left to
 * right, GZIP, base64url; `encodedList` is that with the multibase prefix `u`.
 */
import { Bitstring } from '@digitalbazaar/bitstring'

/** `encodedList` of a list of `size` entries whose `set` indexes are 1. */
export async function encodeList(size: number, set: Iterable<number>): Promise<string> {
  const bits = new Bitstring({ length: size })
  for (const index of set) bits.set(index, true)
  return `u${await bits.encodeBits()}`
}

/** The bits of an `encodedList` (multibase base64url of GZIP). */
export async function decodeList(encodedList: string): Promise<Bitstring> {
  if (!encodedList.startsWith('u')) throw new Error('encodedList: not multibase base64url (no "u" prefix)')
  return new Bitstring({ buffer: await Bitstring.decodeBits({ encoded: encodedList.slice(1) }) })
}

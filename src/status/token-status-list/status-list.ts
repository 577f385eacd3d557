/**
 * The Status List of draft-ietf-oauth-status-list (§ Compressed Byte Array, § Status List in JSON Format): one status
 * of `bits` bits per Referenced Token, packed into bytes from the least significant bit up, compressed with DEFLATE in
 * the ZLIB format (node:zlib, at its best level, as the draft recommends) and base64url without padding (`lst`).
 *
 * A list read from outside is bounded before it is inflated: `lst` longer than a list of the bound could deflate to is
 * refused unread, and zlib stops inflating at the bound (`maxOutputLength`), so a small deflate bomb costs at most
 * {@link MAX_STATUS_LIST_BYTES} (and one zlib chunk) of work and memory.
 */
import { constants, deflateSync, inflateSync } from 'node:zlib'
import { TokenStatusListRejected } from './rejected.js'
import { isStatusListBits, type StatusListBits } from './status-types.js'

/**
 * The largest list read, in bytes once inflated: 2 MiB, as for Bitstring Status Lists — 16,777,216 entries of 1 bit,
 * 8,388,608 of 2 bits, 2,097,152 of 8 bits (the draft's 2^20-entry test vectors fit at every `bits`).
 */
export const MAX_STATUS_LIST_BYTES = 2 * 1024 * 1024

/**
 * The longest `lst` read for a list of at most `maxBytes` bytes, base64url: what any DEFLATE encoder may make of it at
 * worst (every byte a 9-bit fixed-Huffman literal) and 1 KiB of headers. Longer is refused before it is decoded.
 */
export const maxLstLength = (maxBytes: number): number => Math.ceil((((maxBytes * 9) / 8 + 1024) * 4) / 3)

const BASE64URL = /^[A-Za-z0-9_-]+$/

/**
 * `lst` of the statuses `values` (one per Referenced Token, index order), `bits` bits each: packed least significant
 * bits first, ZLIB/DEFLATE at level 9, base64url without padding.
 * @throws {RangeError} a `bits` the draft does not allow, or a value that does not fit in `bits`
 */
export function encodeStatusList(values: Uint8Array, bits: StatusListBits): string {
  if (!isStatusListBits(bits)) throw new RangeError('bits must be 1, 2, 4 or 8')
  return deflateSync(packStatuses(values, bits), { level: constants.Z_BEST_COMPRESSION }).toString('base64url')
}

/** The byte array of `values`, `bits` bits each, the first in the least significant bits of byte 0. */
function packStatuses(values: Uint8Array, bits: StatusListBits): Uint8Array {
  const limit = 1 << bits
  const perByte = 8 / bits
  const packed = new Uint8Array(Math.ceil(values.length / perByte))
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    if (value === 0) continue
    if (value >= limit) throw new RangeError(`status ${value} at index ${i} does not fit in ${bits} bits`)
    packed[Math.floor(i / perByte)] |= value << ((i % perByte) * bits)
  }
  return packed
}

/** How {@link decodeStatusList} bounds its work. */
export interface DecodeStatusListOptions {
  /** The largest inflated list accepted, bytes (default {@link MAX_STATUS_LIST_BYTES}). */
  maxBytes?: number
}

/**
 * The byte array of a Status List's `lst` (`bits` bits per entry; read entries with {@link statusAt}).
 * @throws {TokenStatusListRejected} `status_list`: `bits` not 1, 2, 4 or 8; `lst` not base64url, longer than a list of
 * `maxBytes` deflates to, not ZLIB/DEFLATE, empty, or inflating past `maxBytes` (zlib stops there)
 */
export function decodeStatusList(lst: unknown, bits: unknown, options: DecodeStatusListOptions = {}): Uint8Array {
  const maxBytes = options.maxBytes ?? MAX_STATUS_LIST_BYTES
  if (!isStatusListBits(bits)) throw new TokenStatusListRejected('status_list', 'bits must be 1, 2, 4 or 8')
  if (typeof lst !== 'string' || !BASE64URL.test(lst)) throw new TokenStatusListRejected('status_list', 'lst must be base64url')
  if (lst.length > maxLstLength(maxBytes))
    throw new TokenStatusListRejected('status_list', `lst is longer than a list of ${maxBytes} bytes`)
  let list: Buffer
  try {
    list = inflateSync(Buffer.from(lst, 'base64url'), { maxOutputLength: maxBytes })
  } catch (err) {
    const tooLarge = (err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE'
    throw new TokenStatusListRejected('status_list', tooLarge ? `lst inflates to more than ${maxBytes} bytes` : 'lst is not ZLIB/DEFLATE', {
      cause: err,
    })
  }
  if (list.length === 0) throw new TokenStatusListRejected('status_list', 'lst holds no status')
  return new Uint8Array(list.buffer, list.byteOffset, list.length)
}

/** The number of entries a byte array of `bits` bits per entry holds. */
export const statusListSize = (list: Uint8Array, bits: StatusListBits): number => (list.length * 8) / bits

/**
 * The status at `idx` of a byte array of `bits` bits per entry.
 * @throws {TokenStatusListRejected} `index`: `idx` not an integer, negative, or past the list (the draft: no statement
 * can be made, the Referenced Token is rejected)
 */
export function statusAt(list: Uint8Array, bits: StatusListBits, idx: number): number {
  if (!Number.isSafeInteger(idx) || idx < 0 || idx >= statusListSize(list, bits))
    throw new TokenStatusListRejected('index', `index is not one of the list's ${statusListSize(list, bits)} entries`)
  const perByte = 8 / bits
  return (list[Math.floor(idx / perByte)] >> ((idx % perByte) * bits)) & ((1 << bits) - 1)
}

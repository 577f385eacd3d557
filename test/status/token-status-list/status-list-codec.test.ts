/**
 * The Status List codec of draft-ietf-oauth-status-list (`src/status/token-status-list/status-list.ts`): the draft's own
 * examples (test/fixtures/token-status-list, SOURCE.md) decode to the statuses the draft states; our lists and those
 * of @sd-jwt/jwt-status-list 0.19.0 (an independent implementation, on pako) read each other's exact statuses at every
 * `bits`; an index past the list and a deflate bomb are refused, the bomb without inflating past the bound.
 */
import { readFileSync } from 'node:fs'
import { constants, deflateRawSync, inflateSync } from 'node:zlib'
import { StatusList } from '@sd-jwt/jwt-status-list'
import { describe, expect, it } from 'vitest'
import {
  MAX_STATUS_LIST_BYTES,
  STATUS_INVALID,
  STATUS_SUSPENDED,
  STATUS_VALID,
  TokenStatusListRejected,
  decodeStatusList,
  encodeStatusList,
  maxLstLength,
  statusAt,
  statusListSize,
  type StatusListBits,
} from '../../../src/status/token-status-list/index.js'
import { randomStatuses, seeded } from './seeded.js'

interface DraftVector {
  name: string
  bits: StatusListBits
  size: number
  lst: string
  statuses: Record<string, number>
  byteArray?: number[]
}

const DRAFT = JSON.parse(readFileSync(new URL('../../fixtures/token-status-list/draft-examples.json', import.meta.url), 'utf8')) as {
  vectors: DraftVector[]
}

/** A list of 131,072 entries, as the lists. */
const SIZE = 131_072

/** The index of the first entry where `read` differs from `expected`, or -1. */
function firstDifference(expected: (i: number) => number, read: (i: number) => number, size: number): number {
  for (let i = 0; i < size; i++) if (read(i) !== expected(i)) return i
  return -1
}

const rejection = (fn: () => unknown): TokenStatusListRejected => {
  try {
    fn()
  } catch (err) {
    if (err instanceof TokenStatusListRejected) return err
    throw err
  }
  throw new Error('not refused')
}

describe('Status Types', () => {
  it('are the values the draft registers', () => {
    expect([STATUS_VALID, STATUS_INVALID, STATUS_SUSPENDED]).toEqual([0x00, 0x01, 0x02])
  })
})

describe("the draft's examples", () => {
  it('are all there', () => {
    expect(DRAFT.vectors.map((v) => [v.bits, v.size])).toEqual([
      [1, 16],
      [2, 12],
      [1, 2 ** 20],
      [2, 2 ** 20],
      [4, 2 ** 20],
      [8, 2 ** 20],
    ])
  })

  for (const vector of DRAFT.vectors) {
    it(`${vector.name}: decodes to the statuses the draft states`, () => {
      const list = decodeStatusList(vector.lst, vector.bits)
      expect(statusListSize(list, vector.bits)).toBe(vector.size)
      if (vector.byteArray) expect([...list]).toEqual(vector.byteArray)
      const stated = (i: number) => vector.statuses[String(i)] ?? STATUS_VALID
      expect(firstDifference(stated, (i) => statusAt(list, vector.bits, i), vector.size)).toBe(-1)
      // and our encoding of the same statuses reads back to them
      const values = new Uint8Array(vector.size)
      for (const [i, v] of Object.entries(vector.statuses)) values[Number(i)] = v
      const ours = decodeStatusList(encodeStatusList(values, vector.bits), vector.bits)
      expect(Buffer.from(ours).equals(Buffer.from(list))).toBe(true)
    })
  }
})

describe('with @sd-jwt/jwt-status-list 0.19.0', () => {
  for (const [n, bits] of ([1, 2, 4, 8] as const).entries()) {
    it(`bits ${bits}: it reads the exact statuses of our lst, and we read its`, () => {
      const values = randomStatuses(SIZE, bits, 31 + n)
      const theirs = StatusList.decompressStatusList(encodeStatusList(values, bits), bits)
      expect(
        firstDifference(
          (i) => values[i],
          (i) => theirs.getStatus(i),
          SIZE,
        ),
      ).toBe(-1)

      const built = new StatusList([...randomStatuses(SIZE, bits, 131 + n)], bits)
      const list = decodeStatusList(built.compressStatusList(), bits)
      expect(statusListSize(list, bits)).toBe(SIZE)
      expect(
        firstDifference(
          (i) => built.getStatus(i),
          (i) => statusAt(list, bits, i),
          SIZE,
        ),
      ).toBe(-1)
    })
  }
})

describe('encoding', () => {
  it('packs least significant bits first (the draft: 0xC9 0x44 0xF9 for its 2-bit example)', () => {
    const values = Uint8Array.from([1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3])
    expect([...inflateSync(Buffer.from(encodeStatusList(values, 2), 'base64url'))]).toEqual([0xc9, 0x44, 0xf9])
  })

  it('deflates at the best level, base64url without padding', () => {
    const lst = encodeStatusList(randomStatuses(SIZE, 1, 7), 1)
    expect(lst).toMatch(/^[A-Za-z0-9_-]+$/)
    // ZLIB header: CM 8, FLEVEL 3 (the best compression)
    expect([...Buffer.from(lst, 'base64url').subarray(0, 2)]).toEqual([0x78, 0xda])
  })

  it('refuses a value that does not fit in bits, and bits the draft does not allow', () => {
    expect(() => encodeStatusList(Uint8Array.from([0, 2]), 1)).toThrow(RangeError)
    expect(() => encodeStatusList(Uint8Array.from([16]), 4)).toThrow(RangeError)
    expect(() => encodeStatusList(Uint8Array.from([0]), 3 as StatusListBits)).toThrow(RangeError)
  })
})

describe('reading', () => {
  const list = decodeStatusList(encodeStatusList(Uint8Array.from([0, 1, 2, 3]), 2), 2)

  it('refuses an index past the list', () => {
    expect(statusListSize(list, 2)).toBe(4)
    expect(statusAt(list, 2, 3)).toBe(3)
    for (const idx of [4, 1_000_000, -1, 1.5, Number.NaN]) expect(rejection(() => statusAt(list, 2, idx)).check).toBe('index')
  })

  it('refuses what is no Status List', () => {
    const refusals = [
      () => decodeStatusList('eNrbuRgAAhcBXQ', 3),
      () => decodeStatusList('eNrbuRgAAhcBXQ=', 1),
      () => decodeStatusList(42, 1),
      () => decodeStatusList('', 1),
      () => decodeStatusList(Buffer.from('not zlib').toString('base64url'), 1),
      () => decodeStatusList(Buffer.from(deflateRawSync(Buffer.alloc(8))).toString('base64url'), 1),
      () => decodeStatusList(encodeStatusList(new Uint8Array(0), 1), 1),
    ]
    for (const refusal of refusals) expect(rejection(refusal).check).toBe('status_list')
  })

  it('refuses an lst longer than any list of the bound before decoding it', () => {
    const err = rejection(() => decodeStatusList('A'.repeat(maxLstLength(1024) + 1), 1, { maxBytes: 1024 }))
    expect(err.check).toBe('status_list')
    expect(err.message).toBe('lst is longer than a list of 1024 bytes')
    // a list of the bound itself, incompressible, is read
    const random = seeded(5)
    const incompressible = Uint8Array.from({ length: 1024 }, () => Math.floor(random() * 256))
    expect(Buffer.from(encodeStatusList(incompressible, 8), 'base64url').length).toBeGreaterThan(1024)
    expect(decodeStatusList(encodeStatusList(incompressible, 8), 8, { maxBytes: 1024 })).toHaveLength(1024)
  })
})

/**
 * A ZLIB stream of `mib` MiB of zeros, about 1 KiB per MiB: one fully flushed DEFLATE segment of 1 MiB of zeros
 * (self-contained, not final) repeated, a final empty block, and the Adler-32 of the zeros.
 */
function zlibBomb(mib: number): Buffer {
  const segment = deflateRawSync(Buffer.alloc(1024 * 1024), { level: 9, finishFlush: constants.Z_FULL_FLUSH })
  const trailer = Buffer.alloc(4)
  trailer.writeUInt32BE(((((mib * 1024 * 1024) % 65_521) << 16) | 1) >>> 0)
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array<Buffer>(mib).fill(segment), Buffer.from([0x03, 0x00]), trailer])
}

describe('a deflate bomb', () => {
  it('is a valid ZLIB stream (a small one inflates to its zeros)', () => {
    const inflated = inflateSync(zlibBomb(3))
    expect(inflated.length).toBe(3 * 1024 * 1024)
    expect(inflated.every((b) => b === 0)).toBe(true)
  })

  it('of 1 GiB is refused: zlib stops at the bound', () => {
    const bomb = zlibBomb(1024).toString('base64url')
    expect(bomb.length).toBeLessThan(maxLstLength(MAX_STATUS_LIST_BYTES))
    const err = rejection(() => decodeStatusList(bomb, 1))
    expect(err.check).toBe('status_list')
    expect(err.message).toBe(`lst inflates to more than ${MAX_STATUS_LIST_BYTES} bytes`)
    // zlib's own refusal, raised while inflating once its output reached maxOutputLength
    expect((err.cause as { code?: string }).code).toBe('ERR_BUFFER_TOO_LARGE')
    // a list just within the bound is read
    expect(decodeStatusList(zlibBomb(2).toString('base64url'), 1)).toHaveLength(MAX_STATUS_LIST_BYTES)
  })
})

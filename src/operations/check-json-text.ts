/**
 * The request checks of `request-bounds.ts` on the JSON text of a body, before `JSON.parse`
 * builds anything of it: one linear scan of the UTF-8 bytes that counts nesting outside strings
 * (refused past `limits.depth` at the first bracket too many) and reads the escapes inside them.
 *
 * Why the text is enough: in JSON text U+0000 and a lone surrogate can only come as an escape
 * (`\u0000`, a `\ud800` not followed by a low `\udc00`…): a raw U+0000 is not valid JSON, and
 * UTF-8 has no surrogates (a decoder turns such bytes into U+FFFD). A multi-byte UTF-8 sequence
 * holds no ASCII byte, so a byte is a bracket, quote or backslash only where the text has one.
 * The scan keeps, per level, the current array index or the offsets of the current key, so a
 * refused string is named by its path without a second walk; keys are decoded only then.
 *
 * An object naming a member twice is refused too (`JSON.parse` would keep the last one silently): each key is decoded
 * and kept in its object's set of keys while the object is open, so memory is linear in the body's length.
 *
 * Exact for valid JSON. What it says of malformed text does not matter: `JSON.parse` refuses it.
 */
import { invalid, type IdentityError } from '../errors.js'
import { duplicateMember, tooDeep, unstorableString } from './request-bounds.js'

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const COMMA = 0x2c
const COLON = 0x3a
const LETTER_U = 0x75

const UTF8 = new TextDecoder()

/** The 422 of a body that is not JSON (the HTTP layer answers the parser's failures with it too). */
export const malformedJson = (): IdentityError => invalid('malformed JSON body')

/**
 * Checks the UTF-8 JSON text `bytes` of a request body: it nests at most `maxDepth` levels of
 * objects and arrays, none of its strings (values or keys) holds U+0000 or a lone
 * surrogate, and no object has two members of one name. Time is linear in its length; memory is a few arrays of
 * `maxDepth` entries and the keys of the open objects.
 * @throws {IdentityError} 422 `VALIDATION_ERROR` naming `limits.depth`, the refused string's path, or the repeated member's
 */
export function checkJsonText(bytes: Uint8Array, maxDepth: number): void {
  new TextScan(bytes, maxDepth).run()
}

class TextScan {
  /** Per level (1 = the body): whether it is an object, whether a key comes next, the array index, the current key's quotes. */
  readonly #isObject: Uint8Array
  readonly #expectsKey: Uint8Array
  readonly #index: Int32Array
  readonly #keyStart: Int32Array
  readonly #keyEnd: Int32Array
  /** Per open object level, the keys it has so far. */
  readonly #keys: Array<Set<string> | undefined>
  /** The next quote and backslash at or after the last position asked for (-1: none left; -2: not looked for yet). */
  #quote = -2
  #backslash = -2

  constructor(
    private readonly bytes: Uint8Array,
    private readonly maxDepth: number,
  ) {
    const levels = maxDepth + 1
    this.#isObject = new Uint8Array(levels)
    this.#expectsKey = new Uint8Array(levels)
    this.#index = new Int32Array(levels)
    this.#keyStart = new Int32Array(levels)
    this.#keyEnd = new Int32Array(levels)
    this.#keys = new Array<Set<string> | undefined>(levels)
  }

  run(): void {
    const { bytes } = this
    let depth = 0
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]
      if (byte === QUOTE) {
        const end = this.#stringEnd(i, depth)
        if (end === -1) return
        if (depth > 0 && this.#isObject[depth] === 1 && this.#expectsKey[depth] === 1) {
          this.#keyStart[depth] = i
          this.#keyEnd[depth] = end
          const key = this.#decode(i, end)
          const keys = this.#keys[depth]!
          if (keys.has(key)) throw duplicateMember(this.#pathTo(depth))
          keys.add(key)
        }
        i = end
      } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
        if (++depth > this.maxDepth) throw tooDeep(this.maxDepth)
        this.#isObject[depth] = byte === OPEN_BRACE ? 1 : 0
        this.#expectsKey[depth] = 1
        this.#index[depth] = 0
        this.#keyStart[depth] = -1
        this.#keys[depth] = byte === OPEN_BRACE ? new Set() : undefined
      } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
        if (depth > 0) this.#keys[depth--] = undefined
      } else if (byte === COMMA) {
        if (depth > 0 && this.#isObject[depth] === 1) this.#expectsKey[depth] = 1
        else if (depth > 0) this.#index[depth]++
      } else if (byte === COLON) {
        if (depth > 0) this.#expectsKey[depth] = 0
      }
    }
  }

  /**
   * The index of the quote closing the string opened at `open` (-1: never closed), reading its
   * escapes on the way.
   * @throws the 422 of the string when an escape makes U+0000 or a lone surrogate
   */
  #stringEnd(open: number, depth: number): number {
    const { bytes } = this
    let at = open + 1
    for (;;) {
      const quote = this.#next(QUOTE, at)
      if (quote === -1) return -1
      const backslash = this.#next(BACKSLASH, at)
      if (backslash === -1 || backslash > quote) return quote
      if (bytes[backslash + 1] !== LETTER_U) {
        at = backslash + 2
        continue
      }
      const unit = hex4(bytes, backslash + 2)
      if (unit === 0 || isLowSurrogate(unit)) throw this.#refused(open, depth)
      if (isHighSurrogate(unit)) {
        const paired = bytes[backslash + 6] === BACKSLASH && bytes[backslash + 7] === LETTER_U && isLowSurrogate(hex4(bytes, backslash + 8))
        if (!paired) throw this.#refused(open, depth)
        at = backslash + 12
      } else at = backslash + 6
    }
  }

  /**
   * The next `byte` at or after `at`. Positions asked for only grow, so each search starts
   * where the last found byte was left behind: all searches together read the text once.
   */
  #next(byte: typeof QUOTE | typeof BACKSLASH, at: number): number {
    if (byte === QUOTE) {
      if (this.#quote !== -1 && this.#quote < at) this.#quote = this.bytes.indexOf(QUOTE, at)
      return this.#quote
    }
    if (this.#backslash !== -1 && this.#backslash < at) this.#backslash = this.bytes.indexOf(BACKSLASH, at)
    return this.#backslash
  }

  /** The 422 of the string opened at `open` at `depth`: its path (a key ends with itself), and what it holds. */
  #refused(open: number, depth: number): IdentityError {
    const text = this.#decode(open, plainStringEnd(this.bytes, open))
    const isKey = depth > 0 && this.#isObject[depth] === 1 && this.#expectsKey[depth] === 1
    return unstorableString(isKey ? [...this.#pathTo(depth - 1), text] : this.#pathTo(depth), text)
  }

  /** The path of the current value at `depth`: per level, its array index or its key. */
  #pathTo(depth: number): Array<string | number> {
    const path: Array<string | number> = []
    for (let level = 1; level <= depth; level++) {
      if (this.#isObject[level] === 0) path.push(this.#index[level])
      else if (this.#keyStart[level] === -1) throw malformedJson()
      else path.push(this.#decode(this.#keyStart[level], this.#keyEnd[level]))
    }
    return path
  }

  /** The string whose quotes are at `open` and `close`, decoded as `JSON.parse` does. */
  #decode(open: number, close: number): string {
    if (close === -1) throw malformedJson()
    try {
      return JSON.parse(UTF8.decode(this.bytes.subarray(open, close + 1))) as string
    } catch {
      throw malformedJson()
    }
  }
}

/** The quote closing the string opened at `open` (-1: none): the first one after an even run of backslashes. */
function plainStringEnd(bytes: Uint8Array, open: number): number {
  for (let at = bytes.indexOf(QUOTE, open + 1); at !== -1; at = bytes.indexOf(QUOTE, at + 1)) {
    let run = 0
    while (bytes[at - 1 - run] === BACKSLASH && at - 1 - run > open) run++
    if (run % 2 === 0) return at
  }
  return -1
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/** The code unit of the 4 hex digits at `at`, or -1 when they are not 4 hex digits. */
function hex4(bytes: Uint8Array, at: number): number {
  let unit = 0
  for (let i = at; i < at + 4; i++) {
    const digit = hexDigit(bytes[i])
    if (digit === -1) return -1
    unit = unit * 16 + digit
  }
  return unit
}

function hexDigit(byte: number | undefined): number {
  if (byte === undefined) return -1
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  const lower = byte | 0x20
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10
  return -1
}

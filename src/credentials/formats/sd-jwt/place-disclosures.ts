/**
 * RFC 9901 §7.1 with none of the library's leniency: every disclosure is placed where exactly one digest of the
 * issuer-signed payload (or of a placed disclosure) names it, and the claims are rebuilt. Refused — where
 * `@sd-jwt/decode` drops or accepts silently — are a disclosure given twice, a disclosure no digest references, a
 * digest that occurs twice, an object disclosure referenced from an array (or the reverse), a disclosed name that is
 * already a claim of its object, and names SD-JWT reserves. Digests without a disclosure (decoys, undisclosed claims)
 * are dropped.
 */
import type { Disclosure } from './library-types.js'
import { MAX_DEPTH } from './limits.js'
import { SD_JWT_NAMES } from './reserved.js'

/** A disclosure and the path (JSON pointer segments, in the rebuilt claims) of the claim it discloses. */
export interface PlacedDisclosure {
  path: string[]
  disclosure: Disclosure
}

/** The claims rebuilt (`_sd` removed, disclosures applied; `_sd_alg` and `cnf` still there) and where each disclosure went. */
export interface PlacedClaims {
  claims: Record<string, unknown>
  placed: PlacedDisclosure[]
}

/** Why an SD-JWT's disclosures do not fit its payload. */
export class DisclosureMismatch extends Error {}

/**
 * Places `disclosures` (their digests computed under the payload's `_sd_alg`) in `payload`.
 * @throws {DisclosureMismatch} naming the first rule broken
 */
export function placeDisclosures(payload: Record<string, unknown>, disclosures: readonly Disclosure[]): PlacedClaims {
  const byDigest = new Map<string, Disclosure>()
  for (const disclosure of disclosures) {
    const digest = disclosure._digest
    if (digest === undefined) throw new DisclosureMismatch('a disclosure has no digest')
    if (byDigest.has(digest)) throw new DisclosureMismatch('a disclosure is given twice')
    checkShape(disclosure)
    byDigest.set(digest, disclosure)
  }
  const walk = new Walk(byDigest)
  const claims = walk.node(payload, [], 0) as Record<string, unknown>
  if (walk.misplaced !== undefined) throw new DisclosureMismatch(walk.misplaced)
  if (walk.placed.length !== byDigest.size) throw new DisclosureMismatch('a disclosure is referenced by no digest of the credential')
  return { claims, placed: walk.placed }
}

/**
 * A disclosure is the base64url of a JSON array `[salt, name, value]` (an object member) or `[salt, value]` (an array
 * element), salt and name strings — read from its encoded form: the library takes any value of length 2 or 3 (the
 * string "abc" included) and drops a fourth element.
 */
function checkShape(disclosure: Disclosure): void {
  const encoded = disclosure.encode()
  let decoded: unknown
  try {
    decoded = BASE64URL.test(encoded) ? JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) : undefined
  } catch {
    decoded = undefined
  }
  if (!Array.isArray(decoded) || (decoded.length !== 2 && decoded.length !== 3) || typeof decoded[0] !== 'string')
    throw new DisclosureMismatch('a disclosure is not [salt, name, value] or [salt, value]')
  if (decoded.length === 3 && typeof decoded[1] !== 'string') throw new DisclosureMismatch('a disclosure names its claim with no string')
}

const BASE64URL = /^[A-Za-z0-9_-]+$/

class Walk {
  readonly placed: PlacedDisclosure[] = []
  /**
   * The first disclosure of the wrong shape for where its digest is (an object member's in an array, an element's in
   * `_sd`): refused once the walk is done, so that a digest also found elsewhere is refused as repeated, the rule it breaks.
   */
  misplaced: string | undefined
  private readonly seen = new Set<string>()

  constructor(private readonly byDigest: ReadonlyMap<string, Disclosure>) {}

  node(value: unknown, path: string[], depth: number): unknown {
    if (typeof value !== 'object' || value === null) return value
    if (depth > MAX_DEPTH) throw new DisclosureMismatch(`claims nested deeper than ${MAX_DEPTH} levels`)
    return Array.isArray(value) ? this.array(value, path, depth) : this.object(value as Record<string, unknown>, path, depth)
  }

  private array(items: unknown[], path: string[], depth: number): unknown[] {
    const out: unknown[] = []
    for (const item of items) {
      const digest = placeholderDigest(item)
      if (digest === undefined) {
        out.push(this.node(item, [...path, String(out.length)], depth + 1))
        continue
      }
      const disclosure = this.take(digest)
      if (disclosure === undefined) continue
      if (disclosure.key !== undefined) {
        this.misplaced ??= 'an object member disclosure is referenced from an array'
        continue
      }
      const at = [...path, String(out.length)]
      this.placed.push({ path: at, disclosure })
      out.push(this.node(disclosure.value, at, depth + 1))
    }
    return out
  }

  private object(object: Record<string, unknown>, path: string[], depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(object)) {
      if (name === '_sd') continue
      if (name === '__proto__') throw new DisclosureMismatch('a claim is named __proto__')
      setOwn(out, name, this.node(value, [...path, name], depth + 1))
    }
    const digests = object._sd
    if (digests === undefined) return out
    if (!Array.isArray(digests) || !digests.every((d) => typeof d === 'string'))
      throw new DisclosureMismatch('_sd is not an array of digests')
    for (const digest of digests) {
      const disclosure = this.take(digest)
      if (disclosure === undefined) continue
      const name = disclosure.key
      if (name === undefined) {
        this.misplaced ??= 'an array element disclosure is referenced from _sd'
        continue
      }
      if (SD_JWT_NAMES.has(name)) throw new DisclosureMismatch(`a disclosure names its claim ${name}, which SD-JWT reserves`)
      if (Object.hasOwn(out, name)) throw new DisclosureMismatch(`a disclosure names the claim ${name.slice(0, 40)}, already in its object`)
      const at = [...path, name]
      this.placed.push({ path: at, disclosure })
      setOwn(out, name, this.node(disclosure.value, at, depth + 1))
    }
    return out
  }

  /** The disclosure of `digest` (undefined: a decoy or an undisclosed claim). @throws {DisclosureMismatch} for a digest seen before */
  private take(digest: string): Disclosure | undefined {
    if (this.seen.has(digest)) throw new DisclosureMismatch('a digest occurs more than once in the credential')
    this.seen.add(digest)
    return this.byDigest.get(digest)
  }
}

/** The digest of an array element `{"...": digest}` (exactly that one member); undefined for any other element. */
function placeholderDigest(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item) || !Object.hasOwn(item, '...')) return undefined
  const keys = Object.keys(item)
  const digest = (item as Record<string, unknown>)['...']
  if (keys.length !== 1 || typeof digest !== 'string')
    throw new DisclosureMismatch('an array element names "..." with other members or no digest')
  return digest
}

/** Sets an own, enumerable member (whatever its name: `constructor`, …) without reaching the prototype. */
function setOwn(object: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true })
}

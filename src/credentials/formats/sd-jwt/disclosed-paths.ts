/**
 * Where each disclosure of a presented SD-JWT goes: the paths (array indices as numbers) of the claims it discloses
 * selectively, placed by the strict rules of `place-disclosures.ts`. What a verifier reports as disclosed beyond what it
 * asked for. Run on a presentation that verified.
 */
import { decodeSdJwt } from './decode.js'
import { placeDisclosures } from './place-disclosures.js'

/** The paths of the selectively disclosed claims of `compact` and its `cnf`, in the order of its disclosures' placing. */
export async function sdJwtDisclosedPaths(compact: string): Promise<{ paths: Array<Array<string | number>>; cnf: unknown }> {
  const decoded = await decodeSdJwt(compact)
  const { claims, placed } = placeDisclosures(decoded.payload, decoded.disclosures)
  return { paths: placed.map((p) => typedPath(claims, p.path)), cnf: decoded.payload.cnf }
}

/** `segments` with the indices of arrays (in `claims`) as numbers. */
function typedPath(claims: unknown, segments: readonly string[]): Array<string | number> {
  const out: Array<string | number> = []
  let at: unknown = claims
  for (const segment of segments) {
    const index = Array.isArray(at) ? Number(segment) : undefined
    out.push(index ?? segment)
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[index ?? segment] : undefined
  }
  return out
}

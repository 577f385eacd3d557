/**
 * The library's disclosure frame of a credential's `disclose` paths, checked against its payload: every path names a
 * claim of the payload (an object member or an array element, at any depth), none names a claim the issuer sets, none
 * is given twice. Default: every top-level payload claim.
 */
import { invalid } from '../../../errors.js'
import { MAX_DECOYS, MAX_DEPTH, MAX_DISCLOSE_PATHS } from './limits.js'
import { formatPointer, isArrayIndex, parsePointer } from './pointer.js'
import type { VcDisclosureFrame } from './library-types.js'
import { ISSUER_CLAIMS, SD_JWT_NAMES } from './reserved.js'

type Frame = Record<string, unknown> & { _sd?: Array<string | number>; _sd_decoy?: number }

/**
 * The disclosure frame of `paths` over `payload` (default: every top-level claim), with `decoys` decoy digests at the
 * top level. @throws {IdentityError} 422 for a path not in the payload, a reserved claim, a repeated path, or more
 * paths or decoys than the bounds ({@link MAX_DISCLOSE_PATHS}, {@link MAX_DECOYS})
 */
export function disclosureFrameOf(payload: Record<string, unknown>, paths: readonly string[] | undefined, decoys = 0): VcDisclosureFrame {
  if (!Number.isSafeInteger(decoys) || decoys < 0 || decoys > MAX_DECOYS) throw invalid(`decoys: an integer from 0 to ${MAX_DECOYS}`)
  if (paths !== undefined && !Array.isArray(paths)) throw invalid('disclose: an array of JSON pointers')
  const chosen: readonly string[] = paths ?? Object.keys(payload)
  if (chosen.length > MAX_DISCLOSE_PATHS) throw invalid(`disclose: at most ${MAX_DISCLOSE_PATHS} paths`)
  const frame: Frame = {}
  const seen = new Set<string>()
  for (const path of chosen) {
    const segments = paths === undefined ? [path] : parsePointer(path)
    const key = segments.join('\u0000')
    if (seen.has(key)) throw invalid(`disclose: ${formatPointer(segments).slice(0, 80)} is given twice`)
    seen.add(key)
    addPath(frame, payload, segments)
  }
  if (decoys > 0) frame._sd_decoy = decoys
  return frame as VcDisclosureFrame
}

/** Marks the claim at `segments` disclosable in `frame`, creating the frames of its parents. */
function addPath(frame: Frame, payload: Record<string, unknown>, segments: string[]): void {
  const shown = () => formatPointer(segments).slice(0, 80)
  if (ISSUER_CLAIMS.has(segments[0]))
    throw invalid(`disclose: ${shown()}: the issuer's claim ${segments[0]} is never selectively disclosable`)
  let node: unknown = payload
  let at = frame
  segments.forEach((segment, depth) => {
    if (SD_JWT_NAMES.has(segment)) throw invalid(`disclose: ${shown()}: ${segment} is a name SD-JWT reserves`)
    const inArray = Array.isArray(node)
    const present = inArray
      ? isArrayIndex(segment, (node as unknown[]).length)
      : typeof node === 'object' && node !== null && Object.hasOwn(node, segment)
    if (!present) throw invalid(`disclose: ${shown()} is not a claim of the payload`)
    node = (node as Record<string, unknown>)[segment]
    if (depth === segments.length - 1) {
      at._sd = [...(at._sd ?? []), inArray ? Number(segment) : segment]
      return
    }
    if (!Object.hasOwn(at, segment)) at[segment] = {}
    at = at[segment] as Frame
  })
}

/**
 * @throws {IdentityError} 422 for a payload claim RFC 9901 reserves (`_sd`, `...`, …) at any depth, or nested deeper
 * than {@link MAX_DEPTH}
 */
export function checkPayloadNames(value: unknown, depth = 0): void {
  if (typeof value !== 'object' || value === null) return
  if (depth > MAX_DEPTH) throw invalid(`payload: nested deeper than ${MAX_DEPTH} levels`)
  if (Array.isArray(value)) return value.forEach((item) => checkPayloadNames(item, depth + 1))
  for (const [name, item] of Object.entries(value)) {
    if (SD_JWT_NAMES.has(name)) throw invalid(`payload: ${name} is a name SD-JWT reserves`)
    checkPayloadNames(item, depth + 1)
  }
}

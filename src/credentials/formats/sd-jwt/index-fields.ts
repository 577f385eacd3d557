/**
 * The index fields of an SD-JWT VC for the format port's `parse`: read from the always-visible claims of its
 * issuer-signed JWT (never from a disclosure), with the content hash of its parts. Nothing is verified, and the
 * disclosures are not decoded here: the format's `parse` also checks, through `parseSdJwtVc`, that they fit the credential.
 */
import { invalid } from '../../../errors.js'
import { checkRequestValue } from '../../../operations/parse.js'
import { decodeJwt } from '../../../proofs/jwt-verifier.js'
import { ids } from '../index-fields.js'
import type { ParsedCredential } from '../port.js'
import { MAX_DISCLOSURES, MAX_SD_JWT_CHARS } from './limits.js'
import { sdJwtVcContentHash } from './parse.js'

const isoOfSeconds = (v: unknown): string | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? new Date(v * 1000).toISOString() : undefined

/** Refuses (422 naming `field`) a compact SD-JWT over the codec's bounds, before anything reads it. */
export function checkSdJwtInput(compact: string, field: string): void {
  if (compact.length > MAX_SD_JWT_CHARS) throw invalid(`${field}: an SD-JWT is at most ${MAX_SD_JWT_CHARS} characters`)
}

/** The issuer-signed JWT and the disclosures of a compact SD-JWT VC (no KB-JWT): 422 otherwise. */
function partsOf(compact: string): { issuerSigned: string; disclosures: string[] } {
  checkSdJwtInput(compact, 'sdjwt')
  const parts = compact.split('~')
  if (parts.length < 2) throw invalid('sdjwt: an SD-JWT VC is <issuer-signed JWT>~<disclosure>~…~')
  if (parts[parts.length - 1] !== '') throw invalid('sdjwt: a credential, not a presentation (it ends with a key binding JWT)')
  if (parts.length - 2 > MAX_DISCLOSURES) throw invalid(`sdjwt: an SD-JWT carries at most ${MAX_DISCLOSURES} disclosures`)
  const disclosures = parts.slice(1, -1)
  if (disclosures.some((d) => d === '')) throw invalid('sdjwt: an SD-JWT has an empty disclosure')
  return { issuerSigned: parts[0], disclosures }
}

/** The content hash of a compact SD-JWT VC (its issuer-signed JWT in canonical form and its sorted disclosures). */
export const sdJwtHash = (compact: string): string => sdJwtVcContentHash(partsOf(compact))

/**
 * The index fields of a compact SD-JWT VC (`iss`, `sub`, `vct` as its type, `iat`/`nbf`, `exp`), its issuer-signed JWT
 * as `encoded` and its disclosures apart (a record seals them).
 */
export function parseSdJwt(compact: string, maxDepth: number): ParsedCredential {
  const parts = partsOf(compact)
  let payload: Record<string, unknown>
  try {
    payload = decodeJwt(parts.issuerSigned).payload
  } catch {
    throw invalid('sdjwt: the issuer-signed JWT does not decode')
  }
  checkRequestValue(payload, maxDepth, 'sdjwt: payload')
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined)
  const issuer = text(payload.iss)
  if (issuer === undefined) throw invalid('sdjwt: no `iss`')
  const vct = text(payload.vct)
  if (vct === undefined) throw invalid('sdjwt: no `vct`')
  const issued = isoOfSeconds(payload.nbf ?? payload.iat)
  const expires = isoOfSeconds(payload.exp)
  return {
    format: 'SD-JWT',
    encoded: parts.issuerSigned,
    disclosures: parts.disclosures,
    ...ids(undefined, issuer, text(payload.sub)),
    types: [vct],
    ...(issued !== undefined && { issuanceDate: issued }),
    ...(expires !== undefined && { expirationDate: expires }),
    hash: sdJwtVcContentHash(parts),
  }
}

/** The compact SD-JWT VC of an issuer-signed JWT and its disclosures (`<jwt>~<disclosure>~…~`). */
export const joinSdJwt = (issuerSigned: string, disclosures: readonly string[]): string => [issuerSigned, ...disclosures, ''].join('~')

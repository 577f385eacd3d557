/** The index fields of a VC-JWT (nothing verified). */
import { invalid } from '../../../errors.js'
import { checkRequestValue } from '../../../operations/parse.js'
import { decodeJwt } from '../../../proofs/jwt-verifier.js'
import { asString, ids, typesOf } from '../index-fields.js'
import type { ParsedCredential } from '../port.js'
import { jwtHash } from './content-hash.js'

const isoOfSeconds = (v: unknown): string | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? new Date(v * 1000).toISOString() : undefined

/** Parses a VC-JWT: it must decode, with a `vc` object. */
export function parseJwt(jwt: string, maxDepth: number): ParsedCredential {
  let payload: Record<string, unknown>
  try {
    payload = decodeJwt(jwt).payload
  } catch {
    throw invalid('jwt: does not decode as a JWT')
  }
  // The request rule, inside the base64url the request check cannot see: every string the record is indexed by comes from here.
  checkRequestValue(payload, maxDepth, 'jwt: payload')
  const vc = payload.vc
  if (vc === null || typeof vc !== 'object' || Array.isArray(vc)) throw invalid('jwt: not a VC-JWT (no `vc` claim)')
  const body = vc as Record<string, unknown>
  const issuer = asString(payload.iss)
  if (issuer === undefined) throw invalid('jwt: no `iss`')
  const subjectClaim = body.credentialSubject as Record<string, unknown> | undefined
  const types = typesOf(body.type)
  if (!types.includes('VerifiableCredential')) throw invalid('jwt: `vc.type` must include VerifiableCredential')
  return {
    format: 'JWT',
    encoded: jwt,
    ...ids(asString(payload.jti) ?? asString(body.id), issuer, asString(payload.sub) ?? asString(subjectClaim?.id)),
    types,
    ...(isoOfSeconds(payload.nbf ?? payload.iat) !== undefined && { issuanceDate: isoOfSeconds(payload.nbf ?? payload.iat) }),
    ...(isoOfSeconds(payload.exp) !== undefined && { expirationDate: isoOfSeconds(payload.exp) }),
    hash: jwtHash(jwt),
  }
}

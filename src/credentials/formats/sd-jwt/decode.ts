/**
 * A compact SD-JWT read within bounds: the issuer-signed JWT (header, payload, signing input, signature), its
 * disclosures with their digests (through `@sd-jwt/core`, under `_sd_alg`), and the KB-JWT when one ends it.
 */
import { SDJwt } from '@sd-jwt/core'
import type { Disclosure } from './library-types.js'
import { decodeJwt, JwtRejected } from '../../../proofs/jwt-verifier.js'
import { SD_ALG, sha256Hasher } from './hashing.js'
import { MAX_DISCLOSURES, MAX_SD_JWT_CHARS } from './limits.js'

/** A compact SD-JWT, decoded. */
export interface DecodedSdJwt {
  header: Record<string, unknown>
  payload: Record<string, unknown>
  /** The JWS signing input (`header.payload`). */
  data: string
  signature: Uint8Array
  disclosures: Disclosure[]
  /** The KB-JWT, when the compact form ends with one. */
  kbJwt?: string
  /** The SD-JWT without its KB-JWT, up to and including its last `~`: what `sd_hash` hashes. */
  presented: string
}

/** Why a compact SD-JWT could not be read; `check` names the failed check (`bounds` or `format`). */
export class UnreadableSdJwt extends Error {
  constructor(
    readonly check: 'bounds' | 'format' | 'sd_alg',
    message: string,
  ) {
    super(message)
  }
}

/** @throws {UnreadableSdJwt} for input past the bounds, that is no compact SD-JWT, or whose `_sd_alg` is not sha-256 */
export async function decodeSdJwt(compact: unknown): Promise<DecodedSdJwt> {
  if (typeof compact !== 'string') throw new UnreadableSdJwt('format', 'an SD-JWT is a string')
  if (compact.length > MAX_SD_JWT_CHARS) throw new UnreadableSdJwt('bounds', `an SD-JWT is at most ${MAX_SD_JWT_CHARS} characters`)
  const parts = compact.split('~')
  if (parts.length < 2) throw new UnreadableSdJwt('format', 'an SD-JWT is <issuer-signed JWT>~<disclosures>~[<KB-JWT>]')
  if (parts.length - 2 > MAX_DISCLOSURES) throw new UnreadableSdJwt('bounds', `an SD-JWT carries at most ${MAX_DISCLOSURES} disclosures`)
  if (parts.slice(1, -1).some((part) => part === '')) throw new UnreadableSdJwt('format', 'an SD-JWT has an empty disclosure')
  // An unsecured JWT (`alg: none`) has an empty signature: read with a placeholder one, so that its `alg` is what is refused.
  const unsigned = parts[0].endsWith('.')
  let jwt
  try {
    jwt = decodeJwt(unsigned ? `${parts[0]}A` : parts[0])
  } catch (err) {
    throw new UnreadableSdJwt('format', err instanceof JwtRejected ? `issuer-signed JWT: ${err.reason}` : 'malformed issuer-signed JWT')
  }
  const sdAlg = (jwt.payload as Record<string, unknown>)._sd_alg
  if (sdAlg !== undefined && sdAlg !== SD_ALG) throw new UnreadableSdJwt('sd_alg', `_sd_alg is not ${SD_ALG}`)
  const kbJwt = parts[parts.length - 1]
  const presented = compact.slice(0, compact.length - kbJwt.length)
  let disclosures: Disclosure[]
  try {
    // The library decodes each disclosure and computes its digest (the KB-JWT is read by key-binding.ts).
    disclosures = (await SDJwt.decodeSDJwt(presented, sha256Hasher)).disclosures
  } catch {
    throw new UnreadableSdJwt('format', 'a disclosure is malformed')
  }
  return {
    header: jwt.header,
    payload: jwt.payload,
    data: jwt.data,
    signature: unsigned ? new Uint8Array(0) : Buffer.from(jwt.signature, 'base64url'),
    disclosures,
    ...(kbJwt !== '' && { kbJwt }),
    presented,
  }
}

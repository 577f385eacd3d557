/**
 * Issuing an SD-JWT VC (draft-ietf-oauth-sd-jwt-vc on RFC 9901) with `@sd-jwt/sd-jwt-vc`, signed through the key port:
 * header `typ: dc+sd-jwt`, `alg` of the key type, `kid` the issuer's verification method; payload the caller's claims
 * with the chosen ones selectively disclosable (salts of 128 random bits), `iss`, `iat`, `nbf`/`exp`, `vct`, `cnf.jwk`,
 * `status`, `_sd_alg: sha-256`.
 */
import { SDJwtVcInstance, type SdJwtVcPayload, type SDJWTVCStatusReference } from '@sd-jwt/sd-jwt-vc'
import type { Resolvable } from 'did-resolver'
import { invalid } from '../../../errors.js'
import type { PublicJwk } from '../../../keys/key-types.js'
import type { KeySigner } from '../../../keys/signer.js'
import { jwtIssuerOf } from '../../../proofs/jwt-signer.js'
import { keyOfJwk } from '../../../keys/public-key-objects.js'
import { SD_JWT_ALGORITHM_OF } from './algorithms.js'
import { checkPayloadNames, disclosureFrameOf } from './disclosure-frame.js'
import { randomSalt, SD_ALG, sha256Hasher } from './hashing.js'
import { sdJwtSigner } from './jws-signer.js'
import { MAX_VCT_CHARS } from './limits.js'
import { ISSUER_CLAIMS } from './reserved.js'

/** The `typ` of the SD-JWT VCs issued here. */
export const SD_JWT_VC_TYP = 'dc+sd-jwt'

/** What {@link issueSdJwtVc} signs. Dates are NumericDate (seconds). */
export interface SdJwtVcIssueInput {
  /** The issuer's key, behind the key port. */
  signer: KeySigner
  /** The issuer's DID (`iss`). */
  issuer: string
  /** The verification method of the issuer's DID that lists the key (default: the one the DID's method names for it). */
  kid?: string
  /** Resolves the issuer's document when `kid` is not given and the method is not derived from the key (did:web). */
  resolver?: Resolvable
  /** The credential type (`vct`), required. */
  vct: string
  /** The claims, except those the issuer sets (`iss`, `iat`, `nbf`, `exp`, `cnf`, `vct`, `status`). */
  payload: Record<string, unknown>
  /** JSON pointers of the claims made selectively disclosable; default every top-level claim of `payload`, `[]` none. */
  disclose?: readonly string[]
  /** Decoy digests added at the top level (at most `MAX_DECOYS`). */
  decoys?: number
  /** The holder's public key (`cnf.jwk`): the key its KB-JWTs must be signed with. */
  holderJwk?: PublicJwk
  iat: number
  nbf?: number
  exp?: number
  /** The status reference (`status.status_list { idx, uri }`). */
  status?: SDJWTVCStatusReference
}

/**
 * The compact SD-JWT VC `<issuer-signed JWT>~<disclosure>~…~`.
 * @throws {IdentityError} 422 (VALIDATION_ERROR) for a missing `vct`, a `disclose` path not in the payload, an issuer
 * claim made disclosable or given in `payload`, a name SD-JWT reserves, more paths or decoys than the bounds, a holder
 * key of another type than didvault's, bad dates, or a key no verification method of `issuer` lists
 */
export async function issueSdJwtVc(input: SdJwtVcIssueInput): Promise<string> {
  const { payload } = input
  if (typeof input.vct !== 'string' || input.vct.length === 0) throw invalid('vct is required for an SD-JWT VC')
  if (input.vct.length > MAX_VCT_CHARS) throw invalid(`vct: at most ${MAX_VCT_CHARS} characters`)
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw invalid('payload: a JSON object')
  const issuerClaim = Object.keys(payload).find((claim) => ISSUER_CLAIMS.has(claim))
  if (issuerClaim !== undefined) throw invalid(`payload: ${issuerClaim} is set by the issuer, not given in the payload`)
  checkPayloadNames(payload)
  checkDates(input)
  const frame = disclosureFrameOf(payload, input.disclose, input.decoys)
  const cnf = input.holderJwk === undefined ? undefined : { jwk: holderKey(input.holderJwk) }

  const alg = SD_JWT_ALGORITHM_OF[input.signer.keyType]
  const kid = input.kid ?? (await jwtIssuerOf(input.issuer, input.signer, { resolver: input.resolver })).kid ?? ethrOwnerKid(input)
  if (kid === undefined) throw invalid(`no verification method of ${input.issuer.slice(0, 100)} lists the issuer's key: give kid`)
  const sdjwt = new SDJwtVcInstance({
    signer: sdJwtSigner(input.signer, alg),
    signAlg: alg,
    hasher: sha256Hasher,
    hashAlg: SD_ALG,
    saltGenerator: randomSalt,
  })
  const claims: SdJwtVcPayload = {
    ...payload,
    iss: input.issuer,
    iat: input.iat,
    ...(input.nbf !== undefined && { nbf: input.nbf }),
    ...(input.exp !== undefined && { exp: input.exp }),
    vct: input.vct,
    ...(cnf !== undefined && { cnf }),
    ...(input.status !== undefined && { status: input.status }),
  }
  return sdjwt.issue(claims, frame, { header: { typ: SD_JWT_VC_TYP, kid } })
}

/**
 * `<did>#controller` for a did:ethr issuer with a secp256k1 key: its document names the current owner by address there
 * (the key that signs for the DID, as the service's signer for it is); undefined for any other issuer.
 */
function ethrOwnerKid({ issuer, signer }: SdJwtVcIssueInput): string | undefined {
  return issuer.startsWith('did:ethr:') && signer.keyType === 'secp256k1' ? `${issuer}#controller` : undefined
}

function checkDates({ iat, nbf, exp }: SdJwtVcIssueInput): void {
  for (const [name, value] of Object.entries({ iat, nbf, exp })) {
    if (value === undefined && name !== 'iat') continue
    if (!Number.isSafeInteger(value) || value! < 0) throw invalid(`${name}: a NumericDate (whole seconds since 1970)`)
  }
  if (exp !== undefined && exp <= iat) throw invalid('exp: after iat')
}

/** The public members of a holder JWK of a key type didvault uses. @throws {IdentityError} 422 otherwise, or for a private key */
function holderKey(jwk: PublicJwk): PublicJwk {
  if (typeof jwk === 'object' && jwk !== null && Object.hasOwn(jwk, 'd'))
    throw invalid('holderJwk: a public key, without its private part (d)')
  const key = keyOfJwk(jwk)
  if (key === undefined) throw invalid('holderJwk: a valid public JWK of a secp256k1, P-256 or Ed25519 key')
  return key.publicJwk
}

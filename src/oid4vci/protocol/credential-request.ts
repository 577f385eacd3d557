/**
 * The credential endpoint's request (OID4VCI 1.0 §8.2): parsed by the library's `parseCredentialRequest`
 * (`credential_configuration_id` or `credential_identifier`, `proofs: { jwt: [...] }`, and draft 15's single `proof`,
 * answered like a one-element `proofs`), each key proof checked by `verifyCredentialRequestJwtProof` (`typ`
 * `openid4vci-proof+jwt`, signature by the header `jwk` or the `kid` DID URL, `aud` = the Credential Issuer, `iss` =
 * the client when the token names one) plus what the library leaves to the server: the `iat` window, the algorithms
 * of the configuration, the binding methods, distinct keys, at most `batch_size` proofs, and a `nonce` in every proof.
 * The nonces come back for the caller to consume (single use); an unknown one is its `invalid_nonce`.
 */
import { Openid4vciIssuer } from '@openid4vc/openid4vci'
import { jwkThumbprint } from '../../keys/thumbprint.js'
import { OAuthError } from '../oauth-error.js'
import { PROOF_ALGORITHMS, publicJwkOf, serverCallbacks, type ResolveKey } from './callbacks.js'
import { iatWithin, type ProofWindow } from './dpop.js'
import { metadataResult, type IssuerMetadata } from './metadata-result.js'
import { parsing } from './request.js'

/** A parsed credential request. */
export interface CredentialRequest {
  /** The configuration asked for (1.0 `credential_configuration_id`). */
  credentialConfigurationId?: string
  /** The credential dataset asked for (1.0 `credential_identifier`, from the token's `authorization_details`). */
  credentialIdentifier?: string
  /** The JWT key proofs, in order (a draft-15 `proof` is one). */
  proofJwts: string[]
  /** Whether the wallet used the draft-15 single `proof`. */
  singleProof: boolean
  /** The request as validated (for the credential response). */
  readonly body: Record<string, unknown>
}

/** A key the holder proved control of. */
export interface HolderKey {
  /** The public key (JWK, public members only). */
  jwk: Record<string, unknown>
  /** Its RFC 7638 thumbprint. */
  jkt: string
  /** The DID, when the proof named the key by a DID URL `kid`. */
  did?: string
  /** The DID URL of the key, when the proof named it by `kid`. */
  kid?: string
}

/** What key proofs are checked against. */
export interface ProofExpectations {
  /** The metadata of the Credential Issuer (`aud`). */
  metadata: IssuerMetadata
  /**
   * The client the access token was issued to (authorization code flow): a proof's `iss`, when it has one, must be it
   * (OID4VCI 1.0 Appendix F.1 makes `iss` optional). Absent (anonymous pre-authorized access): `iss` is not checked.
   */
  clientId?: string
  /** The proof algorithms of the configuration (`proof_signing_alg_values_supported`). */
  allowedAlgs?: readonly string[]
  /** The binding methods of the configuration: `jwk` (header key) and/or `did` (kid DID URL). Default both. */
  bindings?: readonly ('jwk' | 'did')[]
  /** The batch size: most proofs one request may carry (default 1). */
  batchSize?: number
  /**
   * Also accept a key proof without `typ` whose `kid` is a did:jwk DID URL (deployed wallets send them without `typ` and
   * `iat`): checked by signature, `aud`, a required `exp` no further than the `iat` window ahead, `nbf`/`iat` not in the
   * future, and a nonce. Default false.
   */
  acceptUntyped?: boolean
}

/** The holder keys, and the nonces the caller must consume (each once; unknown → `invalid_nonce`). */
export interface VerifiedProofs {
  keys: HolderKey[]
  nonces: string[]
}

/** The credential endpoint's parsing and proof checks. */
export class CredentialRequestHandler {
  private readonly issuer: Openid4vciIssuer
  private readonly callbacks: ReturnType<typeof serverCallbacks>

  constructor(
    private readonly window: ProofWindow,
    private readonly now: () => Date,
    resolveKey?: ResolveKey,
  ) {
    this.callbacks = serverCallbacks(resolveKey)
    this.issuer = new Openid4vciIssuer({ callbacks: this.callbacks })
  }

  /** Parses a credential request; refuses `invalid_credential_request`, `unknown_credential_configuration`, `invalid_proof`. */
  parse(given: Record<string, unknown>, metadata: IssuerMetadata): CredentialRequest {
    const body = normalized(given)
    if (body.proof !== undefined && body.proofs !== undefined) {
      throw new OAuthError('invalid_credential_request', 'a request carries proof or proofs, not both')
    }
    const configurations: object = metadata.credentialIssuer.credential_configurations_supported
    const id = body.credential_configuration_id
    if (typeof id === 'string' && !Object.hasOwn(configurations, id)) {
      throw new OAuthError('unknown_credential_configuration', 'no such credential configuration')
    }
    const parsed = parsing('invalid_credential_request', () =>
      this.issuer.parseCredentialRequest({ issuerMetadata: metadataResult(this.issuer, metadata), credentialRequest: body }),
    )
    if (parsed.credentialConfigurationId === undefined && parsed.credentialIdentifier === undefined) {
      throw new OAuthError('invalid_credential_request', 'credential_configuration_id or credential_identifier is required')
    }
    if (body.proof === undefined && body.proofs === undefined) throw new OAuthError('invalid_proof', 'the request carries no key proof')
    const jwts = parsed.proofs?.jwt
    if (!jwts || jwts.length === 0) throw new OAuthError('invalid_proof', 'only jwt key proofs are supported')
    return {
      credentialConfigurationId: parsed.credentialConfigurationId,
      credentialIdentifier: parsed.credentialIdentifier,
      proofJwts: [...jwts],
      singleProof: body.proof !== undefined,
      body: parsed.credentialRequest,
    }
  }

  /** Verifies each key proof; refuses `invalid_proof` (or `invalid_credential_request` for too many proofs). */
  async verifyProofs(request: CredentialRequest, expect: ProofExpectations): Promise<VerifiedProofs> {
    const batchSize = expect.batchSize ?? 1
    if (request.proofJwts.length > batchSize) {
      throw new OAuthError('invalid_credential_request', `at most ${batchSize} key proofs per request (batch_size)`)
    }
    const allowedAlgs = expect.allowedAlgs ?? PROOF_ALGORITHMS
    const bindings = expect.bindings ?? ['jwk', 'did']
    const issuerMetadata = metadataResult(this.issuer, expect.metadata)
    const now = this.now()
    const keys: HolderKey[] = []
    const nonces = new Set<string>()
    for (const [index, jwt] of request.proofJwts.entries()) {
      const which = request.proofJwts.length > 1 ? `key proof ${index + 1}` : 'the key proof'
      let verified
      const untyped = expect.acceptUntyped === true ? untypedHeader(jwt) : undefined
      try {
        verified =
          untyped !== undefined
            ? await this.verifyUntyped(jwt, untyped, expect.metadata.credentialIssuer.credential_issuer, now)
            : await this.issuer.verifyCredentialRequestJwtProof({ issuerMetadata, jwt, now })
      } catch (err) {
        throw new OAuthError('invalid_proof', `${which} ${err instanceof OAuthError ? err.description : reason(err)}`)
      }
      const { header, payload, signer } = verified
      if (!allowedAlgs.includes(header.alg))
        throw new OAuthError('invalid_proof', `${which} uses an algorithm the configuration does not allow`)
      if (untyped === undefined && !iatWithin(payload.iat, now, this.window))
        throw new OAuthError('invalid_proof', `${which} is stale or from the future (iat)`)
      if (typeof payload.nonce !== 'string' || payload.nonce === '') throw new OAuthError('invalid_proof', `${which} carries no nonce`)
      if (expect.clientId !== undefined && payload.iss !== undefined && payload.iss !== expect.clientId)
        throw new OAuthError('invalid_proof', `${which} is not issued by the client the access token was issued to (iss)`)
      const method = signer.method === 'did' ? 'did' : signer.method === 'jwk' ? 'jwk' : undefined
      if (method === undefined || !bindings.includes(method))
        throw new OAuthError('invalid_proof', `${which} names its key in a way the configuration does not allow`)
      const jwk = publicJwkOf(signer.publicJwk)
      if (!jwk) throw new OAuthError('invalid_proof', `${which} has a key of an unsupported type`)
      const key: HolderKey = { jwk: { ...jwk }, jkt: jwkThumbprint(jwk) }
      if (signer.method === 'did') Object.assign(key, { did: signer.didUrl.split('#')[0], kid: signer.didUrl })
      if (keys.some((k) => k.jkt === key.jkt)) throw new OAuthError('invalid_proof', 'the key proofs must be signed by distinct keys')
      keys.push(key)
      nonces.add(payload.nonce)
    }
    return { keys, nonces: [...nonces] }
  }

  /**
   * An untyped did:jwk key proof (no `typ`, perhaps no `iat`): the signature by the key its `kid` names, `aud` the
   * Credential Issuer, `exp` required and within the `iat` window ahead (the proof is short-lived), `nbf`/`iat` not in
   * the future. Refusals are OAuthErrors whose description completes "the key proof …".
   */
  private async verifyUntyped(
    jwt: string,
    header: UntypedHeader,
    credentialIssuer: string,
    now: Date,
  ): Promise<{ header: UntypedHeader; payload: Record<string, unknown>; signer: { method: 'did'; didUrl: string; publicJwk: unknown } }> {
    const payload = decodePart(jwt.split('.')[1])
    if (payload === undefined) throw new OAuthError('invalid_proof', 'is malformed')
    const signer = { method: 'did' as const, didUrl: header.kid, alg: header.alg }
    const compact = { header, payload, compact: jwt }
    const checked = await this.callbacks.verifyJwt(signer, compact as never)
    if (!checked.verified) throw new OAuthError('invalid_proof', 'does not verify under its key')
    const aud = payload.aud
    if (!(aud === credentialIssuer || (Array.isArray(aud) && aud.includes(credentialIssuer))))
      throw new OAuthError('invalid_proof', 'is for another audience (aud)')
    const seconds = now.getTime() / 1000
    const { exp, nbf, iat } = payload
    if (typeof exp !== 'number' || exp < seconds - this.window.skewSeconds || exp > seconds + this.window.maxAgeSeconds)
      throw new OAuthError('invalid_proof', 'is expired, or lives too long (exp)')
    for (const value of [nbf, iat]) {
      if (value !== undefined && (typeof value !== 'number' || value > seconds + this.window.skewSeconds))
        throw new OAuthError('invalid_proof', 'is not yet valid (nbf, iat)')
    }
    return { header, payload, signer: { method: 'did', didUrl: header.kid, publicJwk: checked.signerJwk } }
  }
}

/** The header of an untyped did:jwk key proof. */
interface UntypedHeader {
  alg: string
  kid: string
}

/** The header of `jwt` when it is an untyped key proof naming a did:jwk key (no `typ`, no `jwk`); undefined otherwise. */
function untypedHeader(jwt: string): UntypedHeader | undefined {
  const header = decodePart(jwt.split('.')[0])
  if (header === undefined || header.typ !== undefined || header.jwk !== undefined) return undefined
  const { alg, kid } = header
  if (typeof alg !== 'string' || typeof kid !== 'string' || !kid.startsWith('did:jwk:')) return undefined
  return { alg, kid }
}

/** A base64url JSON object part of a compact JWS; undefined when it is not one. */
function decodePart(part: string | undefined): Record<string, unknown> | undefined {
  if (part === undefined || part.length > 16_384) return undefined
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/**
 * The request as the library parses it: what deployed wallets add that 1.0 does not define is dropped — `issuer_state`
 * (Sphereon, authorization code flow) and `proofs.proof_type` (digitalbazaar's `{ proof_type: 'jwt', jwt: [...] }`).
 */
function normalized(body: Record<string, unknown>): Record<string, unknown> {
  const { issuer_state: _state, ...rest } = body
  const proofs = rest.proofs
  if (typeof proofs === 'object' && proofs !== null && !Array.isArray(proofs) && 'proof_type' in proofs) {
    const { proof_type: _type, ...others } = proofs as Record<string, unknown>
    return { ...rest, proofs: others }
  }
  return rest
}

/** Which check a key proof failed, without quoting values. */
function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : ''
  if (/\btyp\b|openid4vci-proof\+jwt/.test(message)) return 'is not an openid4vci-proof+jwt'
  if (/'aud'/.test(message)) return 'is for another audience (aud)'
  if (/'iss'/.test(message)) return 'is not issued by the client (iss)'
  if (/'exp'|'nbf'/.test(message)) return 'is expired or not yet valid'
  if (/Both 'jwk' and 'kid'/.test(message)) return 'carries both jwk and kid'
  if (/verifiying|verification/i.test(message)) return 'does not verify under its key'
  return 'is malformed'
}

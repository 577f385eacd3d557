/**
 * Making a request's Request Object from its record: the Authorization Request parameters (OID4VP 1.0 §5.1) and the
 * signer its client identifier prefix names — the tenant's DID key through the key port, the operator's certificate key,
 * or none (`redirect_uri:`). Used at creation and for the one `request_uri_method=post` re-signing.
 */
import { IdentityError, invalid } from '../errors.js'
import { normalizeDid, principalOf } from '../did/methods/ethr/index.js'
import { jwtIssuerOf } from '../proofs/jwt-signer.js'
import type { VpContext } from './context.js'
import { tenantCollections } from '../storage/declaration.js'
import { signingWallet } from '../wallets/config.js'
import { WALLETS, type WalletRecord } from '../wallets/records.js'
import type { Oid4vpRuntime } from './module.js'
import type { VpRequestSigner } from './protocol/index.js'
import type { PresentationRequestRecord } from './records.js'
import { x5cOf } from './x509.js'

/** What signing a request object uses of the service. */
export type SigningContext = Pick<VpContext, 'registries' | 'resolvers' | 'signers' | 'storage'>

/** `<publicUrl>` without trailing slashes. */
export const baseOf = (publicUrl: string) => publicUrl.replace(/\/+$/, '')
/** The `request_uri` of request `requestId`. */
export const requestUriOf = (publicUrl: string, requestId: string) => `${baseOf(publicUrl)}/oid4vp/request-objects/${requestId}`
/** The `response_uri` of request `requestId`. */
export const responseUriOf = (publicUrl: string, requestId: string) => `${baseOf(publicUrl)}/oid4vp/responses/${requestId}`

/** JWS algorithms the verifier accepts from wallets, per DCQL format (OID4VP 1.0 Appendix B). */
const JWS_ALGS = ['ES256', 'ES256K', 'EdDSA']
const VP_FORMATS: Record<string, Record<string, string[]>> = {
  'dc+sd-jwt': { 'sd-jwt_alg_values': JWS_ALGS, 'kb-jwt_alg_values': JWS_ALGS },
  jwt_vc_json: { alg_values: JWS_ALGS },
  ldp_vc: {
    proof_type_values: ['DataIntegrityProof', 'Ed25519Signature2020', 'EcdsaSecp256k1Signature2019', 'JsonWebSignature2020'],
    cryptosuite_values: ['ecdsa-rdfc-2019', 'ecdsa-sd-2023', 'eddsa-rdfc-2022', 'bbs-2023'],
  },
}
/** The DCQL formats the verifier verifies. */
export const VERIFIED_FORMATS = Object.keys(VP_FORMATS)

/** The request's `client_metadata`: the formats its query names, and the encryption key of a `direct_post.jwt` request. */
function clientMetadataOf(record: PresentationRequestRecord): Record<string, unknown> {
  const formats = new Set((record.dcqlQuery.credentials as Array<{ format: string }>).map((c) => c.format))
  return {
    vp_formats_supported: Object.fromEntries([...formats].map((format) => [format, VP_FORMATS[format]])),
    ...(record.encryption && {
      jwks: { keys: [record.encryption.publicJwk] },
      encrypted_response_enc_values_supported: record.encryption.enc,
    }),
  }
}

/** The request object of `record` (request id `requestId`), signed now; with `walletNonce`, carrying it. */
export async function signRequestObject(
  ctx: SigningContext,
  oid4vp: Oid4vpRuntime,
  publicUrl: string,
  record: PresentationRequestRecord,
  requestId: string,
  options: { now: number; walletNonce?: string },
): Promise<string> {
  return oid4vp.lib.vpRequestObject({
    parameters: {
      client_id: record.clientId,
      response_uri: responseUriOf(publicUrl, requestId),
      response_mode: record.responseMode,
      nonce: record.nonce,
      state: record.state,
      dcql_query: record.dcqlQuery,
      client_metadata: clientMetadataOf(record),
      ...(record.transactionData && { transaction_data: record.transactionData }),
    },
    signer: await signerOf(ctx, oid4vp, record),
    requestUri: requestUriOf(publicUrl, requestId),
    now: options.now,
    expiresAt: record.expiresAt,
    ...(options.walletNonce !== undefined && { walletNonce: options.walletNonce }),
  })
}

/** The signer of the record's client identifier prefix. */
async function signerOf(ctx: SigningContext, oid4vp: Oid4vpRuntime, record: PresentationRequestRecord): Promise<VpRequestSigner> {
  if (record.clientIdPrefix === 'redirect_uri') return { method: 'none' }
  if (record.clientIdPrefix === 'decentralized_identifier') {
    const did = record.clientId.slice('decentralized_identifier:'.length)
    const wallet = await tenantWallet(ctx, record.tenantId, did)
    if (!wallet) throw new IdentityError('NOT_FOUND', `${did} is no longer a wallet of this tenant`)
    return didSigner(ctx, wallet, did)
  }
  const x509 = oid4vp.options.x509
  if (!x509) throw invalid('clientId: the module has no x509 option (a certificate chain and its key)')
  const alg = oid4vp.lib.vpAlgOfJwk(x509.privateKeyJwk)
  if (!alg) throw invalid('oid4vp x509.privateKeyJwk: a P-256 or Ed25519 private JWK')
  return { method: 'x5c', alg, x5c: x5cOf(x509), privateKeyJwk: x509.privateKeyJwk }
}

/** The wallet of the tenant whose DID is `did`, if any. */
export async function tenantWallet(ctx: Pick<SigningContext, 'storage'>, tenantId: string, did: string): Promise<WalletRecord | undefined> {
  const { wallets } = tenantCollections(ctx.storage, tenantId, { wallets: WALLETS })
  return wallets.findOne({ field: 'did', op: 'eq', value: principalOf(did) })
}

/**
 * The signer of `did`'s key (the wallet that owns it: a did:ethr DID's owner), `kid` the verification method of its
 * document that lists the key (`<did>#controller` for did:ethr). 403 when the service holds no key of it; 422 for an
 * MPC key (it signs through a quorum, not here).
 */
export async function didSigner(ctx: SigningContext, wallet: WalletRecord, did: string): Promise<VpRequestSigner & { method: 'did' }> {
  const owner = await signingWallet(ctx, wallet)
  if (owner.keyManagement === 'MPC') throw invalid(`clientId.did: ${did} is owned by an MPC key, which does not sign request objects`)
  const signer = ctx.signers.signerFor(owner)
  const normalized = normalizeDid(did)
  const issuer = await jwtIssuerOf(normalized, signer, { resolver: ctx.resolvers.get().resolver })
  return {
    method: 'did',
    alg: issuer.alg,
    kid: issuer.kid ?? `${normalized}#controller`,
    sign: (data) => signer.sign(issuer.alg, data),
  }
}

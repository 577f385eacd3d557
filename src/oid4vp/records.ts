/**
 * The OID4VP verifier's records: one per presentation request, from its creation to its result's deletion.
 * Declarations are checked against the record types by the compiler.
 *
 * `id` is the keyed hash of the request id (`OneTimeStore.keyed('oid4vp-request', '', requestId)`: global scope, as the
 * wallet-facing endpoints learn the tenant from the record). The request id is a handle, not a secret: it is in the QR
 * code, in the signed Request Object (stored here, its `response_uri`) and in the audit trail's targets. The ephemeral
 * private key of an encrypted response (`direct_post.jwt`) is sealed; the nonce and `state` are public values of the
 * signed request.
 */
import { declareCollection, collectionOf } from '../storage/declaration.js'
import type { StorageAdapter, StoredRecord } from '../storage/port.js'
import type { PresentationOutcome } from './outcome-schemas.js'

/** The client identifier prefixes of OID4VP 1.0 §5.9.3 the verifier speaks. */
export type ClientIdPrefix = 'decentralized_identifier' | 'redirect_uri' | 'x509_san_dns' | 'x509_hash'

export type ResponseMode = 'direct_post' | 'direct_post.jwt'

/** A presentation request and, once a wallet answered, its outcome. */
export interface PresentationRequestRecord extends StoredRecord {
  tenantId: string
  /** The whole client identifier, prefix included (`decentralized_identifier:did:web:…`). */
  clientId: string
  clientIdPrefix: ClientIdPrefix
  /** For `decentralized_identifier:`: the verification method that signed the request object. */
  signingKid?: string
  /** The DCQL query, as validated. */
  dcqlQuery: Record<string, unknown>
  responseMode: ResponseMode
  /** The request's nonce (public: it is in the request object); the presentations must carry it. */
  nonce: string
  /** The request's `state` (public), echoed by the wallet. */
  state: string
  /** `transaction_data` entries (base64url JSON), as sent. */
  transactionData?: string[]
  /** Same-device flow: where the wallet sends the browser after answering (`redirect_uri` + `response_code`). */
  redirectUri?: string
  /** `direct_post.jwt`: the ephemeral ECDH-ES key (public JWK with `kid`; private JWK sealed) and accepted `enc`s. */
  encryption?: { publicJwk: Record<string, unknown>; sealedPrivateJwk: string; enc: Array<'A128GCM' | 'A256GCM'> }
  /** The request object (a compact JWS, or `alg: none` for `redirect_uri:`), made once at creation. */
  requestObject: string
  /** Whether a `request_uri_method=post` fetch already re-signed it with a `wallet_nonce` (allowed once). */
  walletNonceUsed?: boolean
  /** `pending` until a wallet answered; then the outcome's status. */
  status: 'pending' | 'fulfilled' | 'failed'
  outcome?: PresentationOutcome
  /** Who made it: the DIDs proved and the API key (never the key). */
  createdBy: { dids: string[]; apiKeyId?: string }
  /** UNIX ms. The request is answerable until `expiresAt`; the record is deleted at `deleteAt`. */
  createdAt: number
  expiresAt: number
  deleteAt: number
  answeredAt?: number
  updatedAt: number
}

export const OID4VP_REQUESTS = declareCollection<PresentationRequestRecord>({
  name: 'oid4vp_requests',
  fields: ['tenantId', 'status', 'createdAt', 'expiresAt', 'deleteAt', 'updatedAt'],
  indexes: [{ fields: ['tenantId', 'createdAt'] }, { fields: ['deleteAt'] }],
})

/** The one-time kinds of the verifier (`ctx.oneTime`). */
export const OID4VP_ONE_TIME = {
  /** Issued at creation, consumed by the one response that wins (a second never overwrites the first). */
  answer: 'oid4vp-answer',
  /** Same-device: the `response_code` the wallet's redirect carries; data `{ request: <record id> }`. */
  responseCode: 'oid4vp-response-code',
  /** A `request_uri_method=post` re-signing, once per request. */
  walletNonce: 'oid4vp-wallet-nonce',
} as const

/** The record of a request id (any tenant's), if it exists: the wallet-facing endpoints find their tenant by it. */
export function requestRecordById(storage: StorageAdapter, recordId: string): Promise<PresentationRequestRecord | undefined> {
  return collectionOf(storage, OID4VP_REQUESTS).get(recordId)
}

/**
 * The contracts of the operations on identity wallets and DID resolution (see `operations/contract.ts`): summary,
 * auth, tag, errors, routes, schemas, batch field, example. Browser-safe: schemas and types only.
 */
import { BODY_ERRORS, QUERY_ERRORS, defineContract, type ErrorResponse } from '../operations/contract.js'
import {
  DID_LD_JSON,
  DID_RESOLUTION,
  DID_RESOLUTION_LD,
  RESULT_MEDIA_TYPES,
  resolutionErrorResult,
  resolutionStatus,
} from './resolution.js'
import {
  configureWallet,
  deleteWallets,
  deleteWalletsResponse,
  didDocument,
  didResolution,
  generateWallet,
  generatedWalletResponse,
  getWalletsQuery,
  renameWallets,
  renameWalletsResponse,
  resolveDidParams,
  didWebDocumentParams,
  didWebDocumentQuery,
  resolveDidQuery,
  walletResponse,
  walletsPage,
} from './schemas.js'

const TAG = 'Identity wallets'

/** An answer of the resolution route that is not a 200: a resolution result, in the media types of results. */
const result = (description: string): ErrorResponse => ({ description, schema: didResolution, mediaTypes: RESULT_MEDIA_TYPES })

export const WALLET_CONTRACTS = {
  /** Get Identity Wallets (`GET /wallets`, alias `GET /wallet`): the tenant's wallets, filtered by `vaultId`, `did`, `alias`, paged. */
  getWallets: defineContract({
    summary: 'Get Identity Wallets',
    description:
      'The tenant’s wallets, oldest first, filtered by `vaultId`, `did`, `alias` (all optional), at most `limit` per ' +
      'page; `nextCursor` is present when more follow.',
    auth: 'tenant',
    tag: TAG,
    errors: QUERY_ERRORS,
    routes: [
      { method: 'get', path: '/wallets' },
      { method: 'get', path: '/wallet' },
    ],
    input: getWalletsQuery,
    response: walletsPage,
  }),
  /** Generate Identity Wallet (`POST /wallet`): a fresh key pair and DID, not in a vault. */
  generateWallet: defineContract({
    summary: 'Generate Identity Wallet',
    description:
      'A fresh secp256k1 key (sealed at rest) and its did:ethr DID, not in a vault. A `walletConfig.txsInput` is applied ' +
      'to the new DID’s document; the response’s `registry` says what was recorded.',
    auth: 'tenant',
    tag: TAG,
    audit: { action: 'wallet.create', target: 'wallet' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/wallet' }],
    input: generateWallet,
    response: generatedWalletResponse,
    example: {
      wallet: { alias: 'alice' },
      walletConfig: { txsInput: [{ service: { name: 'Hub', value: 'https://hub.example.com', validity: 86_400_000 } }] },
    },
  }),
  /** Configure Identity Wallet (`POST /wallet/configure`): applies a `walletConfig` to the DID document of a wallet the caller controls. */
  configureWallet: defineContract({
    summary: 'Configure Identity Wallet',
    description:
      'Applies `walletConfig.txsInput` (new owner, delegate, service endpoint) to the DID document of a wallet the ' +
      'caller controls: by vault control (a token signed by the own key of a wallet of its vault) or by DID control (a ' +
      'token signed by the DID’s current owner key). The service signs the change with the owner key it holds; when the ' +
      'owner key is outside the service: 403 naming the owner.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'did.update', target: 'did', targetField: 'wallet.did' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/wallet/configure' }],
    input: configureWallet,
    response: walletResponse,
    example: {
      wallet: { did: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72' },
      walletConfig: { txsInput: [{ delegate: { validity: 3_600_000 } }] },
    },
  }),
  /** Rename Identity Wallet (`POST /wallet/rename`): each item renamed, or reported in `errors`. */
  renameWallets: defineContract({
    summary: 'Rename Identity Wallet',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'wallet.rename', target: 'wallet' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/wallet/rename' }],
    input: renameWallets,
    batch: 'wallets',
    response: renameWalletsResponse,
    example: { wallets: [{ did: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72', alias: 'savings' }] },
  }),
  /** Delete Identity Wallet (`DELETE /wallet`): each wallet removed, or reported in `errors`. */
  deleteWallets: defineContract({
    summary: 'Delete Identity Wallet',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'wallet.delete', target: 'wallet' },
    errors: BODY_ERRORS,
    routes: [{ method: 'delete', path: '/wallet' }],
    input: deleteWallets,
    batch: 'ids',
    response: deleteWalletsResponse,
    example: { ids: ['did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72'] },
  }),
  /**
   * Resolve a DID (`GET /1.0/identifiers/:did`, no auth: DID documents are public), or a past version of its document:
   * always a W3C DID resolution result, at the status of the HTTP(S) binding.
   */
  resolveDid: defineContract({
    summary: 'Resolve a DID',
    description:
      'A W3C DID resolution result at the status of the DID Resolution HTTP(S) binding (documented per status). ' +
      '`Accept: application/did+ld+json`: the document alone. `versionId` or `versionTime` (not both): a past version, ' +
      'with `versionId`/`updated` (and `nextVersionId`/`nextUpdate`) in `didDocumentMetadata`.',
    auth: 'public',
    tag: 'DIDs',
    errors: {
      400: result('invalidDid, or invalidDidUrl (a malformed version, an unknown parameter)'),
      404: result('notFound (the DID, or its version)'),
      406: result('representationNotSupported: `Accept` admits no media type of the route'),
      410: result('Deactivated: the document, `didDocumentMetadata.deactivated: true`'),
      500: result('internalError'),
      501: result('methodNotSupported: a method or did:ethr network not served here'),
      503: result('SERVICE_UNAVAILABLE: storage unreachable (error internalError); retry after `Retry-After`'),
    },
    routes: [{ method: 'get', path: '/1.0/identifiers/:did' }],
    params: resolveDidParams,
    input: resolveDidQuery,
    response: didResolution,
    media: {
      [DID_RESOLUTION]: {},
      [DID_RESOLUTION_LD]: {},
      [DID_LD_JSON]: { schema: didDocument, select: (resolution) => resolution.didDocument },
      'application/json': {},
    },
    outcome: { status: resolutionStatus, fromError: resolutionErrorResult },
  }),
  /**
   * The did:web document of a wallet (`GET /dids/:walletId/did.json` under `publicUrl`, where did:web puts it; no auth):
   * the bytes `GET /1.0/identifiers/<its DID>` answers under `Accept: application/did+ld+json`, and its statuses.
   */
  didWebDocument: defineContract({
    summary: 'did:web document of a wallet',
    description:
      'The DID document of the did:web wallet `walletId` (DID `did:web:<publicUrl host>:<publicUrl path>:dids:<walletId>`), ' +
      'exactly as `GET /1.0/identifiers/<DID>` answers it under `Accept: application/did+ld+json`: the document ' +
      '(`application/did+ld+json`), 410 with the resolution result once the wallet is deleted, 404 for an unknown wallet.',
    auth: 'public',
    tag: 'DIDs',
    errors: {
      400: result('invalidDid: a malformed wallet id; invalidDidUrl: a query'),
      404: result('notFound: no did:web wallet of that id (or no publicUrl configured)'),
      406: result('representationNotSupported: `Accept` admits neither application/did+ld+json nor application/json'),
      410: result('Deactivated (the wallet was deleted): the resolution result, `didDocumentMetadata.deactivated: true`'),
      500: result('internalError'),
      503: result('SERVICE_UNAVAILABLE: storage unreachable (error internalError); retry after `Retry-After`'),
    },
    routes: [{ method: 'get', path: '/dids/:walletId/did.json' }],
    params: didWebDocumentParams,
    input: didWebDocumentQuery,
    response: didResolution,
    media: {
      [DID_LD_JSON]: { schema: didDocument, select: (resolution) => resolution.didDocument },
      'application/json': { schema: didDocument, select: (resolution) => resolution.didDocument },
    },
    outcome: { status: resolutionStatus, fromError: resolutionErrorResult },
  }),
}

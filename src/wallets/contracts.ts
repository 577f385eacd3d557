/**
 * The contracts of the operations on identity wallets and DID resolution (see `operations/contract.ts`): summary,
 * auth, tag, errors, routes, schemas, batch field, example. Browser-safe: schemas and types only.
 */
import { BODY_ERRORS, QUERY_ERRORS, defineContract, UNAVAILABLE_ERRORS } from '../operations/contract.js'
import {
  configureWallet,
  deleteWallets,
  deleteWalletsResponse,
  didResolution,
  generateWallet,
  generatedWalletResponse,
  getWalletsQuery,
  renameWallets,
  renameWalletsResponse,
  resolveDidParams,
  resolveDidQuery,
  walletResponse,
  walletsPage,
} from './schemas.js'

const TAG = 'Identity wallets'

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
  /** Resolve a DID (`GET /1.0/identifiers/:did`, no auth: DID documents are public), or a past version of its document. */
  resolveDid: defineContract({
    summary: 'Resolve a DID',
    description:
      'The DID resolution result, as the DIF Universal Resolver answers it. `versionId` or `versionTime` (not both) ' +
      'resolve a past version of the document, with `versionId`/`updated` and, when a later one exists, ' +
      '`nextVersionId`/`nextUpdate` in `didDocumentMetadata`. A malformed value is the resolution error `invalidDidUrl` ' +
      '(422), never ignored; a DID that does not resolve is 422 naming the resolution error (`notFound` also for a ' +
      '`versionId` beyond the latest).',
    auth: 'public',
    tag: 'DIDs',
    errors: {
      422: 'VALIDATION_ERROR naming the resolution error: invalidDid, invalidDidUrl (malformed versionId/versionTime), unknownNetwork, …',
      ...UNAVAILABLE_ERRORS,
    },
    routes: [{ method: 'get', path: '/1.0/identifiers/:did' }],
    params: resolveDidParams,
    input: resolveDidQuery,
    response: didResolution,
  }),
}

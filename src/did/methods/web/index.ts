/**
 * did:web (W3C CCG did:web): the DID → URL rule, resolution of DIDs the service does not hold
 * (from `didWebOrigins` only), and the service's own did:web documents under `publicUrl` (from
 * storage, with versions; updated by `txsInput`), behind the DID-method port ({@link didWebMethod}).
 */
export { didWebOfWallet, didWebUrl, didOfDidUrl, MAX_DID_WEB_LENGTH } from './did-web-url.js'
export { DidWebResolver, type DidWebResolverOptions } from './resolve-foreign.js'
export { DID_WEB_CHANGES, type DidWebChange, type DidWebChangeRecord } from './records.js'
export {
  changesOf as changesOfDidWeb,
  MAX_DID_WEB_VERSIONS,
  OwnDidWebDocuments,
  type OwnDidWebWallet,
  type OwnDidWebWallets,
} from './own-documents.js'
export { applyDidWebTxs, checkDidWebTxs, deactivateDidWeb, type AppliedDidWebTx, type DidWebTx, type DidWebTxInput } from './updates.js'
export { didWebMethod, noPublicUrl, type DidWebMethodOptions } from './method.js'

/**
 * did:web (W3C CCG did:web): the DID → URL rule and resolution of DIDs the service does not hold.
 * The service's own did:web wallets (documents under `publicUrl`, answered from storage) plug in
 * through `DidWebResolverOptions.own`.
 */
export { didWebOfWallet, didWebUrl, didOfDidUrl, MAX_DID_WEB_LENGTH } from './did-web-url.js'
export { DidWebResolver, type DidWebResolverOptions } from './resolve-foreign.js'

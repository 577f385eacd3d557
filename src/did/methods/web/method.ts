/**
 * did:web behind the DID-method port: DIDs made under the service's `publicUrl` for its wallets
 * (`did:web:<host>:<path>:dids:<walletId>`), resolved from storage ({@link OwnDidWebDocuments}, with versions);
 * every other did:web through {@link DidWebResolver} (fetched only from `didWebOrigins`). Updates apply `txsInput`.
 */
import type { DIDDocument, DIDResolutionOptions, VerificationMethod } from 'did-resolver'
import { invalid } from '../../../errors.js'
import { KEY_TYPES, keyTypeOfJwk } from '../../../keys/key-types.js'
import type { KeyManager } from '../../../keys/port.js'
import type { StorageAdapter } from '../../../storage/port.js'
import { authenticationKeys, jwkOfMethod } from '../derived.js'
import { publicKeyBytes } from '../public-key-bytes.js'
import { controllingKeysOfDocument } from '../controllers.js'
import type { ControllingKey, DidMethod } from '../port.js'
import { didOfDidUrl, didWebOfWallet } from './did-web-url.js'
import type { OwnDidWebDocuments } from './own-documents.js'
import type { DidWebResolver } from './resolve-foreign.js'
import { applyDidWebTxs, checkDidWebTxs } from './updates.js'

/** What the did:web method needs: the service's `publicUrl`, its documents, the foreign resolver, and what updates use. */
export interface DidWebMethodOptions {
  publicUrl?: string
  own: OwnDidWebDocuments
  foreign: DidWebResolver
  storage: StorageAdapter
  keyManager: Pick<KeyManager, 'stageKey'>
  now: () => number
  /**
   * The keys that control a DID of another method (did:key, did:jwk, did:ethr: its owner), for a document naming it as
   * `controller`; without it such a controller gives no keys.
   */
  otherControllingKeys?: (did: string) => Promise<ControllingKey[]>
}

/** The 422 of a did:web wallet on a service without `publicUrl`. */
export const noPublicUrl = () =>
  invalid('walletConfig.didMethod: did:web DIDs live under the service’s publicUrl, which is not configured (publicUrl)')

/** The did:web method of a service. */
export function didWebMethod(options: DidWebMethodOptions): DidMethod {
  const isOwn = (did: string) => options.own.walletIdOf(didOfDidUrl(did)) !== undefined
  const method: DidMethod = {
    name: 'web',
    keyTypes: KEY_TYPES,
    versioned: true,

    async create({ publicJwk, walletId }) {
      if (options.publicUrl === undefined) throw noPublicUrl()
      if (walletId === undefined) throw new TypeError('did:web: create needs the wallet id')
      if (keyTypeOfJwk(publicJwk) === undefined) throw invalid('did:web takes a secp256k1, P-256 or Ed25519 key')
      try {
        publicKeyBytes(publicJwk)
      } catch {
        throw invalid('did:web: the JWK is not a valid public key of its curve')
      }
      return { did: didWebOfWallet(options.publicUrl, walletId) }
    },

    resolve(didUrl: string, resolution?: DIDResolutionOptions) {
      return isOwn(didUrl) ? options.own.resolve(didUrl) : options.foreign.forRequest().resolve(didUrl, resolution)
    },

    async update({ did, txsInput }) {
      const wallet = isOwn(did) ? await options.own.walletOf(didOfDidUrl(did)) : undefined
      if (wallet === undefined) throw invalid(`txsInput: ${did} is not a did:web DID this service holds`)
      await applyDidWebTxs(options, wallet, checkDidWebTxs(txsInput, 'txsInput'))
      const { didDocument } = await options.own.resolve(did)
      return didDocument!
    },

    /** The keys of its `authentication`, and those that control the DIDs it names as `controller` (`did/methods/controllers.ts`). */
    async controllingKeys(did) {
      const { didDocument } = await method.resolve(did)
      return didDocument ? controllingKeysOfDocument(didDocument, ownKeys, controllerKeys) : []
    },
  }
  /** The keys a document's `authentication` lists. */
  const ownKeys = (document: DIDDocument) => authenticationKeys(document, (vm: VerificationMethod) => jwkOfMethod(vm))
  /** The keys that control a controller DID: its own document's (its controllers are not followed: one level). */
  async function controllerKeys(did: string): Promise<ControllingKey[]> {
    if (did.startsWith('did:web:')) {
      const { didDocument } = await method.resolve(did)
      return didDocument ? ownKeys(didDocument) : []
    }
    return options.otherControllingKeys?.(did) ?? []
  }
  return method
}

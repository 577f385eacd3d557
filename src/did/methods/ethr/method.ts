/**
 * did:ethr behind the DID-method port: DIDs of secp256k1 keys (their Ethereum address on a configured network),
 * resolved through the service's registries (embedded or on chain, with past versions), controlled by their owner.
 *
 * Updates are not made through this port: a did:ethr change is an ERC-1056 transaction the DID's current owner key
 * signs, with the wallet's MPC approvals, audit acts and per-item registry report — the wallets' registry path
 * (`walletConfig.txsInput`, Configure Identity Wallet) does that, through the same registries.
 */
import type { DIDDocument, DIDResolutionOptions, DIDResolutionResult } from 'did-resolver'
import { invalid } from '../../../errors.js'
import { hexToBytes } from '../../../keys/secp256k1.js'
import { CURVES } from '../../../keys/types/index.js'
import { keyBytesToCreate } from '../public-key-bytes.js'
import type { ControllingKey, DidMethod } from '../port.js'
import { didOf } from '../derived.js'
import type { EthrNetwork } from './ethr.js'
import { ETHR_KEY_TYPES, ethrIdentityOf } from './key-identity.js'
import { createResolver, type Registries } from './registries.js'

/** The did:ethr method over `registries`; DIDs are made on `network` unless `create` names another configured one. */
export function didEthrMethod(registries: Registries, network: EthrNetwork): DidMethod {
  const resolver = createResolver(registries)
  const resolve = (did: string, options?: DIDResolutionOptions): Promise<DIDResolutionResult> => resolver.resolve(did, options)
  return {
    name: 'ethr',
    keyTypes: ETHR_KEY_TYPES,
    versioned: true,
    async create({ publicJwk, network: name }) {
      if (publicJwk.crv !== 'secp256k1') throw invalid(`did:ethr takes a secp256k1 key, not ${String(publicJwk.crv)}`)
      const on = name === undefined ? network : registries.forNetwork(name)?.network
      if (on === undefined) throw invalid(`did:ethr: no DID registry is configured for network ${name}`)
      return { did: ethrIdentityOf(on, keyBytesToCreate('ethr', publicJwk)).did }
    },
    resolve,
    update() {
      return Promise.reject(
        invalid('txsInput: a did:ethr document changes through its wallet (walletConfig.txsInput), signed by its owner key'),
      )
    },
    async controllingKeys(did) {
      const document = (await resolve(didOf(did))).didDocument
      return document === null ? [] : ownerKeys(document)
    },
  }
}

/** The owner of a did:ethr document: `#controller` (its address) and, while the owner is the DID's own key, `#controllerKey`. */
function ownerKeys(document: DIDDocument): ControllingKey[] {
  return (document.verificationMethod ?? []).flatMap((vm): ControllingKey[] => {
    if (vm.id === `${document.id}#controller` && vm.blockchainAccountId !== undefined)
      return [{ methodId: vm.id, address: vm.blockchainAccountId.split(':').pop()! }]
    if (vm.id === `${document.id}#controllerKey` && vm.publicKeyHex !== undefined)
      return [{ methodId: vm.id, publicJwk: CURVES.secp256k1.publicJwkOfBytes(hexToBytes(vm.publicKeyHex.replace(/^0x/, ''))) }]
    return []
  })
}

/**
 * The DID of a new wallet, by its method: did:ethr from the key's Ethereum address on the wallet's network, did:key
 * and did:jwk from the key through their {@link DidMethod}, did:web under the service's `publicUrl` with the wallet's
 * id as its last segment.
 */
import { invalid } from '../errors.js'
import { didOfChecksummed, type EthrNetwork } from '../did/methods/ethr/index.js'
import { didMethodNamed, didWebOfWallet } from '../did/methods/index.js'
import type { PublicJwk } from '../keys/key-types.js'
import type { WalletsConfig } from './context.js'

/** The 422 for a did:web wallet of a service without `publicUrl`: it names the setting, its flag and its variable. */
export const noPublicUrl = () =>
  invalid("walletConfig.didMethod: a did:web wallet needs the service's public URL; set publicUrl (--public-url, DIDVAULT_PUBLIC_URL)")

/** What a wallet's DID is made from. */
export interface WalletDidInput {
  /** The DID method (`walletConfig.didMethod`, checked by `checkWalletConfig`). */
  method: string
  /** The wallet's public key. */
  publicJwk: PublicJwk
  /** The wallet's id (did:web puts it in the DID). */
  walletId: string
  /** The did:ethr network (default: the service's). */
  network?: EthrNetwork
  /** A secp256k1 key's EIP-55 Ethereum address (`ethereumKeyOf`): what a did:ethr DID is made of. */
  ethereumAddress?: string
}

/**
 * The DID of a new wallet.
 * @throws {IdentityError} 422 for a method the service does not know, or did:web without `publicUrl`
 */
export async function walletDid(config: Pick<WalletsConfig, 'network' | 'publicUrl'>, input: WalletDidInput): Promise<string> {
  const { method, publicJwk, walletId } = input
  if (method === 'ethr') {
    const network = input.network ?? config.network
    if (input.ethereumAddress === undefined) throw new RangeError('a did:ethr DID is made from the Ethereum address of a secp256k1 key')
    return didOfChecksummed(network, input.ethereumAddress)
  }
  if (method === 'web') {
    if (config.publicUrl === undefined) throw noPublicUrl()
    return didWebOfWallet(config.publicUrl, walletId)
  }
  const didMethod = didMethodNamed(method)
  if (!didMethod) throw invalid(`walletConfig.didMethod: unsupported DID method "${method}"`)
  return (await didMethod.create({ publicJwk, walletId })).did
}

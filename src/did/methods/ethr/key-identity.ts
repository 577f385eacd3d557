/**
 * What did:ethr makes of a secp256k1 public key: its Ethereum address (the ERC-1056 identity), the key's
 * uncompressed hex, and the DID of the address on a network. The address is an attribute of did:ethr, not of keys:
 * wallets get it here, for every secp256k1 key (the spec's `ethereumAddress` and `publicKeyHex`).
 */
import type { PublicJwk } from '../../../keys/key-types.js'
import { addressOf, bytesToHex, uncompressedOf } from '../../../keys/secp256k1.js'
import { ecPoint } from '../../../keys/types/curve.js'
import { didOfChecksummed, type EthrNetwork } from './ethr.js'

/** The Ethereum view of a secp256k1 key: its EIP-55 address and its uncompressed SEC1 point as hex (`04…`). */
export interface EthereumKey {
  ethereumAddress: string
  publicKeyHex: string
}

/** A did:ethr identity: the DID of the key's address on a network, with the key's Ethereum view. */
export interface EthrIdentity extends EthereumKey {
  did: string
}

/**
 * The Ethereum view of a secp256k1 public key, given as its JWK or its SEC1 bytes (compressed or not).
 * @throws {RangeError} for a key that is not secp256k1
 */
export function ethereumKeyOf(publicKey: PublicJwk | Uint8Array): EthereumKey {
  if (!(publicKey instanceof Uint8Array) && publicKey.crv !== 'secp256k1') {
    throw new RangeError(`an Ethereum address is made from a secp256k1 key, not ${publicKey.crv}`)
  }
  const point = publicKey instanceof Uint8Array ? publicKey : ecPoint(publicKey)
  const uncompressed = point.length === 65 ? point : uncompressedOf(point)
  return { ethereumAddress: addressOf(uncompressed), publicKeyHex: bytesToHex(uncompressed) }
}

/**
 * The did:ethr identity of a secp256k1 public key on `network`: `did:ethr:<network>:<EIP-55 address>`.
 * @throws {RangeError} for a key that is not secp256k1
 */
export function ethrIdentityOf(network: EthrNetwork, publicKey: PublicJwk | Uint8Array): EthrIdentity {
  const key = ethereumKeyOf(publicKey)
  return { did: didOfChecksummed(network, key.ethereumAddress), ...key }
}

/** The key types a did:ethr DID can be made for: secp256k1 only (ERC-1056 identities are Ethereum addresses). */
export const ETHR_KEY_TYPES = ['secp256k1'] as const

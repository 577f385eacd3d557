/** The wallets as did:web finds them ({@link OwnDidWebWallets}): a did:web wallet by its DID, whatever its tenant. */
import type { OwnDidWebWallet, OwnDidWebWallets } from '../did/methods/index.js'
import { collectionOf } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import { WALLETS, type WalletRecord } from './records.js'

/** `wallet` as its did:web document needs it, when it is a did:web wallet whose key the key port holds. */
export function didWebWalletOf(wallet: WalletRecord): OwnDidWebWallet | undefined {
  if (wallet.didMethod !== 'web' || wallet.publicKeyJwk === undefined || wallet.keyType === undefined) return undefined
  const { id, tenantId, did, keyType, publicKeyJwk, createdAt, bbsKey } = wallet
  return { id, tenantId, did, keyType, publicKeyJwk, createdAt, ...(bbsKey !== undefined && { bbsPublicKeyJwk: bbsKey.publicKeyJwk }) }
}

/** The did:web wallets in `storage` (one read by the unique `did` index). */
export const storedDidWebWallets = (storage: StorageAdapter): OwnDidWebWallets => ({
  async walletOfDid(did) {
    const wallet = await collectionOf(storage, WALLETS).findOne({ field: 'did', op: 'eq', value: did })
    return wallet === undefined ? undefined : didWebWalletOf(wallet)
  },
})

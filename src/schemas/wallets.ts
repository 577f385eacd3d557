/** Request schemas of the identity-wallet operations. */
import { z } from 'zod'
import { batch, did, id, nonEmpty } from './common.js'
import { walletConfig } from './wallet-config.js'

export const walletInput = z.strictObject({ alias: nonEmpty(200).optional() })

export const generateWallet = z.strictObject({
  wallet: walletInput.optional(),
  walletConfig: walletConfig.optional(),
})

export const getWalletsQuery = z.strictObject({
  vaultId: id.optional(),
  did: did.optional(),
  alias: nonEmpty(200).optional(),
})

export const renameWallets = (maxBatch: number) =>
  z.strictObject({ wallets: batch(z.strictObject({ did, alias: nonEmpty(200) }), maxBatch) })

export const deleteWallets = (maxBatch: number) => z.strictObject({ ids: batch(id.or(did), maxBatch) })

export const configureWallet = z.strictObject({
  wallet: z.strictObject({ did }),
  walletConfig: walletConfig,
})

export type GetWalletsQuery = z.infer<typeof getWalletsQuery>

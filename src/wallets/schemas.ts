/** Request and response schemas of the identity-wallet operations. */
import * as z from 'zod'
import { did, errorBody, id, label, nextCursor, page } from '../operations/schemas.js'
import { registryReport, walletConfig } from './config-schemas.js'

export const walletInput = z.strictObject({ alias: label(200).optional().meta({ description: 'Default: the DID.' }) })

export const generateWallet = z.strictObject({
  wallet: walletInput.optional(),
  walletConfig: walletConfig.optional(),
})

export const getWalletsQuery = z.strictObject({
  vaultId: id.optional(),
  did: did.optional(),
  alias: label(200).optional(),
  ...page,
})

export const renameWallets = z.strictObject({ wallets: z.array(z.strictObject({ did, alias: label(200) })).min(1) })

export const deleteWallets = z.strictObject({ ids: z.array(id.or(did)).min(1).meta({ description: 'Wallet ids (`_id`) or DIDs.' }) })

export const configureWallet = z.strictObject({
  wallet: z.strictObject({ did }),
  walletConfig: walletConfig,
})

/** A wallet as responses show it. */
export const walletView = z
  .strictObject({
    _id: z.string(),
    vaultId: z.string().optional(),
    isHDWallet: z.boolean(),
    index: z.number().int().optional(),
    privateKeyHex: z.string().optional().meta({ description: 'The sealed (AES-256-GCM) envelope of the private key, hex; never the plaintext. Only in vault create, fetch and delete responses.' }),
    publicKeyDER: z.string().optional(),
    publicKeyHex: z.string(),
    ethereumAddress: z.string(),
    did: z.string(),
    didMethod: z.string(),
    alias: z.string(),
    created: z.string(),
    role: z.boolean().optional().meta({ description: 'true for the wallet backing a role (its DID is the role DID).' }),
    registry: registryReport.optional().meta({ description: 'What the registry did with the request’s `walletConfig.txsInput`.' }),
  })
  .meta({ id: 'Wallet' })

export type WalletView = z.infer<typeof walletView>

export const walletResponse = z.strictObject({ wallet: walletView })
/** Generate Identity Wallet's response: a wallet outside any vault, with the fields the spec lists. */
export const generatedWalletResponse = z.strictObject({
  wallet: walletView.omit({ vaultId: true, isHDWallet: true, index: true, privateKeyHex: true, publicKeyDER: true, role: true }).meta({ id: 'GeneratedWallet' }),
})
export const walletsPage = z.strictObject({ wallets: z.array(walletView), nextCursor })
export const renameWalletsResponse = z.strictObject({
  wallets: z.array(walletView),
  errors: z.array(z.strictObject({ wallet: z.strictObject({ did: z.string(), alias: z.string() }), error: errorBody })),
})
export const deleteWalletsResponse = z.strictObject({
  ids: z.array(z.string()).meta({ description: 'DIDs of the removed wallets.' }),
  errors: z.array(z.strictObject({ did: z.string(), error: errorBody })),
})

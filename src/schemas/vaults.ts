/** Request and response schemas of the identity-vault operations. */
import { z } from 'zod'
import { id, label, nextCursor, page, text } from './common.js'
import { walletConfig } from './wallet-config.js'
import { walletInput, walletView } from './wallets.js'

const mpcGroup = z.strictObject({
  name: label(),
  requiredApprovals: z.number().int().min(1).max(100),
  members: z.array(z.strictObject({ id: id })).min(1).max(100),
  mpcAccountID: id.optional(),
  mpcVaultID: id.optional(),
})

export const createVault = z
  .strictObject({
    name: label(),
    description: text().default(''),
    parentID: id.optional(),
    hierarchy: z.enum(['NONE', 'BIP44']).default('NONE'),
    keyManagement: z.enum(['ECS', 'MPC']).default('ECS'),
    walletConfig: walletConfig.optional(),
    mpcAccountID: id.optional(),
    // "Object, shown as an array in the example": both are accepted.
    mpcGroups: z.union([mpcGroup, z.array(mpcGroup).min(1).max(20)]).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.keyManagement === 'MPC') {
      if (!v.mpcAccountID) ctx.addIssue({ code: 'custom', path: ['mpcAccountID'], message: 'required for MPC vaults' })
      if (!v.mpcGroups) ctx.addIssue({ code: 'custom', path: ['mpcGroups'], message: 'required for MPC vaults' })
      const groups = v.mpcGroups === undefined ? [] : Array.isArray(v.mpcGroups) ? v.mpcGroups : [v.mpcGroups]
      groups.forEach((g, i) => {
        if (g.requiredApprovals > g.members.length)
          ctx.addIssue({ code: 'custom', path: ['mpcGroups', i, 'requiredApprovals'], message: 'exceeds the number of members' })
      })
    } else {
      for (const f of ['mpcAccountID', 'mpcGroups'] as const)
        if (v[f] !== undefined) ctx.addIssue({ code: 'custom', path: [f], message: 'only for MPC vaults' })
    }
  })

export const getVaultsQuery = z.strictObject({
  id: id.optional(),
  parentID: id.optional(),
  mpcAccountID: id.optional(),
  mpcVaultID: id.optional(),
  ...page,
})

export const deleteVault = z.strictObject({ _id: id })

export const createVaultWalletParams = z.strictObject({ vaultID: id })
export const createVaultWallet = z.strictObject({
  wallet: walletInput.optional(),
  walletConfig: walletConfig.optional(),
})

/** A vault as responses show it. */
export const vaultView = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    parentID: z.string().optional(),
    hierarchy: z.enum(['NONE', 'BIP44']),
    mnemonic: z.string().optional().meta({ description: 'The BIP39 mnemonic, in plaintext: only in the create response of an ECS + BIP44 vault, once.' }),
    keyManagement: z.enum(['ECS', 'MPC']),
    status: z.enum(['INITIALIZED', 'NOT_INITIALIZED']),
    walletConfig: walletConfig.optional(),
    wallets: z.array(walletView),
    mpcAccountID: z.string().optional(),
    mpcVault: z.strictObject({ id: z.string() }).optional(),
  })
  .meta({ id: 'Vault' })

export type VaultView = z.infer<typeof vaultView>

export const vaultResponse = z.strictObject({ vault: vaultView })
export const vaultsPage = z.strictObject({ vaults: z.array(vaultView), nextCursor })
export const deleteVaultResponse = z.strictObject({ wallets: z.array(walletView).meta({ description: 'The removed wallets of the vault (removed together with it, all or nothing).' }) })

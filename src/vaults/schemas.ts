/**
 * Request and response schemas of the identity-vault operations. MPC members are checked for
 * duplicates by principal (both spellings of a did:ethr key are one member) by the operation
 * (src/operations/canonical-dids.ts).
 */
import * as z from 'zod'
import { did, id, label, nextCursor, page, text } from '../operations/schemas.js'
import { walletConfig } from '../wallets/config-schemas.js'
import { walletInput, walletView } from '../wallets/schemas.js'

const mpcGroup = z.strictObject({
  name: label(),
  requiredApprovals: z.number().int().min(1).max(100),
  members: z
    .array(z.strictObject({ id: did.meta({ description: 'A member DID: the member approves by presenting its DID-auth token.' }) }))
    .min(1)
    .max(100),
  mpcAccountID: id.optional(),
  mpcVaultID: id.optional(),
})

export const createVault = z
  .strictObject({
    name: label(),
    description: text().default(''),
    parentID: id.optional(),
    hierarchy: z.enum(['NONE', 'BIP44']).default('NONE'),
    keyManagement: z
      .enum(['ECS', 'MPC', 'HSM'])
      .default('ECS')
      .meta({
        description:
          '`ECS` (default): keys sealed under the master key; `MPC`: keys of the MPC provider under a quorum; `HSM` (extension): ' +
          'keys generated and kept in the service’s PKCS#11 token, hierarchy `NONE` only.',
      }),
    walletConfig: walletConfig.optional(),
    mpcAccountID: id.optional(),
    mpcVaultID: id
      .optional()
      .meta({ description: 'MPC: the provider vault id to use; the provider assigns one when absent. Returned as `mpcVault.id`.' }),
    // "Object, shown as an array in the example": both are accepted.
    mpcGroups: z.union([mpcGroup, z.array(mpcGroup).min(1).max(20)]).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.keyManagement === 'HSM' && v.hierarchy === 'BIP44')
      ctx.addIssue({
        code: 'custom',
        path: ['hierarchy'],
        message:
          'an HSM vault has hierarchy NONE: an HD seed kept in a token (wallets derived inside the HSM) is out of scope, ' +
          'and a seed outside it would not be HSM custody',
      })
    if (v.keyManagement === 'MPC') {
      if (!v.mpcAccountID) ctx.addIssue({ code: 'custom', path: ['mpcAccountID'], message: 'required for MPC vaults' })
      if (!v.mpcGroups) ctx.addIssue({ code: 'custom', path: ['mpcGroups'], message: 'required for MPC vaults' })
      const vaultIds = new Set(v.mpcVaultID === undefined ? [] : [v.mpcVaultID])
      groupsOf(v.mpcGroups).forEach((g, i) => {
        if (g.requiredApprovals > g.members.length)
          ctx.addIssue({ code: 'custom', path: ['mpcGroups', i, 'requiredApprovals'], message: 'exceeds the number of members' })
        // The spec also lists mpcAccountID and mpcVaultID under mpcGroups: they must agree with the vault's.
        if (g.mpcAccountID !== undefined && g.mpcAccountID !== v.mpcAccountID)
          ctx.addIssue({ code: 'custom', path: ['mpcGroups', i, 'mpcAccountID'], message: 'differs from the vault’s mpcAccountID' })
        if (g.mpcVaultID !== undefined) vaultIds.add(g.mpcVaultID)
      })
      if (vaultIds.size > 1) ctx.addIssue({ code: 'custom', path: ['mpcVaultID'], message: 'the mpcVaultID values given disagree' })
    } else {
      for (const f of ['mpcAccountID', 'mpcVaultID', 'mpcGroups'] as const)
        if (v[f] !== undefined) ctx.addIssue({ code: 'custom', path: [f], message: 'only for MPC vaults' })
    }
  })

/** The groups of `mpcGroups`, which may be one object or an array. */
export function groupsOf(mpcGroups: z.output<typeof mpcGroup> | z.output<typeof mpcGroup>[] | undefined): z.output<typeof mpcGroup>[] {
  return mpcGroups === undefined ? [] : Array.isArray(mpcGroups) ? mpcGroups : [mpcGroups]
}

export const getVaultsQuery = z.strictObject({
  id: id.optional(),
  parentID: id.optional(),
  mpcAccountID: id.optional(),
  mpcVaultID: id.optional(),
  ...page,
})

export const deleteVault = z.strictObject({ _id: id })

export const createVaultWalletParams = z.strictObject({ vaultID: id })
export const initializeVaultParams = z.strictObject({ vaultID: id })
export const initializeVault = z.strictObject({})

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
    mnemonic: z
      .string()
      .optional()
      .meta({ description: 'The BIP39 mnemonic, in plaintext: only in the create response of an ECS + BIP44 vault, once.' }),
    keyManagement: z.enum(['ECS', 'MPC', 'HSM']),
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
export const deleteVaultResponse = z.strictObject({
  wallets: z.array(walletView).meta({ description: 'The removed wallets of the vault (removed together with it, all or nothing).' }),
})

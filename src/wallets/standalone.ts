/** A new wallet outside any vault: what Generate Identity Wallet and a new role's wallet share. */
import type { StagedKey } from '../keys/port.js'
import { buildWallet } from './build.js'
import type { WalletConfig } from './config-schemas.js'
import { keyBackendOf, keyTypeOfConfig, networkForNewWallet } from './config.js'
import type { WalletsContext } from './context.js'
import type { WalletRecord } from './records.js'

/** What a wallet outside any vault is made of: its tenant, alias and `walletConfig` (checked by `checkWalletConfig`). */
export interface StandaloneWallet {
  tenantId: string
  alias?: string
  walletConfig?: WalletConfig
  /** The wallet backs a role (its DID is the role DID). */
  role?: true
}

/**
 * A wallet outside any vault, not stored yet: the network its `walletConfig.apiUrl` names, a key of its key type staged
 * in the backend its `keyManagement` names (`HSM`: `hsm`), its record built. The caller stores both in one transaction
 * (`key.store(tx)` beside the record's insert), so a wallet that is not stored leaves no key behind.
 */
export async function stageStandaloneWallet(
  ctx: Pick<WalletsContext, 'config' | 'keyManager' | 'now' | 'registries'>,
  input: StandaloneWallet,
): Promise<{ record: WalletRecord; key: StagedKey }> {
  const { tenantId, walletConfig } = input
  const network = networkForNewWallet(ctx, walletConfig)
  const key = await ctx.keyManager.stageKey({ tenantId, type: keyTypeOfConfig(walletConfig), ...keyBackendOf(walletConfig?.keyManagement) })
  const record = await buildWallet(ctx, {
    tenantId,
    key,
    alias: input.alias,
    walletConfig,
    network,
    ...(walletConfig?.keyManagement === 'HSM' && { keyManagement: 'HSM' as const }),
    ...(input.role && { role: true }),
  })
  return { record, key }
}

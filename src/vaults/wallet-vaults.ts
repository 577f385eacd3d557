/** The vaults' side of {@link WalletVaults}: a wallet's vault template, read from the stored vault. */
import { tenantCollectionOf } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import type { WalletConfig } from '../wallets/config-schemas.js'
import type { WalletVaults } from '../wallets/context.js'
import { VAULTS } from './records.js'

export class StoredWalletVaults implements WalletVaults {
  constructor(private readonly storage: StorageAdapter) {}

  async walletConfigOf(tenantId: string, vaultId: string): Promise<WalletConfig | undefined> {
    return (await tenantCollectionOf(this.storage, VAULTS, tenantId).get(vaultId))?.walletConfig
  }
}

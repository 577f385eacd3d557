/** The tenant's wallets, as the screens that act as one of them list them. */
import type { WalletView } from '../../client/index.js'
import type { ScreenProps } from '../screen.js'

/** Most wallets listed to pick from (pages of the API are followed up to this many). */
export const MAX_WALLETS = 2_000

/** The tenant's wallets, oldest first, up to {@link MAX_WALLETS}. */
export async function tenantWallets(props: ScreenProps): Promise<WalletView[]> {
  const wallets: WalletView[] = []
  let cursor: string | undefined
  do {
    const page = await props.client.getWallets({ limit: 500, ...(cursor !== undefined && { cursor }) })
    wallets.push(...page.wallets)
    cursor = page.nextCursor
  } while (cursor !== undefined && wallets.length < MAX_WALLETS)
  return wallets
}

/** A wallet's name in a list: its alias and DID. */
export const walletLabel = (wallet: WalletView): string => (wallet.alias ? `${wallet.alias} — ${wallet.did}` : wallet.did)

/** A labelled `<select>` of the tenant's wallets (the DID the screen acts as). */
import type { WalletView } from '../../client/index.js'
import { walletLabel } from './wallets.js'

export interface WalletSelectProps {
  id: string
  label: string
  wallets: WalletView[]
  value: string
  onChange: (did: string) => void
}

export function WalletSelect({ id, label, wallets, value, onChange }: WalletSelectProps) {
  return (
    <p class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        {wallets.length === 0 && <option value="">(no wallet: create one under Vaults &amp; wallets)</option>}
        {wallets.map((wallet) => (
          <option key={wallet.did} value={wallet.did}>
            {walletLabel(wallet)}
          </option>
        ))}
      </select>
    </p>
  )
}

/** The vaults screen. */
import type { ScreenProps } from '../screen.js'

export function VaultsScreen(_props: ScreenProps) {
  return <p class="muted">Loading…</p>
}

/** The credentials screen. */
import type { ScreenProps } from '../screen.js'

export function CredentialsScreen(_props: ScreenProps) {
  return <p class="muted">Loading…</p>
}

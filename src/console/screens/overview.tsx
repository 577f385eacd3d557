/** The overview screen. */
import type { ScreenProps } from '../screen.js'

export function OverviewScreen(_props: ScreenProps) {
  return <p class="muted">Loading…</p>
}

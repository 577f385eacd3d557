/** The console's screens, in navigation order (the first is shown after sign-in). One line per screen. */
import type { Screen } from '../screen.js'
import { CredentialsScreen } from './credentials.js'
import { OverviewScreen } from './overview.js'
import { VaultsScreen } from './vaults.js'

export const SCREENS: Screen[] = [
  { id: 'overview', title: 'Overview', component: OverviewScreen },
  { id: 'vaults', title: 'Vaults & wallets', component: VaultsScreen },
  { id: 'credentials', title: 'Credentials', component: CredentialsScreen },
]

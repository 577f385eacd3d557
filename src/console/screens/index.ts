/** The console's screens, in navigation order (the first is shown after sign-in). One line per screen. */
import type { Screen } from '../screen.js'
import { AuditScreen } from './audit.js'
import { CredentialsScreen } from './credentials.js'
import { OpenIdScreen } from './openid.js'
import { OverviewScreen } from './overview.js'
import { RolesScreen } from './roles.js'
import { StatusListsScreen } from './status-lists.js'
import { VaultsScreen } from './vaults.js'

export const SCREENS: Screen[] = [
  { id: 'overview', title: 'Overview', component: OverviewScreen },
  { id: 'vaults', title: 'Vaults & wallets', component: VaultsScreen },
  { id: 'credentials', title: 'Credentials', component: CredentialsScreen },
  { id: 'roles', title: 'Roles', component: RolesScreen },
  { id: 'status-lists', title: 'Status lists', component: StatusListsScreen },
  { id: 'openid', title: 'Issue & verify (OpenID)', component: OpenIdScreen },
  { id: 'audit', title: 'Audit trail', component: AuditScreen },
]

/** The screens of helper "ui2", as the shell lists them (`SCREENS` in ./index.ts). */
import type { Screen } from '../screen.js'
import { AuditScreen } from './audit.js'
import { OpenIdScreen } from './openid.js'
import { RolesScreen } from './roles.js'
import { StatusListsScreen } from './status-lists.js'

export const ROLES_SCREEN: Screen = { id: 'roles', title: 'Roles', component: RolesScreen }
export const STATUS_LISTS_SCREEN: Screen = { id: 'status-lists', title: 'Status lists', component: StatusListsScreen }
export const OPENID_SCREEN: Screen = { id: 'openid', title: 'Issue & verify (OpenID)', component: OpenIdScreen }
export const AUDIT_SCREEN: Screen = { id: 'audit', title: 'Audit trail', component: AuditScreen }

/**
 * Every decision of the access policy and the grounds that allow it: the union of the domains'
 * slices. docs/access-control.md lists exactly this table (a test holds the two together).
 */
import type { RuleBook } from '../auth/policy-engine.js'
import { CREDENTIAL_RULES } from '../credentials/policy.js'
import { PRESENTATION_RULES } from '../presentations/policy.js'
import { ROLE_RULES } from '../roles/policy.js'
import { STATUS_RULES } from '../status/policy.js'
import { VAULT_RULES } from '../vaults/policy.js'
import { WALLET_RULES } from '../wallets/policy.js'

export const RULES = {
  ...VAULT_RULES,
  ...WALLET_RULES,
  ...ROLE_RULES,
  ...CREDENTIAL_RULES,
  ...STATUS_RULES,
  ...PRESENTATION_RULES,
} satisfies RuleBook

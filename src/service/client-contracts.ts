/**
 * The operations an application calls — every operation but the wallet-facing OID4VCI/OID4VP endpoints — declared once
 * (see `contracts.ts`). `didvault/client` is made of these alone, so a browser bundle carries no wallet protocol's
 * schemas. Browser-safe: schemas and types only.
 */
import { AUDIT_CONTRACTS } from '../audit/contracts.js'
import { CREDENTIAL_CONTRACTS } from '../credentials/contracts.js'
import { OID4VCI_CONTRACTS } from '../oid4vci/contracts.js'
import { OID4VP_CONTRACTS } from '../oid4vp/contracts.js'
import { OVERVIEW_CONTRACTS } from './overview-contracts.js'
import { PRESENTATION_CONTRACTS } from '../presentations/contracts.js'
import { ROLE_CONTRACTS } from '../roles/contracts.js'
import { STATUS_CONTRACTS } from '../status/contracts.js'
import { TOKEN_CONTRACTS } from '../tokens/contracts.js'
import { VAULT_CONTRACTS } from '../vaults/contracts.js'
import { WALLET_CONTRACTS } from '../wallets/contracts.js'

export const CLIENT_CONTRACTS = {
  ...TOKEN_CONTRACTS,
  ...WALLET_CONTRACTS,
  ...VAULT_CONTRACTS,
  ...ROLE_CONTRACTS,
  ...CREDENTIAL_CONTRACTS,
  ...STATUS_CONTRACTS,
  ...PRESENTATION_CONTRACTS,
  ...AUDIT_CONTRACTS,
  ...OVERVIEW_CONTRACTS,
  ...OID4VCI_CONTRACTS,
  ...OID4VP_CONTRACTS,
}

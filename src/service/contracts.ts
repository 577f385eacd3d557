/**
 * Every operation of the service, declared once: its contract (summary, auth, routes, schemas,
 * batch field, example). `IdentityService` methods, the Express routes, `GET /openapi.json` and
 * the HTTP client (`didvault/client`) are all generated from these, so they cannot drift; the
 * handlers are paired with them in `table.ts`. Browser-safe: schemas and types only.
 */
import { AUDIT_CONTRACTS } from '../audit/contracts.js'
import { CREDENTIAL_CONTRACTS } from '../credentials/contracts.js'
import { OID4VCI_CONTRACTS } from '../oid4vci/contracts.js'
import { OID4VP_CONTRACTS } from '../oid4vp/contracts.js'
import { PRESENTATION_CONTRACTS } from '../presentations/contracts.js'
import { ROLE_CONTRACTS } from '../roles/contracts.js'
import { STATUS_CONTRACTS } from '../status/contracts.js'
import { TOKEN_CONTRACTS } from '../tokens/contracts.js'
import { VAULT_CONTRACTS } from '../vaults/contracts.js'
import { WALLET_CONTRACTS } from '../wallets/contracts.js'

export const CONTRACTS = {
  ...TOKEN_CONTRACTS,
  ...WALLET_CONTRACTS,
  ...VAULT_CONTRACTS,
  ...ROLE_CONTRACTS,
  ...CREDENTIAL_CONTRACTS,
  ...STATUS_CONTRACTS,
  ...PRESENTATION_CONTRACTS,
  ...AUDIT_CONTRACTS,
  ...OID4VCI_CONTRACTS,
  ...OID4VP_CONTRACTS,
}

/** The names of the operations. */
export type OperationName = keyof typeof CONTRACTS

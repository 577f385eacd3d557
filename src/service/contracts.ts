/**
 * Every operation of the service, declared once: its contract (summary, auth, routes, schemas,
 * batch field, example). `IdentityService` methods, the Express routes, `GET /openapi.json` and
 * the HTTP client (`didvault/client`) are all generated from these, so they cannot drift; the
 * handlers are paired with them in `table.ts`. Browser-safe: schemas and types only.
 */
import { OID4VCI_WALLET_CONTRACTS } from '../oid4vci/wallet-contracts.js'
import { OID4VP_WALLET_CONTRACTS } from '../oid4vp/wallet-contracts.js'
import { CLIENT_CONTRACTS } from './client-contracts.js'

/** Every operation: those an application calls (`client-contracts.ts`) and the endpoints wallets call. */
export const CONTRACTS = { ...CLIENT_CONTRACTS, ...OID4VCI_WALLET_CONTRACTS, ...OID4VP_WALLET_CONTRACTS }

/** The names of the operations. */
export type OperationName = keyof typeof CONTRACTS

/**
 * `didvault/client`: a typed HTTP client of `didvault serve` (or of an app mounting
 * `createRouter`), for Node services, Electron renderers and browsers. It imports no Node
 * built-in (it uses the global `fetch`) and none of the service's code beyond its browser-safe
 * operation contracts and schemas.
 */
export {
  createClient,
  type AuthSource,
  type ClientOperations,
  type ClientOptions,
  type DidvaultClient,
  type OpenApiDocument,
} from './create-client.js'
export { TransportError } from './transport-error.js'
export { IdentityError, type ErrorBody, type ErrorType } from '../errors.js'
export type { AuthContext } from '../auth/context.js'
export { CLIENT_CONTRACTS } from '../service/client-contracts.js'
export type { OperationName } from '../service/contracts.js'
export type { OperationContract, OperationInput, OperationOutput, Route } from '../operations/contract.js'
export type { DidResolution, WalletView } from '../wallets/schemas.js'
export type { VaultView } from '../vaults/schemas.js'
export type { AssignmentView, Permission, RoleView } from '../roles/schemas.js'
export type { DidAuthToken } from '../tokens/schemas.js'
export type { SignedCredential, StoredCredential, VerificationCheck, VerifiedCredential } from '../credentials/schemas.js'
export type { WalletConfig, TxInput } from '../wallets/config-schemas.js'

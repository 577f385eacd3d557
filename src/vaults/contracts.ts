/**
 * The contracts of the operations on identity vaults (MPC ones included) (see `operations/contract.ts`): summary,
 * auth, tag, errors, routes, schemas, batch field, example. Browser-safe: schemas and types only.
 */
import { BODY_ERRORS, QUERY_ERRORS, defineContract } from '../operations/contract.js'
import {
  createVault,
  createVaultWallet,
  createVaultWalletParams,
  deleteVault,
  deleteVaultResponse,
  getVaultsQuery,
  initializeVault,
  initializeVaultParams,
  vaultResponse,
  vaultsPage,
} from './schemas.js'
import { walletResponse } from '../wallets/schemas.js'

const TAG = 'Identity vaults'

export const VAULT_CONTRACTS = {
  /** Create Identity Vault (`POST /vaults`): ECS vaults get their first wallet at once; a BIP44 vault's mnemonic is returned once. */
  createVault: defineContract({
    summary: 'Create Identity Vault',
    description:
      'ECS vaults are `INITIALIZED` with their first wallet (index 0 for BIP44). The mnemonic of an ECS + BIP44 vault is ' +
      'in this response only, in plaintext, once; it is stored sealed.',
    auth: 'tenant',
    tag: TAG,
    audit: { action: 'vault.create', target: 'vault' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/vaults' }],
    input: createVault,
    response: vaultResponse,
    example: { name: 'Treasury', description: 'Company wallets', hierarchy: 'BIP44', keyManagement: 'ECS' },
  }),
  /** Get Identity Vaults (`GET /vaults`): the tenant's vaults with their wallets, filtered and paged. */
  getVaults: defineContract({
    summary: 'Get Identity Vaults',
    description:
      'The tenant’s vaults with their wallets, oldest first, filtered by `id`, `parentID`, `mpcAccountID`, `mpcVaultID`; ' +
      'with `parentID`, MPC vaults are included only when `mpcAccountID` is given too. At most `limit` vaults per page; ' +
      '`nextCursor` when more follow.',
    auth: 'tenant',
    tag: TAG,
    errors: QUERY_ERRORS,
    routes: [{ method: 'get', path: '/vaults' }],
    input: getVaultsQuery,
    response: vaultsPage,
  }),
  /** Delete Identity Vault (`DELETE /vaults`): the vault and its wallets, in one transaction. */
  deleteVault: defineContract({
    summary: 'Delete Identity Vault',
    description:
      'Removes the vault and its wallets (with their generated delegate keys) in one transaction: all or nothing, so no ' +
      'per-wallet failure can occur. Needs vault control. A vault with child vaults is refused (422 CONFLICT).',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'vault.delete', target: 'vault', targetField: '_id' },
    errors: BODY_ERRORS,
    routes: [{ method: 'delete', path: '/vaults' }],
    input: deleteVault,
    response: deleteVaultResponse,
    example: { _id: '4f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21' },
  }),
  /** Create Identity Vault's Wallet (`POST /vaults/:vaultID/wallet`): the next BIP44 wallet of a vault the caller controls. */
  createVaultWallet: defineContract({
    summary: "Create Identity Vault's Wallet",
    description:
      'Derives the wallet of the next BIP44 index (unique and gap-free) in a vault the caller controls (a token signed ' +
      'by the own key of one of its wallets). The vault’s `walletConfig` applies, extended or overridden by the ' +
      'request’s.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'wallet.create', target: 'vault', targetField: 'vaultID' },
    errors: { ...BODY_ERRORS, 409: 'VAULT_NOT_INITIALIZED: the MPC vault is not initialized yet' },
    routes: [{ method: 'post', path: '/vaults/:vaultID/wallet' }],
    params: createVaultWalletParams,
    input: createVaultWallet,
    response: walletResponse,
    example: { wallet: { alias: 'payroll' } },
  }),
  /**
   * Initialize Identity Vault (`POST /vaults/:vaultID/initialize`, DESIGN §4): an MPC vault's key is created under its quorum policy →
   * `INITIALIZED`.
   */
  initializeVault: defineContract({
    summary: 'Initialize Identity Vault',
    description:
      'Asks the MPC provider to create the key of an MPC vault under its quorum policy; the vault becomes `INITIALIZED` ' +
      'and keeps its (account) public key, from which its wallets derive. Needs DID-auth tokens in `x-did-auth` from ' +
      '`requiredApprovals` distinct members of one of its groups (403 FORBIDDEN naming how many are missing). ' +
      'Idempotent: an initialized vault is returned unchanged. An ECS vault: 422.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'mpc.initialize', target: 'vault', targetField: 'vaultID' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/vaults/:vaultID/initialize' }],
    params: initializeVaultParams,
    input: initializeVault,
    response: vaultResponse,
    example: {},
  }),
}

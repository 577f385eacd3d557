/**
 * Every operation of the service, declared once. `IdentityService` methods, the Express
 * routes and `GET /openapi.json` are all generated from this table, so they cannot drift.
 * Adding an operation is one entry here and one handler.
 */
import * as s from '../schemas/index.js'
import { defineOperation } from './define.js'
import * as claimsSign from './claims-sign.js'
import * as claimsVerify from './claims-verify.js'
import * as tokens from './tokens.js'
import * as vaults from './vaults.js'
import * as wallets from './wallets.js'

export const OPERATIONS = {
  // ---- DID-auth tokens

  /** Generate Token (`POST /did-auth-jwt`): a DID-auth token (JWT and JSON-LD) for a wallet of the caller's tenant; send its `jwt` as `x-did-auth`. */
  generateToken: defineOperation({
    summary: 'Generate Token',
    description: 'Issues a DID-auth token for `iss`, a wallet DID of the tenant: a DIDAuthCredential as JWT (ES256K-R) and JSON-LD. Default lifetime 15 minutes, at most 24 hours. Requires a Base Auth Token (a deviation from the spec, which lists none: otherwise anyone could mint tokens for any DID the service holds).',
    auth: 'tenant',
    routes: [{ method: 'post', path: '/did-auth-jwt' }],
    input: s.generateToken,
    response: s.didAuthToken,
    example: { iss: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72', expiresIn: 600_000 },
    handler: tokens.generateToken,
  }),

  // ---- Identity wallets

  /** Get Identity Wallets (`GET /wallets`, alias `GET /wallet`): the tenant's wallets, filtered by `vaultId`, `did`, `alias`, paged. */
  getWallets: defineOperation({
    summary: 'Get Identity Wallets',
    description: 'The tenant’s wallets, oldest first, filtered by `vaultId`, `did`, `alias` (all optional), at most `limit` per page; `nextCursor` is present when more follow.',
    auth: 'tenant',
    routes: [
      { method: 'get', path: '/wallets' },
      { method: 'get', path: '/wallet' },
    ],
    input: s.getWalletsQuery,
    response: s.walletsPage,
    handler: wallets.getWallets,
  }),

  /** Generate Identity Wallet (`POST /wallet`): a fresh key pair and DID, not in a vault. */
  generateWallet: defineOperation({
    summary: 'Generate Identity Wallet',
    description: 'A fresh secp256k1 key (sealed at rest) and its did:ethr DID, not in a vault. A `walletConfig.txsInput` is applied to the new DID’s document; the response’s `registry` says what was recorded.',
    auth: 'tenant',
    routes: [{ method: 'post', path: '/wallet' }],
    input: s.generateWallet,
    response: s.generatedWalletResponse,
    example: { wallet: { alias: 'alice' }, walletConfig: { txsInput: [{ service: { name: 'Hub', value: 'https://hub.example.com', validity: 86_400_000 } }] } },
    handler: wallets.generateWallet,
  }),

  /** Configure Identity Wallet (`POST /wallet/configure`): applies a `walletConfig` to the DID document of a wallet the caller controls. */
  configureWallet: defineOperation({
    summary: 'Configure Identity Wallet',
    description: 'Applies `walletConfig.txsInput` (new owner, delegate, service endpoint) to the DID document of a wallet the caller controls: by vault control (a token signed by the own key of a wallet of its vault) or by DID control (a token signed by the DID’s current owner key). The service signs the change with the owner key it holds; when the owner key is outside the service: 403 naming the owner.',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/wallet/configure' }],
    input: s.configureWallet,
    response: s.walletResponse,
    example: { wallet: { did: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72' }, walletConfig: { txsInput: [{ delegate: { validity: 3_600_000 } }] } },
    handler: wallets.configureWallet,
  }),

  /** Rename Identity Wallet (`POST /wallet/rename`): each item renamed, or reported in `errors`. */
  renameWallets: defineOperation({
    summary: 'Rename Identity Wallet',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/wallet/rename' }],
    input: s.renameWallets,
    batch: 'wallets',
    response: s.renameWalletsResponse,
    example: { wallets: [{ did: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72', alias: 'savings' }] },
    handler: wallets.renameWallets,
  }),

  /** Delete Identity Wallet (`DELETE /wallet`): each wallet removed, or reported in `errors`. */
  deleteWallets: defineOperation({
    summary: 'Delete Identity Wallet',
    auth: 'tenant+did',
    routes: [{ method: 'delete', path: '/wallet' }],
    input: s.deleteWallets,
    batch: 'ids',
    response: s.deleteWalletsResponse,
    example: { ids: ['did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72'] },
    handler: wallets.deleteWallets,
  }),

  // ---- Identity vaults

  /** Create Identity Vault (`POST /vaults`): ECS vaults get their first wallet at once; a BIP44 vault's mnemonic is returned once. */
  createVault: defineOperation({
    summary: 'Create Identity Vault',
    description: 'ECS vaults are `INITIALIZED` with their first wallet (index 0 for BIP44). The mnemonic of an ECS + BIP44 vault is in this response only, in plaintext, once; it is stored sealed.',
    auth: 'tenant',
    routes: [{ method: 'post', path: '/vaults' }],
    input: s.createVault,
    response: s.vaultResponse,
    example: { name: 'Treasury', description: 'Company wallets', hierarchy: 'BIP44', keyManagement: 'ECS' },
    handler: vaults.createVault,
  }),

  /** Get Identity Vaults (`GET /vaults`): the tenant's vaults with their wallets, filtered and paged. */
  getVaults: defineOperation({
    summary: 'Get Identity Vaults',
    description: 'The tenant’s vaults with their wallets, oldest first, filtered by `id`, `parentID`, `mpcAccountID`, `mpcVaultID`; with `parentID`, MPC vaults are included only when `mpcAccountID` is given too. At most `limit` vaults per page; `nextCursor` when more follow.',
    auth: 'tenant',
    routes: [{ method: 'get', path: '/vaults' }],
    input: s.getVaultsQuery,
    response: s.vaultsPage,
    handler: vaults.getVaults,
  }),

  /** Delete Identity Vault (`DELETE /vaults`): the vault and its wallets, in one transaction. */
  deleteVault: defineOperation({
    summary: 'Delete Identity Vault',
    description: 'Removes the vault and its wallets (with their generated delegate keys) in one transaction: all or nothing, so no per-wallet failure can occur. Needs vault control. A vault with child vaults is refused (422 CONFLICT).',
    auth: 'tenant+did',
    routes: [{ method: 'delete', path: '/vaults' }],
    input: s.deleteVault,
    response: s.deleteVaultResponse,
    example: { _id: '4f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21' },
    handler: vaults.deleteVault,
  }),

  /** Create Identity Vault's Wallet (`POST /vaults/:vaultID/wallet`): the next BIP44 wallet of a vault the caller controls. */
  createVaultWallet: defineOperation({
    summary: "Create Identity Vault's Wallet",
    description: 'Derives the wallet of the next BIP44 index (unique and gap-free) in a vault the caller controls (a token signed by the own key of one of its wallets). The vault’s `walletConfig` applies, extended or overridden by the request’s.',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/vaults/:vaultID/wallet' }],
    params: s.createVaultWalletParams,
    input: s.createVaultWallet,
    response: s.walletResponse,
    example: { wallet: { alias: 'payroll' } },
    handler: vaults.createVaultWallet,
  }),

  // ---- Verifiable credentials

  /** Sign Verifiable Credentials (`POST /claims/sign`): credentials issued by a wallet of the tenant the caller controls, as JSON-LD or JWT. */
  signClaims: defineOperation({
    summary: 'Sign Verifiable Credentials',
    description:
      'Issues one credential per claim, signed by `iss` (a wallet DID of the tenant the caller controls; the key of its DID’s current owner signs, as `<iss>#controller`). `format` `JSON-LD` (default; proof `EcdsaKoblitzSignature2016`, or `proofType: "EcdsaSecp256k1RecoverySignature2020"`) or `JWT` (did-jwt-vc, ES256K). A claim without `id` gets a new claim DID, a wallet of the tenant named by `alias`, whose document takes the claim’s `walletConfig`. Claim-level `exp`/`expiresIn`/`expirationDate` win over global ones; two at one level are 422; none: no expiration. Contexts must be bundled or registered (never fetched). Nothing is written when a claim is refused.',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/claims/sign' }],
    input: s.signClaims,
    batch: 'claims',
    response: s.signClaimsResponse,
    example: {
      iss: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72',
      format: 'JWT',
      sub: 'did:ethr:dev:0x4d2a1b7b5e9d3e0c0b3b8b5a6f1c2d3e4f5a6b7c',
      expiresIn: 86_400_000,
      claims: [{ alias: 'membership-2025', type: 'MembershipCredential', payload: { member: true } }],
    },
    handler: claimsSign.signClaims,
  }),

  /** Patch Verifiable Credentials (`PATCH /claims`): the operation `operation` names (`verify`). */
  patchClaims: defineOperation({
    summary: 'Patch Verifiable Credentials',
    description:
      'Carries `operation`. `verify`: each credential of `claims` (or `vcs`), `{ jsonld }` or `{ jwt }`, is answered with `verified`, its `issuer` and the named `checks` (every proof by a key of the issuer’s current DID document — its owner or a live veriKey/sigAuth delegate —, `issuanceDate`/`nbf` not in the future, `expirationDate`/`exp` not past). An invalid credential is `verified: false` in the 200. `resolver` names the DID resolver used and is echoed.',
    auth: 'tenant+did',
    routes: [{ method: 'patch', path: '/claims' }],
    input: s.patchClaims,
    batch: ['claims', 'vcs'],
    response: s.verifyClaimsResponse,
    example: { operation: 'verify', claims: [{ jwt: 'eyJhbGciOiJFUzI1NksiLCJ0eXAiOiJKV1QifQ.eyJ2YyI6e319.c2ln' }] },
    handler: claimsVerify.patchClaims,
  }),

  /** Verify Verifiable Credentials (`POST /claims/verify`): `PATCH /claims` with `operation: "verify"`, without the need to say so. */
  verifyClaims: defineOperation({
    summary: 'Verify Verifiable Credentials',
    description: 'The unambiguous form of `PATCH /claims` with `operation: "verify"` (`operation` may be omitted).',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/claims/verify' }],
    input: s.verifyClaims,
    batch: ['claims', 'vcs'],
    response: s.verifyClaimsResponse,
    example: { resolver: 'default', claims: [{ jwt: 'eyJhbGciOiJFUzI1NksiLCJ0eXAiOiJKV1QifQ.eyJ2YyI6e319.c2ln' }] },
    handler: claimsVerify.verifyClaims,
  }),
}

/** The names of the operations. */
export type OperationName = keyof typeof OPERATIONS

/**
 * Every operation of the service, declared once: its contract (summary, auth, routes, schemas,
 * batch field, example). `IdentityService` methods, the Express routes, `GET /openapi.json` and
 * the HTTP client (`didvault/client`) are all generated from these, so they cannot drift; the
 * handlers are paired with them in `table.ts`. Browser-safe: schemas and types only.
 */
import * as s from '../schemas/index.js'
import { defineContract } from '../operations/contract.js'

export const CONTRACTS = {
  // ---- DID-auth tokens

  /** Generate Token (`POST /did-auth-jwt`): a DID-auth token (JWT and JSON-LD) for a wallet of the caller's tenant; send its `jwt` as `x-did-auth`. */
  generateToken: defineContract({
    summary: 'Generate Token',
    description: 'Issues a DID-auth token for `iss`, a wallet DID of the tenant: a DIDAuthCredential as JWT (ES256K-R) and JSON-LD. Default lifetime 15 minutes, at most 24 hours. Requires a Base Auth Token (a deviation from the spec, which lists none: otherwise anyone could mint tokens for any DID the service holds).',
    auth: 'tenant',
    routes: [{ method: 'post', path: '/did-auth-jwt' }],
    input: s.generateToken,
    response: s.didAuthToken,
    example: { iss: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72', expiresIn: 600_000 },
  }),

  // ---- Identity wallets

  /** Get Identity Wallets (`GET /wallets`, alias `GET /wallet`): the tenant's wallets, filtered by `vaultId`, `did`, `alias`, paged. */
  getWallets: defineContract({
    summary: 'Get Identity Wallets',
    description: 'The tenant’s wallets, oldest first, filtered by `vaultId`, `did`, `alias` (all optional), at most `limit` per page; `nextCursor` is present when more follow.',
    auth: 'tenant',
    routes: [
      { method: 'get', path: '/wallets' },
      { method: 'get', path: '/wallet' },
    ],
    input: s.getWalletsQuery,
    response: s.walletsPage,
  }),

  /** Generate Identity Wallet (`POST /wallet`): a fresh key pair and DID, not in a vault. */
  generateWallet: defineContract({
    summary: 'Generate Identity Wallet',
    description: 'A fresh secp256k1 key (sealed at rest) and its did:ethr DID, not in a vault. A `walletConfig.txsInput` is applied to the new DID’s document; the response’s `registry` says what was recorded.',
    auth: 'tenant',
    routes: [{ method: 'post', path: '/wallet' }],
    input: s.generateWallet,
    response: s.generatedWalletResponse,
    example: { wallet: { alias: 'alice' }, walletConfig: { txsInput: [{ service: { name: 'Hub', value: 'https://hub.example.com', validity: 86_400_000 } }] } },
  }),

  /** Configure Identity Wallet (`POST /wallet/configure`): applies a `walletConfig` to the DID document of a wallet the caller controls. */
  configureWallet: defineContract({
    summary: 'Configure Identity Wallet',
    description: 'Applies `walletConfig.txsInput` (new owner, delegate, service endpoint) to the DID document of a wallet the caller controls: by vault control (a token signed by the own key of a wallet of its vault) or by DID control (a token signed by the DID’s current owner key). The service signs the change with the owner key it holds; when the owner key is outside the service: 403 naming the owner.',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/wallet/configure' }],
    input: s.configureWallet,
    response: s.walletResponse,
    example: { wallet: { did: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72' }, walletConfig: { txsInput: [{ delegate: { validity: 3_600_000 } }] } },
  }),

  /** Rename Identity Wallet (`POST /wallet/rename`): each item renamed, or reported in `errors`. */
  renameWallets: defineContract({
    summary: 'Rename Identity Wallet',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/wallet/rename' }],
    input: s.renameWallets,
    batch: 'wallets',
    response: s.renameWalletsResponse,
    example: { wallets: [{ did: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72', alias: 'savings' }] },
  }),

  /** Delete Identity Wallet (`DELETE /wallet`): each wallet removed, or reported in `errors`. */
  deleteWallets: defineContract({
    summary: 'Delete Identity Wallet',
    auth: 'tenant+did',
    routes: [{ method: 'delete', path: '/wallet' }],
    input: s.deleteWallets,
    batch: 'ids',
    response: s.deleteWalletsResponse,
    example: { ids: ['did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72'] },
  }),

  // ---- Identity vaults

  /** Create Identity Vault (`POST /vaults`): ECS vaults get their first wallet at once; a BIP44 vault's mnemonic is returned once. */
  createVault: defineContract({
    summary: 'Create Identity Vault',
    description: 'ECS vaults are `INITIALIZED` with their first wallet (index 0 for BIP44). The mnemonic of an ECS + BIP44 vault is in this response only, in plaintext, once; it is stored sealed.',
    auth: 'tenant',
    routes: [{ method: 'post', path: '/vaults' }],
    input: s.createVault,
    response: s.vaultResponse,
    example: { name: 'Treasury', description: 'Company wallets', hierarchy: 'BIP44', keyManagement: 'ECS' },
  }),

  /** Get Identity Vaults (`GET /vaults`): the tenant's vaults with their wallets, filtered and paged. */
  getVaults: defineContract({
    summary: 'Get Identity Vaults',
    description: 'The tenant’s vaults with their wallets, oldest first, filtered by `id`, `parentID`, `mpcAccountID`, `mpcVaultID`; with `parentID`, MPC vaults are included only when `mpcAccountID` is given too. At most `limit` vaults per page; `nextCursor` when more follow.',
    auth: 'tenant',
    routes: [{ method: 'get', path: '/vaults' }],
    input: s.getVaultsQuery,
    response: s.vaultsPage,
  }),

  /** Delete Identity Vault (`DELETE /vaults`): the vault and its wallets, in one transaction. */
  deleteVault: defineContract({
    summary: 'Delete Identity Vault',
    description: 'Removes the vault and its wallets (with their generated delegate keys) in one transaction: all or nothing, so no per-wallet failure can occur. Needs vault control. A vault with child vaults is refused (422 CONFLICT).',
    auth: 'tenant+did',
    routes: [{ method: 'delete', path: '/vaults' }],
    input: s.deleteVault,
    response: s.deleteVaultResponse,
    example: { _id: '4f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21' },
  }),

  /** Create Identity Vault's Wallet (`POST /vaults/:vaultID/wallet`): the next BIP44 wallet of a vault the caller controls. */
  createVaultWallet: defineContract({
    summary: "Create Identity Vault's Wallet",
    description: 'Derives the wallet of the next BIP44 index (unique and gap-free) in a vault the caller controls (a token signed by the own key of one of its wallets). The vault’s `walletConfig` applies, extended or overridden by the request’s.',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/vaults/:vaultID/wallet' }],
    params: s.createVaultWalletParams,
    input: s.createVaultWallet,
    response: s.walletResponse,
    example: { wallet: { alias: 'payroll' } },
  }),

  // ---- Roles

  /** Get Roles (`GET /roles`): the roles the caller created, owns or holds, filtered by `permissions`, paged. */
  getRoles: defineContract({
    summary: 'Get Roles',
    description: 'The tenant’s roles the caller created, whose role DID it acts through, or that are assigned to a DID it acts through (a DID named by one of its `x-did-auth` tokens and signed by its owner key, not a wallet of another tenant): first the roles it created, oldest first, then the others in DID order. `permissions=Read,Write` keeps the roles whose permissions contain every listed type (case-insensitive; `Write` implies `Read`); unknown names are 422. At most `limit` per page; `nextCursor` when more follow.',
    auth: 'tenant+did',
    routes: [{ method: 'get', path: '/roles' }],
    input: s.getRolesQuery,
    response: s.rolesPage,
  }),

  /** Create Role (`POST /roles`): a role backed by a new wallet of the tenant (its DID is the role DID). */
  createRole: defineContract({
    summary: 'Create Role',
    description: 'Creates a wallet of the tenant (no vault; `wallet.alias` names it, listed by Get Identity Wallets with `role: true`) whose DID is the role DID, and the role: `creator` is the first DID the caller acts through (named by an `x-did-auth` token signed by its owner key; a delegate’s token is not enough). `permissions` are `Read`/`Write`, case-insensitive, an array. `walletConfig` applies to the role DID’s document as for Generate Identity Wallet (`registry` reports it).',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/roles' }],
    input: s.createRole,
    response: s.roleResponse,
    example: { description: 'Auditors', permissions: ['Read'], wallet: { alias: 'auditors' } },
  }),

  /** Update Roles (`PUT /roles`): description and permissions, by the creator or the role DID's owner; failures in `errors`. */
  updateRoles: defineContract({
    summary: 'Update Roles',
    description: 'Body `{ roles: [{ did, description?, permissions? }] }`, or one `{ did, description?, permissions? }`. Only the role’s creator or the holder of the role DID’s owner key may update it; each failure is an element of `errors` (`roleDid`, `message`, `error`), the other items are updated.',
    auth: 'tenant+did',
    routes: [{ method: 'put', path: '/roles' }],
    input: s.updateRoles,
    batch: 'roles',
    response: s.updateRolesResponse,
    example: { roles: [{ did: 'did:ethr:dev:0x4B20993Bc481177ec7E8f571ceCaE8A9e22C02db', permissions: ['Read', 'Write'] }] },
  }),

  /** Delete Roles (`DELETE /roles`): each role with its assignments and its wallet; failures in `errors`. */
  deleteRoles: defineContract({
    summary: 'Delete Roles',
    description: 'Role DIDs (or role `_id`s) in `dids` — an array or one comma-separated string — or in `ids` (the spec’s example), not both. Each role goes with its assignments and its wallet, by its creator or the holder of its owner key; failures are elements of `errors`.',
    auth: 'tenant+did',
    routes: [{ method: 'delete', path: '/roles' }],
    input: s.deleteRoles,
    batch: 'dids',
    response: s.deleteRolesResponse,
    example: { dids: ['did:ethr:dev:0x4B20993Bc481177ec7E8f571ceCaE8A9e22C02db'] },
  }),

  /** Create Role Assignments (`POST /roles/assignmnets`, alias `/roles/assignments`): idempotent; failures in `errors`. */
  createRoleAssignments: defineContract({
    summary: 'Create Role Assignments',
    description: 'Assigns each `role` (a role DID of the tenant) to `did` (a wallet DID of the tenant, or the DID of a credential it stores; anything else is a NOT_FOUND item). Only the role’s creator or the holder of its owner key may assign it. Assigning twice returns the existing assignment. The path is spelled as in the spec; `/roles/assignments` is an alias.',
    auth: 'tenant+did',
    routes: [
      { method: 'post', path: '/roles/assignmnets' },
      { method: 'post', path: '/roles/assignments' },
    ],
    input: s.roleAssignments,
    batch: 'assignments',
    response: s.roleAssignmentsResponse,
    example: { assignments: [{ role: 'did:ethr:dev:0x4B20993Bc481177ec7E8f571ceCaE8A9e22C02db', did: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72' }] },
  }),

  /** Delete Role Assignments (`DELETE /roles/assignmnets`, alias `/roles/assignments`): with the Access Token JWT. */
  deleteRoleAssignments: defineContract({
    summary: 'Delete Role Assignments',
    description: 'Takes the Access Token JWT (`Authorization: Bearer <DID-auth JWT>`, no `x-did-auth`): its `iss` wallet decides the tenant. Only the role’s creator or the holder of its owner key may unassign it; an assignment that is not there is a NOT_FOUND element of `errors`.',
    auth: 'access',
    routes: [
      { method: 'delete', path: '/roles/assignmnets' },
      { method: 'delete', path: '/roles/assignments' },
    ],
    input: s.roleAssignments,
    batch: 'assignments',
    response: s.roleAssignmentsResponse,
    example: { assignments: [{ role: 'did:ethr:dev:0x4B20993Bc481177ec7E8f571ceCaE8A9e22C02db', did: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72' }] },
  }),

  /** List role assignments (extension; `GET /roles/assignmnets`, alias `/roles/assignments`): by `role` and/or `did`, paged. */
  getRoleAssignments: defineContract({
    summary: 'Get Role Assignments',
    description: 'Extension (DESIGN §4): the assignments `{ role, did, createdAt }` of `role` and/or `did` that the caller may see — all of a role it may manage; otherwise those to DIDs it acts through, or, by `did`, those of roles it created or acts through. By `role`: in DID order; by `did` alone: in role order. At most `limit` per page; `nextCursor` when more follow.',
    auth: 'tenant+did',
    routes: [
      { method: 'get', path: '/roles/assignmnets' },
      { method: 'get', path: '/roles/assignments' },
    ],
    input: s.getRoleAssignmentsQuery,
    response: s.roleAssignmentsPage,
  }),

  /** Initialize Identity Vault (`POST /vaults/:vaultID/initialize`, DESIGN §4): an MPC vault's key is created under its quorum policy → `INITIALIZED`. */
  initializeVault: defineContract({
    summary: 'Initialize Identity Vault',
    description:
      'Asks the MPC provider to create the key of an MPC vault under its quorum policy; the vault becomes `INITIALIZED` and keeps its (account) public key, from which its wallets derive. Needs DID-auth tokens in `x-did-auth` from `requiredApprovals` distinct members of one of its groups (403 FORBIDDEN naming how many are missing). Idempotent: an initialized vault is returned unchanged. An ECS vault: 422.',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/vaults/:vaultID/initialize' }],
    params: s.initializeVaultParams,
    input: s.initializeVault,
    response: s.vaultResponse,
    example: {},
  }),

  // ---- Verifiable credentials

  /** Sign Verifiable Credentials (`POST /claims/sign`): credentials issued by a wallet of the tenant the caller controls, as JSON-LD or JWT. */
  signClaims: defineContract({
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
  }),

  /** Store Verifiable Credentials (`POST /claims`): parsed, indexed, optionally verified; idempotent per content. */
  storeClaims: defineContract({
    summary: 'Store Verifiable Credentials',
    description:
      'Stores each credential of `claims` (`{ jsonld }` or `{ jwt }`, with optional `isPublicAccess` and `roles`). A JWT must decode as a VC-JWT; a JSON-LD VC needs `@context`, `type` with `VerifiableCredential`, `issuer`, `credentialSubject`. The signature is checked only with `verify: true` (an invalid credential is then an element of `errors`). `roles` (top level and per claim) must be role DIDs of the tenant that the caller manages (creator or owner of the role DID): otherwise 422 NOT_FOUND / 403 and nothing is stored; they are assigned to the credential’s DID. Storing the same JWT, or the same JSON-LD document with the same proofs, again returns the existing record. `storedBy` holds the DIDs the caller acts through.',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/claims' }],
    input: s.storeClaims,
    batch: 'claims',
    response: s.storeClaimsResponse,
    example: { isPublicAccess: false, claims: [{ jwt: 'eyJhbGciOiJFUzI1NksiLCJ0eXAiOiJKV1QifQ.eyJ2YyI6e319.c2ln' }] },
  }),

  /** Fetch Verifiable Credentials (`GET /claims`): the stored credentials the caller may read, filtered and paged. */
  getClaims: defineContract({
    summary: 'Fetch Verifiable Credentials',
    description:
      'The tenant’s stored credentials the caller may read — public ones, those it stored, issued or is the subject of (through a DID named by its `x-did-auth` tokens), those whose DID its key owns, those a role with Read or Write it holds is listed in or assigned to — filtered by `subject`, `issuer`, `ids` (comma-separated credential ids), `type`; oldest first, at most `limit` per page; `nextCursor` when more follow (a page is never cut short silently). The access set is computed by the database query.',
    auth: 'tenant+did',
    routes: [{ method: 'get', path: '/claims' }],
    input: s.getClaimsQuery,
    response: s.claimsPage,
  }),

  /** Delete Verifiable Credentials (`DELETE /claims`): with the Access Token JWT; failures in `errors`. */
  deleteClaims: defineContract({
    summary: 'Delete Verifiable Credentials',
    description:
      'Takes the Access Token JWT (`Authorization: Bearer <DID-auth JWT>`). Each stored credential of `ids` (`_id`s) may be deleted by the holder of its DID’s owner key or of a role with Write assigned to it; a credential with no DID (no `id`, or a non-DID URI) or whose DID owns itself may also be deleted by whoever stored it. Its role assignments go with it (when no other stored copy has its DID); nothing else changes. Failures are elements of `errors`.',
    auth: 'access',
    routes: [{ method: 'delete', path: '/claims' }],
    input: s.deleteClaims,
    batch: 'ids',
    response: s.deleteClaimsResponse,
    example: { ids: ['4f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21'] },
  }),

  /** Patch Verifiable Credentials (`PATCH /claims`): the operation `operation` names (`verify`). */
  patchClaims: defineContract({
    summary: 'Patch Verifiable Credentials',
    description:
      'Carries `operation`: `verify`, `addProof` or `removeProof` (extension). `addProof`: each JSON-LD credential of `claims` (or `vcs`) — a stored one by `_id`, or a given `jsonld` (the tenant’s stored records with its `id` are updated too) — gets a proof by `iss` (a wallet of the tenant the caller controls; default the first DID the caller acts through), appended to its proof set; the caller must hold the owner key of the credential’s DID or a role with Write assigned to it (spec rule 5); a JWT cannot take a second proof (422 per item). `removeProof`: removes, under the same rule, the proofs whose `creator`/`verificationMethod` names a DID whose owner key the caller holds. Failures of add/remove are elements of `errors`. `verify`: each credential of `claims` (or `vcs`), `{ jsonld }` or `{ jwt }`, is answered with `verified`, its `issuer` and the named `checks` (every proof by a key of the issuer’s current DID document — its owner or a live veriKey/sigAuth delegate —, `issuanceDate`/`nbf` not in the future, `expirationDate`/`exp` not past). An invalid credential is `verified: false` in the 200. `resolver` names the DID resolver used and is echoed.',
    auth: 'tenant+did',
    routes: [{ method: 'patch', path: '/claims' }],
    input: s.patchClaims,
    batch: ['claims', 'vcs'],
    response: s.patchClaimsResponse,
    example: { operation: 'verify', claims: [{ jwt: 'eyJhbGciOiJFUzI1NksiLCJ0eXAiOiJKV1QifQ.eyJ2YyI6e319.c2ln' }] },
  }),

  /** Patch Verifiable Credentials with new Proofs (`POST /claims/proofs`): `PATCH /claims` with `operation: "addProof"`. */
  addProofs: defineContract({
    summary: 'Patch Verifiable Credentials with new Proofs',
    description: 'The unambiguous form of `PATCH /claims` with `operation: "addProof"` (`operation` may be omitted).',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/claims/proofs' }],
    input: s.addProofs,
    batch: ['claims', 'vcs'],
    response: s.proofsResponse,
    example: { iss: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72', claims: [{ _id: '4f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21' }] },
  }),

  /** Verify Verifiable Credentials (`POST /claims/verify`): `PATCH /claims` with `operation: "verify"`, without the need to say so. */
  verifyClaims: defineContract({
    summary: 'Verify Verifiable Credentials',
    description: 'The unambiguous form of `PATCH /claims` with `operation: "verify"` (`operation` may be omitted).',
    auth: 'tenant+did',
    routes: [{ method: 'post', path: '/claims/verify' }],
    input: s.verifyClaims,
    batch: ['claims', 'vcs'],
    response: s.verifyClaimsResponse,
    example: { resolver: 'default', claims: [{ jwt: 'eyJhbGciOiJFUzI1NksiLCJ0eXAiOiJKV1QifQ.eyJ2YyI6e319.c2ln' }] },
  }),
}

/** The names of the operations. */
export type OperationName = keyof typeof CONTRACTS

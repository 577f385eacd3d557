/**
 * The operation table: every contract of `contracts.ts` paired with its handler (and, where
 * the service checks more than the contract can, a refinement of the parsed input). The
 * `IdentityService` methods, the dispatcher and the Express routes run what is declared here.
 * Adding an operation is one contract, one entry here and one handler.
 */
import * as canonical from '../roles/refine.js'
import * as vaultInputs from '../vaults/refine.js'
import { CONTRACTS as C, type OperationName } from './contracts.js'
import { defineOperation, type OperationDefinition } from '../operations/define.js'
import type { ServiceContext } from './context.js'
import { knownContexts } from '../credentials/known-contexts.js'
import * as roleAssignments from '../roles/assignments.js'
import * as roles from '../roles/operations.js'
import * as claimsSign from '../credentials/sign.js'
import * as claimsProofs from '../credentials/proofs.js'
import * as claimsStore from '../credentials/store.js'
import * as claimsVerify from '../credentials/verify.js'
import * as presentationsDerive from '../presentations/derive.js'
import * as presentationsSign from '../presentations/sign.js'
import * as presentationsVerify from '../presentations/verify.js'
import * as tokens from '../tokens/operations.js'
import * as mpcVaults from '../vaults/mpc-operations.js'
import * as vaults from '../vaults/operations.js'
import * as wallets from '../wallets/operations.js'
import { didWebDocument, resolveDid } from '../wallets/resolve-did.js'
import { changeStatus } from '../status/change.js'
import { getStatusList } from '../status/publish.js'
import { getAuditRecords, verifyAuditChain } from '../audit/operations.js'
import { listStatusLists } from '../status/list-lists.js'
import { getOverview } from './overview.js'
import * as oid4vciConfigurations from '../oid4vci/configurations.js'
import * as oid4vciMetadata from '../oid4vci/metadata.js'
import * as oid4vciOffers from '../oid4vci/offers.js'
import * as oid4vciToken from '../oid4vci/token-endpoint.js'
import * as oid4vciCredential from '../oid4vci/credential-endpoint.js'
import * as oid4vciAuthorizationCode from '../oid4vci/authorization-code.js'
import * as oid4vciDeferred from '../oid4vci/deferred.js'
import * as oid4vpResponses from '../oid4vp/responses.js'
import * as oid4vpRequests from '../oid4vp/requests.js'
import * as oid4vpRequestObjects from '../oid4vp/request-objects.js'
import * as oid4vpResults from '../oid4vp/results.js'
import * as oid4vpAuthorizeLink from '../oid4vp/authorize-link.js'

export const OPERATIONS = {
  generateToken: defineOperation(C.generateToken, { handler: tokens.generateToken, signs: 'caller' }),
  getWallets: defineOperation(C.getWallets, { handler: wallets.getWallets }),
  generateWallet: defineOperation(C.generateWallet, { handler: wallets.generateWallet, signs: 'caller' }),
  configureWallet: defineOperation(C.configureWallet, { handler: wallets.configureWallet, signs: 'caller' }),
  resolveDid: defineOperation(C.resolveDid, { handler: resolveDid }),
  didWebDocument: defineOperation(C.didWebDocument, { handler: didWebDocument }),
  renameWallets: defineOperation(C.renameWallets, { handler: wallets.renameWallets }),
  deleteWallets: defineOperation(C.deleteWallets, { handler: wallets.deleteWallets }),
  createVault: defineOperation(C.createVault, { refine: vaultInputs.createVault, handler: vaults.createVault, signs: 'caller' }),
  getVaults: defineOperation(C.getVaults, { handler: vaults.getVaults }),
  deleteVault: defineOperation(C.deleteVault, { handler: vaults.deleteVault }),
  createVaultWallet: defineOperation(C.createVaultWallet, { handler: vaults.createVaultWallet, signs: 'caller' }),
  getRoles: defineOperation(C.getRoles, { handler: roles.getRoles }),
  createRole: defineOperation(C.createRole, { handler: roles.createRole }),
  updateRoles: defineOperation(C.updateRoles, { refine: canonical.updateRoles, handler: roles.updateRoles }),
  deleteRoles: defineOperation(C.deleteRoles, { refine: canonical.deleteRoles, handler: roles.deleteRoles }),
  createRoleAssignments: defineOperation(C.createRoleAssignments, {
    refine: canonical.roleAssignments,
    handler: roleAssignments.createRoleAssignments,
  }),
  deleteRoleAssignments: defineOperation(C.deleteRoleAssignments, {
    refine: canonical.roleAssignments,
    handler: roleAssignments.deleteRoleAssignments,
  }),
  getRoleAssignments: defineOperation(C.getRoleAssignments, {
    refine: canonical.roleAssignmentsQuery,
    handler: roleAssignments.getRoleAssignments,
  }),
  initializeVault: defineOperation(C.initializeVault, { handler: mpcVaults.initializeVault, signs: 'caller' }),
  signClaims: defineOperation(C.signClaims, { refine: knownContexts, handler: claimsSign.signClaims, signs: 'caller' }),
  storeClaims: defineOperation(C.storeClaims, { handler: claimsStore.storeClaims }),
  getClaims: defineOperation(C.getClaims, { handler: claimsStore.getClaims }),
  deleteClaims: defineOperation(C.deleteClaims, { handler: claimsStore.deleteClaims }),
  addProofs: defineOperation(C.addProofs, { handler: claimsProofs.addProofs, signs: 'caller' }),
  removeProofs: defineOperation(C.removeProofs, { handler: claimsProofs.removeProofs }),
  verifyClaims: defineOperation(C.verifyClaims, { handler: claimsVerify.verifyClaims }),
  changeStatus: defineOperation(C.changeStatus, { handler: changeStatus, signs: 'caller' }),
  getStatusList: defineOperation(C.getStatusList, { handler: getStatusList, signs: 'publisher' }),
  signPresentation: defineOperation(C.signPresentation, { handler: presentationsSign.signPresentation, signs: 'caller' }),
  deriveCredential: defineOperation(C.deriveCredential, { handler: presentationsDerive.deriveCredential }),
  verifyPresentation: defineOperation(C.verifyPresentation, { handler: presentationsVerify.verifyPresentation }),
  getAuditRecords: defineOperation(C.getAuditRecords, { handler: getAuditRecords }),
  verifyAuditChain: defineOperation(C.verifyAuditChain, { handler: verifyAuditChain }),
  listStatusLists: defineOperation(C.listStatusLists, { handler: listStatusLists }),
  getOverview: defineOperation(C.getOverview, { handler: getOverview }),
  createCredentialConfiguration: defineOperation(C.createCredentialConfiguration, {
    handler: oid4vciConfigurations.createCredentialConfiguration,
  }),
  updateCredentialConfiguration: defineOperation(C.updateCredentialConfiguration, {
    handler: oid4vciConfigurations.updateCredentialConfiguration,
  }),
  getCredentialConfigurations: defineOperation(C.getCredentialConfigurations, {
    handler: oid4vciConfigurations.getCredentialConfigurations,
  }),
  deleteCredentialConfiguration: defineOperation(C.deleteCredentialConfiguration, {
    handler: oid4vciConfigurations.deleteCredentialConfiguration,
  }),
  getCredentialIssuerMetadata: defineOperation(C.getCredentialIssuerMetadata, { handler: oid4vciMetadata.getCredentialIssuerMetadata }),
  getAuthorizationServerMetadata: defineOperation(C.getAuthorizationServerMetadata, {
    handler: oid4vciMetadata.getAuthorizationServerMetadata,
  }),
  // ---- helper "offer-token"
  createCredentialOffer: defineOperation(C.createCredentialOffer, { handler: oid4vciOffers.createCredentialOffer }),
  getCredentialOffer: defineOperation(C.getCredentialOffer, { handler: oid4vciOffers.getCredentialOffer }),
  redeemToken: defineOperation(C.redeemToken, { handler: oid4vciToken.redeemToken }),
  getNonce: defineOperation(C.getNonce, { handler: oid4vciToken.issueNonce }),
  // ---- helper "credential": the credential and notification endpoints
  requestCredential: defineOperation(C.requestCredential, { handler: oid4vciCredential.requestCredential, signs: 'caller' }),
  sendCredentialNotification: defineOperation(C.sendCredentialNotification, { handler: oid4vciCredential.sendCredentialNotification }),
  // authcode
  pushAuthorizationRequest: defineOperation(C.pushAuthorizationRequest, { handler: oid4vciAuthorizationCode.pushAuthorizationRequest }),
  authorizeCredentialRequest: defineOperation(C.authorizeCredentialRequest, { handler: oid4vciAuthorizationCode.authorize }),
  returnFromLogin: defineOperation(C.returnFromLogin, { handler: oid4vciAuthorizationCode.authorizeReturn }),
  // ---- helper "deferred"
  getDeferredCredentials: defineOperation(C.getDeferredCredentials, { handler: oid4vciDeferred.getDeferredCredentials }),
  completeDeferredCredential: defineOperation(C.completeDeferredCredential, {
    handler: oid4vciDeferred.completeDeferredCredential,
    signs: 'caller',
  }),
  requestDeferredCredential: defineOperation(C.requestDeferredCredential, { handler: oid4vciDeferred.requestDeferredCredential }),
  submitPresentationResponse: defineOperation(C.submitPresentationResponse, { handler: oid4vpResponses.submitPresentationResponse }),
  createPresentationRequest: defineOperation(C.createPresentationRequest, { handler: oid4vpRequests.createPresentationRequest }),
  getPresentationResult: defineOperation(C.getPresentationResult, { handler: oid4vpResults.getPresentationResult }),
  getRequestObject: defineOperation(C.getRequestObject, { handler: oid4vpRequestObjects.getRequestObject }),
  postRequestObject: defineOperation(C.postRequestObject, { handler: oid4vpRequestObjects.postRequestObject }),
  openAuthorizationRequest: defineOperation(C.openAuthorizationRequest, { handler: oid4vpAuthorizeLink.openAuthorizationRequest }),
} satisfies { [K in OperationName]: OperationDefinition<(typeof C)[K], ServiceContext> }

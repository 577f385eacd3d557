/**
 * One list of calls of every operation — inputs, headers, and what must come back — run as it is
 * against the embedded API (`service.as(auth)`) and against the HTTP client talking to a real
 * `didvault serve` (`client.as(auth)`), so the two cannot drift. The cases run in order on one
 * fresh service: later ones use what earlier ones made (kept in the {@link Fixture}).
 */
import { expect } from 'vitest'
import type { AuthContext, BoundIdentityService, ErrorType } from '../../src/index.js'
import { type CONTRACTS, type OperationName } from '../../src/service/contracts.js'
import type { OperationInput, OperationOutput } from '../../src/operations/contract.js'
import type { ClientOperations } from '../../src/client/index.js'

/** Base Auth Tokens of the two tenants every run is given (`staticTenants` embedded, `DIDVAULT_API_KEYS` for serve). */
export const API_KEYS = { a: 'client-cases-key-a-0123456789', b: 'client-cases-key-b-0123456789' } as const

/** Whatever serves the operations: `service.as(auth)` or `client.as(auth)`. The operations an issuing backend calls (the wallet-facing ones, `client: false`, are not the client's). */
export interface OperationsApi {
  as(auth: AuthContext): Pick<BoundIdentityService, keyof ClientOperations>
}

/** What the cases made so far. */
export interface Fixture {
  vaultId: string
  rootDid: string
  rootJwt: string
  savingsDid: string
  soloDid: string
  soloJwt: string
  roleDid: string
  jwtVc: string
  jsonldVc: Record<string, unknown>
  claimDid: string
  claimJwt: string
  storedId: string
  mpcVaultId: string
  statusListId: string
  vpJwt: string
}

export const emptyFixture = (): Fixture => ({
  vaultId: '',
  rootDid: '',
  rootJwt: '',
  savingsDid: '',
  soloDid: '',
  soloJwt: '',
  roleDid: '',
  jwtVc: '',
  jsonldVc: {},
  claimDid: '',
  claimJwt: '',
  storedId: '',
  mpcVaultId: '',
  statusListId: '',
  vpJwt: '',
})

type Contract<K extends OperationName> = (typeof CONTRACTS)[K]

export interface OperationCase<K extends OperationName = OperationName> {
  operation: K
  name: string
  auth(f: Fixture): AuthContext
  input(f: Fixture): OperationInput<Contract<K>>
  /** Checks the result and keeps what later cases need. */
  then?(result: OperationOutput<Contract<K>>, f: Fixture): void
  /** The call must reject with this error body instead (the message matching, when given). */
  rejects?: { statusCode: number; errorType: ErrorType; message?: RegExp }
}

const call = <K extends OperationName>(c: OperationCase<K>) => c as unknown as OperationCase

const tenant = (key: string = API_KEYS.a): AuthContext => ({ authorization: `Bearer ${key}` })
const acting = (didAuth: string): AuthContext => ({ ...tenant(), didAuth })
/** The Access Token JWT of the two delete operations: a DID-auth JWT as the Bearer token. */
const accessToken = (jwt: string): AuthContext => ({ authorization: `Bearer ${jwt}` })

const UNKNOWN_DID = 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72'

export const OPERATION_CASES: OperationCase[] = [
  // ---- vaults, tokens, wallets
  call({
    operation: 'createVault',
    name: 'a BIP44 vault with its first wallet and its mnemonic, once',
    auth: () => tenant(),
    input: () => ({ name: 'main', hierarchy: 'BIP44' }),
    then: ({ vault }, f) => {
      expect(vault).toMatchObject({ name: 'main', hierarchy: 'BIP44', keyManagement: 'ECS', status: 'INITIALIZED' })
      expect(vault.mnemonic?.split(' ')).toHaveLength(12)
      expect(vault.wallets).toHaveLength(1)
      f.vaultId = vault.id
      f.rootDid = vault.wallets[0].did
    },
  }),
  call({
    operation: 'createVault',
    name: 'without a name: 422 naming the field',
    auth: () => tenant(),
    input: () => ({}) as OperationInput<Contract<'createVault'>>,
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR', message: /^invalid request: name: / },
  }),
  call({
    operation: 'createVault',
    name: 'without a Base Auth Token: 403',
    auth: () => ({}),
    input: () => ({ name: 'nope' }),
    rejects: { statusCode: 403, errorType: 'UNAUTHENTICATED', message: /missing Base Auth Token/ },
  }),
  call({
    operation: 'generateToken',
    name: 'a DID-auth token for the vault’s first wallet',
    auth: () => tenant(),
    input: (f) => ({ iss: f.rootDid, expiresIn: 600_000 }),
    then: (token, f) => {
      expect(token.jwt.split('.')).toHaveLength(3)
      expect(token.verifications.issuer).toBe(f.rootDid)
      f.rootJwt = token.jwt
    },
  }),
  call({
    operation: 'generateToken',
    name: 'for a DID the tenant does not hold: 422 NOT_FOUND',
    auth: () => tenant(),
    input: () => ({ iss: UNKNOWN_DID }),
    rejects: { statusCode: 422, errorType: 'NOT_FOUND' },
  }),
  call({
    operation: 'getVaults',
    name: 'by id',
    auth: () => tenant(),
    input: (f) => ({ id: f.vaultId }),
    then: ({ vaults }, f) => {
      expect(vaults.map((v) => v.id)).toEqual([f.vaultId])
      expect(vaults[0].mnemonic).toBeUndefined()
    },
  }),
  call({
    operation: 'getVaults',
    name: 'another tenant sees nothing of it',
    auth: () => tenant(API_KEYS.b),
    input: (f) => ({ id: f.vaultId }),
    then: ({ vaults }) => expect(vaults).toEqual([]),
  }),
  call({
    operation: 'createVaultWallet',
    name: 'the next BIP44 wallet, by vault control (path parameter and body)',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ vaultID: f.vaultId, wallet: { alias: 'savings' } }),
    then: ({ wallet }, f) => {
      expect(wallet).toMatchObject({ index: 1, alias: 'savings', vaultId: f.vaultId })
      f.savingsDid = wallet.did
    },
  }),
  call({
    operation: 'createVaultWallet',
    name: 'without a DID-auth token: 403',
    auth: () => tenant(),
    input: (f) => ({ vaultID: f.vaultId }),
    rejects: { statusCode: 403, errorType: 'UNAUTHENTICATED', message: /missing DID Auth Token/ },
  }),
  call({
    operation: 'createVaultWallet',
    name: 'an unknown vault: 422 NOT_FOUND',
    auth: (f) => acting(f.rootJwt),
    input: () => ({ vaultID: 'no such vault/../x' }),
    rejects: { statusCode: 422, errorType: 'NOT_FOUND' },
  }),
  call({
    operation: 'createVaultWallet',
    name: 'an empty vaultID: 422 naming it',
    auth: (f) => acting(f.rootJwt),
    input: () => ({ vaultID: '' }),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR', message: /^invalid request: vaultID: / },
  }),
  call({
    operation: 'generateWallet',
    name: 'a wallet outside any vault',
    auth: () => tenant(),
    input: () => ({ wallet: { alias: 'solo' } }),
    then: ({ wallet }, f) => {
      expect(wallet.alias).toBe('solo')
      f.soloDid = wallet.did
    },
  }),
  call({
    operation: 'generateToken',
    name: 'a token for the solo wallet',
    auth: () => tenant(),
    input: (f) => ({ iss: f.soloDid }),
    then: (token, f) => {
      f.soloJwt = token.jwt
    },
  }),
  call({
    operation: 'getWallets',
    name: 'a page of one, with the cursor to the next (query parameters)',
    auth: () => tenant(),
    input: (f) => ({ vaultId: f.vaultId, limit: 1 }),
    then: ({ wallets, nextCursor }, f) => {
      expect(wallets.map((w) => w.did)).toEqual([f.rootDid])
      expect(nextCursor).toEqual(expect.any(String))
    },
  }),
  call({
    operation: 'getWallets',
    name: 'by alias',
    auth: () => tenant(),
    input: () => ({ alias: 'solo' }),
    then: ({ wallets }, f) => expect(wallets.map((w) => w.did)).toEqual([f.soloDid]),
  }),
  call({
    operation: 'getWallets',
    name: 'a limit out of range: 422',
    auth: () => tenant(),
    input: () => ({ limit: 0 }),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR', message: /^invalid request: limit: / },
  }),
  call({
    operation: 'configureWallet',
    name: 'a service endpoint on a wallet of the vault',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({
      wallet: { did: f.savingsDid },
      walletConfig: { txsInput: [{ service: { name: 'Hub', value: 'https://hub.example.com', validity: 86_400_000 } }] },
    }),
    then: ({ wallet }, f) => {
      expect(wallet.did).toBe(f.savingsDid)
      expect(wallet.registry?.errors ?? []).toEqual([])
    },
  }),
  call({
    operation: 'renameWallets',
    name: 'a wallet of the vault renamed',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ wallets: [{ did: f.savingsDid, alias: 'reserve' }] }),
    then: ({ wallets, errors }) => {
      expect(wallets.map((w) => w.alias)).toEqual(['reserve'])
      expect(errors).toEqual([])
    },
  }),

  // ---- roles
  call({
    operation: 'createRole',
    name: 'a role (permissions case-insensitive in, canonical out)',
    auth: (f) => acting(f.rootJwt),
    input: () => ({ description: 'Auditors', permissions: ['read'], wallet: { alias: 'auditors' } }),
    then: ({ role }, f) => {
      expect(role).toMatchObject({ description: 'Auditors', permissions: ['Read'], creator: f.rootDid })
      f.roleDid = role.did
    },
  }),
  call({
    operation: 'getRoles',
    name: 'filtered by permission',
    auth: (f) => acting(f.rootJwt),
    input: () => ({ permissions: 'Read' }),
    then: ({ roles }, f) => expect(roles.map((r) => r.did)).toEqual([f.roleDid]),
  }),
  call({
    operation: 'getRoles',
    name: 'an unknown permission: 422',
    auth: (f) => acting(f.rootJwt),
    input: () => ({ permissions: 'Admin' }),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR' },
  }),
  call({
    operation: 'updateRoles',
    name: 'Write added',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ roles: [{ did: f.roleDid, permissions: ['Read', 'Write'] }] }),
    then: ({ roles, errors }) => {
      expect(roles[0].permissions).toEqual(['Read', 'Write'])
      expect(errors).toEqual([])
    },
  }),
  call({
    operation: 'updateRoles',
    name: 'one role twice, in two spellings: 422 (the service’s refinement, over HTTP too)',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({
      roles: [
        { did: f.roleDid, description: 'a' },
        { did: f.roleDid.toLowerCase(), description: 'b' },
      ],
    }),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR', message: /^invalid request: roles\.1: duplicate of an earlier item$/ },
  }),
  call({
    operation: 'createRoleAssignments',
    name: 'the role to the solo wallet',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ assignments: [{ role: f.roleDid, did: f.soloDid.toLowerCase() }] }),
    then: ({ assignments, errors }, f) => {
      expect(assignments).toEqual([expect.objectContaining({ role: f.roleDid, did: f.soloDid })])
      expect(errors).toEqual([])
    },
  }),
  call({
    operation: 'getRoleAssignments',
    name: 'of the role',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ role: f.roleDid }),
    then: ({ assignments }, f) => expect(assignments.map((a) => a.did)).toEqual([f.soloDid]),
  }),
  call({
    operation: 'getRoleAssignments',
    name: 'neither role nor did: 422',
    auth: (f) => acting(f.rootJwt),
    input: () => ({}),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR' },
  }),
  call({
    operation: 'deleteRoleAssignments',
    name: 'with the Access Token JWT (`as`)',
    auth: (f) => accessToken(f.rootJwt),
    input: (f) => ({ assignments: [{ role: f.roleDid, did: f.soloDid }] }),
    then: ({ assignments, errors }, f) => {
      expect(assignments.map((a) => a.did)).toEqual([f.soloDid])
      expect(errors).toEqual([])
    },
  }),
  call({
    operation: 'deleteRoleAssignments',
    name: 'with an API key instead of the Access Token: 403',
    auth: () => tenant(),
    input: (f) => ({ assignments: [{ role: f.roleDid, did: f.soloDid }] }),
    rejects: { statusCode: 403, errorType: 'UNAUTHENTICATED' },
  }),
  call({
    operation: 'deleteRoles',
    name: 'the role, by a comma-separated string',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ dids: f.roleDid }),
    then: ({ roles, errors }, f) => {
      expect(roles.map((r) => r.did)).toEqual([f.roleDid])
      expect(errors).toEqual([])
    },
  }),

  // ---- verifiable credentials
  call({
    operation: 'signClaims',
    name: 'a JWT credential about the solo wallet',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({
      iss: f.rootDid,
      format: 'jwt',
      sub: f.soloDid,
      expiresIn: 86_400_000,
      claims: [{ id: 'urn:example:jwt-1', payload: { role: 'treasurer' } }],
    }),
    then: ({ vcs }, f) => {
      expect(vcs[0].id).toBe('urn:example:jwt-1')
      f.jwtVc = 'jwt' in vcs[0] ? vcs[0].jwt : ''
      expect(f.jwtVc.split('.')).toHaveLength(3)
    },
  }),
  call({
    operation: 'signClaims',
    name: 'a JSON-LD credential with a new claim DID',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ iss: f.rootDid, claims: [{ alias: 'membership' }] }),
    then: ({ vcs }, f) => {
      expect(vcs[0].id).toMatch(/^did:ethr:dev:0x/)
      f.claimDid = vcs[0].id!
      f.jsonldVc = 'jsonld' in vcs[0] ? vcs[0].jsonld : {}
      expect(f.jsonldVc.proof).toMatchObject({ type: 'EcdsaKoblitzSignature2016' })
    },
  }),
  call({
    operation: 'signClaims',
    name: 'a context the service does not have: 422 (the service’s refinement)',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ iss: f.rootDid, context: 'https://example.com/unknown.jsonld', claims: [{ id: 'urn:example:2' }] }),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR', message: /context\.0: not a bundled or registered JSON-LD context/ },
  }),
  call({
    operation: 'signClaims',
    name: 'a JWT credential with a revocation status entry (the runs configure publicUrl)',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({
      iss: f.rootDid,
      format: 'JWT',
      status: { purposes: ['revocation'] },
      claims: [{ id: 'urn:example:st-1', payload: { a: 1 } }],
    }),
    then: ({ vcs }, f) => {
      const jwt = 'jwt' in vcs[0] ? vcs[0].jwt : ''
      const payload = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as {
        vc: { credentialStatus: Record<string, string> }
      }
      expect(payload.vc.credentialStatus).toMatchObject({ type: 'BitstringStatusListEntry', statusPurpose: 'revocation' })
      f.statusListId = payload.vc.credentialStatus.statusListCredential.split('/').pop()!
    },
  }),
  call({
    operation: 'changeStatus',
    name: 'revoking it; an id never issued is an item error',
    auth: (f) => acting(f.rootJwt),
    input: () => ({
      items: [
        { id: 'urn:example:st-1', purpose: 'revocation', value: true },
        { id: 'urn:example:never', purpose: 'revocation', value: true },
      ],
    }),
    then: ({ items, errors }) => {
      expect(items).toEqual([{ index: 0, entries: [expect.objectContaining({ statusPurpose: 'revocation', value: true, changed: true })] }])
      expect(errors).toEqual([{ index: 1, error: expect.objectContaining({ statusCode: 422, errorType: 'NOT_FOUND' }) }])
    },
  }),
  // ---- OID4VCI issuer: configurations and metadata
  call({
    operation: 'createCredentialConfiguration',
    name: 'an SD-JWT VC configuration signed by the root wallet, claiming the slug',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ id: 'Identity', issuer: 'cases', format: 'dc+sd-jwt', vct: 'https://example.com/identity', issuingDid: f.rootDid }),
    then: ({ configuration }) => expect(configuration).toMatchObject({ id: 'Identity', credentialSigningAlg: 'ES256K', batchSize: 1 }),
  }),
  call({
    operation: 'createCredentialConfiguration',
    name: 'a DID the caller does not control: 403',
    auth: (f) => acting(f.soloJwt),
    input: (f) => ({ id: 'Other', issuer: 'cases', format: 'dc+sd-jwt', vct: 'https://example.com/other', issuingDid: f.rootDid }),
    rejects: { statusCode: 403, errorType: 'FORBIDDEN' },
  }),
  call({
    operation: 'updateCredentialConfiguration',
    name: 'replaced whole: batch of 3',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({
      configurationId: 'Identity',
      issuer: 'cases',
      format: 'dc+sd-jwt',
      vct: 'https://example.com/identity',
      issuingDid: f.rootDid,
      batchSize: 3,
    }),
    then: ({ configuration }) => expect(configuration.batchSize).toBe(3),
  }),
  call({
    operation: 'getCredentialConfigurations',
    name: 'the tenant’s slug and configurations',
    auth: () => tenant(),
    input: () => ({}),
    then: ({ issuer, configurations }) => expect([issuer, configurations.map((c) => c.id)]).toEqual(['cases', ['Identity']]),
  }),
  call({
    operation: 'getCredentialIssuerMetadata',
    name: 'the Credential Issuer Metadata, without any header',
    auth: () => ({}),
    input: () => ({ issuer: 'cases' }),
    then: (result) => {
      expect(result).toMatchObject({ contentType: 'application/json', maxAge: 60, etag: expect.stringMatching(/^"/) })
      expect(result.document).toMatchObject({ batch_credential_issuance: { batch_size: 3 } })
    },
  }),
  call({
    operation: 'getAuthorizationServerMetadata',
    name: 'the authorization server metadata, without any header',
    auth: () => ({}),
    input: () => ({ issuer: 'cases' }),
    then: (result) => expect(result.document).toMatchObject({ code_challenge_methods_supported: ['S256'] }),
  }),
  call({
    operation: 'getCredentialIssuerMetadata',
    name: 'an unknown issuer: 404',
    auth: () => ({}),
    input: () => ({ issuer: 'nobody' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  // ---- helper "offer-token": without the OID4VCI module (these runs have none), offers are 422 and its endpoints 404
  call({
    operation: 'createCredentialOffer',
    name: 'no OID4VCI module: 422 naming it',
    auth: (f) => acting(f.rootJwt),
    input: () => ({ configurations: [{ id: 'Identity', claims: { given_name: 'Erika' } }] }),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR', message: /oid4vci/ },
  }),
  call({
    operation: 'getCredentialOffer',
    name: 'no OID4VCI module: 404',
    auth: () => ({}),
    input: () => ({ issuer: 'cases', offerId: 'x' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  call({
    operation: 'redeemToken',
    name: 'no OID4VCI module: 404',
    auth: () => ({}),
    input: () => ({ issuer: 'cases', grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': 'x' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  call({
    operation: 'getNonce',
    name: 'no OID4VCI module: 404',
    auth: () => ({}),
    input: () => ({ issuer: 'cases' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  // ---- helper "vp-response": without the OID4VP module (these runs have none), the response endpoint is 404
  call({
    operation: 'submitPresentationResponse',
    name: 'no OID4VP module: 404',
    auth: () => ({}),
    input: () => ({ id: 'x', error: 'access_denied', state: 'x' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  // The authorization code flow's endpoints: without the issuer module they do not exist.
  call({
    operation: 'pushAuthorizationRequest',
    name: 'no OID4VCI module: 404',
    auth: () => ({}),
    input: () => ({ issuer: 'cases', client_id: 'wallet', response_type: 'code', code_challenge_method: 'S256' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  call({
    operation: 'authorizeCredentialRequest',
    name: 'no OID4VCI module: 404',
    auth: () => ({}),
    input: () => ({ issuer: 'cases', client_id: 'wallet', request_uri: 'urn:ietf:params:oauth:request_uri:x' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  call({
    operation: 'returnFromLogin',
    name: 'no OID4VCI module: 404',
    auth: () => ({}),
    input: () => ({ issuer: 'cases', assertion: 'a.b.c' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  // ---- helper "credential": without the issuer module the wallet-facing endpoints do not exist
  call({
    operation: 'requestCredential',
    name: 'a credential request to a service without the OID4VCI module: 404',
    auth: () => ({ authorization: 'Bearer some-access-token' }),
    input: () => ({ issuer: 'cases', credential_configuration_id: 'Identity', proofs: { jwt: ['a.b.c'] } }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  call({
    operation: 'sendCredentialNotification',
    name: 'a notification to a service without the OID4VCI module: 404',
    auth: () => ({ authorization: 'Bearer some-access-token' }),
    input: () => ({ issuer: 'cases', notification_id: 'n', event: 'credential_accepted' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  call({
    operation: 'deleteCredentialConfiguration',
    name: 'deleted',
    auth: (f) => acting(f.rootJwt),
    input: () => ({ configurationId: 'Identity' }),
    then: (result) => expect(result).toEqual({ deleted: 'Identity' }),
  }),
  call({
    operation: 'getStatusList',
    name: 'its status list, signed, without any header',
    auth: () => ({}),
    input: (f) => ({ listId: f.statusListId }),
    then: (result) => {
      expect(result).toMatchObject({ contentType: 'application/vc+jwt', maxAge: 1, etag: expect.stringMatching(/^"/) })
      expect(typeof result.document === 'string' && result.document.split('.')).toHaveLength(3)
    },
  }),
  call({
    operation: 'getStatusList',
    name: 'an unknown list: 404',
    auth: () => ({}),
    input: () => ({ listId: 'no-such-list' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND', message: /no status list/ },
  }),
  call({
    operation: 'resolveDid',
    name: 'a DID of the service resolves, without any header',
    auth: () => ({}),
    input: (f) => ({ did: f.rootDid }),
    then: (result, f) => expect(result.didDocument?.id).toBe(f.rootDid),
  }),
  call({
    operation: 'resolveDid',
    name: 'a malformed versionId: the result invalidDidUrl, not a rejection',
    auth: () => ({}),
    input: (f) => ({ did: f.rootDid, versionId: 'abc' }),
    then: (result) => expect([result.didDocument, result.didResolutionMetadata.error]).toEqual([null, 'invalidDidUrl']),
  }),
  call({
    operation: 'didWebDocument',
    name: 'an unknown wallet id: the result notFound, not a rejection',
    auth: () => ({}),
    input: () => ({ walletId: 'no-such-wallet' }),
    then: (result) => expect([result.didDocument, result.didResolutionMetadata.error]).toEqual([null, 'notFound']),
  }),
  call({
    operation: 'verifyClaims',
    name: 'the JWT verifies',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ claims: [{ jwt: f.jwtVc }] }),
    then: ({ vcs }, f) => expect(vcs[0]).toMatchObject({ verified: true, issuer: f.rootDid }),
  }),
  call({
    operation: 'verifyClaims',
    name: 'operation verify (as PATCH /claims carries it): the JSON-LD credential verifies',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ operation: 'verify', claims: [{ jsonld: f.jsonldVc }] }),
    then: (result) => expect(result.vcs[0]).toMatchObject({ verified: true }),
  }),
  // ---- presentations
  call({
    operation: 'signPresentation',
    name: 'a VP-JWT of the root wallet holding the JWT credential',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ holder: f.rootDid, format: 'JWT', nonce: 'n-1', vcs: [{ jwt: f.jwtVc }] }),
    then: ({ presentation }, f) => {
      f.vpJwt = 'jwt' in presentation ? presentation.jwt : ''
      expect(f.vpJwt).toMatch(/^eyJ/)
    },
  }),
  call({
    operation: 'signPresentation',
    name: 'as a holder the caller does not control: 403',
    auth: (f) => acting(f.soloJwt),
    input: (f) => ({ holder: f.rootDid, format: 'JWT', vcs: [{ jwt: f.jwtVc }] }),
    rejects: { statusCode: 403, errorType: 'FORBIDDEN' },
  }),
  call({
    operation: 'verifyPresentation',
    name: 'the VP-JWT verifies with its nonce, each credential as /claims/verify has it',
    auth: (f) => acting(f.soloJwt),
    input: (f) => ({ presentation: { jwt: f.vpJwt }, nonce: 'n-1' }),
    then: (result, f) => {
      expect(result).toMatchObject({ verified: true, holder: f.rootDid })
      expect(result.vcs.map((vc) => vc.verified)).toEqual([true])
    },
  }),
  call({
    operation: 'deriveCredential',
    name: 'a credential without an ecdsa-sd-2023 base proof (a Koblitz one): 422',
    auth: (f) => acting(f.soloJwt),
    input: (f) => ({ jsonld: f.jsonldVc, selectivePointers: ['/credentialSubject/name'] }),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR', message: /selective-disclosure cryptosuite \(ecdsa-sd-2023, bbs-2023\)/ },
  }),
  call({
    operation: 'deriveCredential',
    name: 'a stored credential the tenant does not hold: 422 NOT_FOUND',
    auth: (f) => acting(f.soloJwt),
    input: () => ({ _id: 'no-such-credential', selectivePointers: [] }),
    rejects: { statusCode: 422, errorType: 'NOT_FOUND' },
  }),
  call({
    operation: 'removeProofs',
    name: 'removeProof, an operation reached only through PATCH /claims: nothing of the caller’s to remove is an item error',
    auth: (f) => acting(f.rootJwt),
    input: () => ({ claims: [{ _id: 'no-such-credential' }] }),
    then: ({ vcs, errors }) => {
      expect(vcs).toEqual([])
      expect(errors[0].error).toMatchObject({ statusCode: 422, errorType: 'NOT_FOUND' })
    },
  }),
  call({
    operation: 'storeClaims',
    name: 'the JSON-LD credential stored',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ claims: [{ jsonld: f.jsonldVc }] }),
    then: ({ vcs, errors }, f) => {
      expect(errors).toEqual([])
      expect(vcs[0]).toMatchObject({ id: f.claimDid, issuer: f.rootDid, storedBy: [f.rootDid] })
      f.storedId = vcs[0]._id
    },
  }),
  call({
    operation: 'getClaims',
    name: 'by ids (an array of two: repeated query parameters)',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ ids: [f.claimDid, 'urn:example:not-stored'], limit: 10 }),
    then: ({ vcs }, f) => expect(vcs.map((v) => v._id)).toEqual([f.storedId]),
  }),
  call({
    operation: 'generateToken',
    name: 'a token for the claim DID (a wallet of the tenant)',
    auth: () => tenant(),
    input: (f) => ({ iss: f.claimDid }),
    then: (token, f) => {
      f.claimJwt = token.jwt
    },
  }),
  call({
    operation: 'addProofs',
    name: 'the owner of the credential’s DID adds a proof to the stored record',
    auth: (f) => acting(f.claimJwt),
    input: (f) => ({ iss: f.claimDid, claims: [{ _id: f.storedId }] }),
    then: ({ vcs, errors }, f) => {
      expect(errors).toEqual([])
      expect(vcs[0]._ids).toEqual([f.storedId])
      expect(vcs[0].jsonld.proof).toHaveLength(2)
    },
  }),
  call({
    operation: 'deleteClaims',
    name: 'with the Access Token JWT of the credential DID’s owner',
    auth: (f) => accessToken(f.claimJwt),
    input: (f) => ({ ids: [f.storedId] }),
    then: ({ vcs, errors }, f) => {
      expect(vcs.map((v) => v._id)).toEqual([f.storedId])
      expect(errors).toEqual([])
    },
  }),
  call({
    operation: 'deleteClaims',
    name: 'again: reported in errors, the batch does not fail',
    auth: (f) => accessToken(f.claimJwt),
    input: (f) => ({ ids: [f.storedId] }),
    then: ({ vcs, errors }, f) => {
      expect(vcs).toEqual([])
      expect(errors).toEqual([{ _id: f.storedId, error: expect.objectContaining({ statusCode: 422, errorType: 'NOT_FOUND' }) }])
    },
  }),

  // ---- MPC vault, deletions
  call({
    operation: 'createVault',
    name: 'an MPC vault whose one member is the first wallet',
    auth: () => tenant(),
    input: (f) => ({
      name: 'mpc',
      keyManagement: 'MPC',
      mpcAccountID: 'acct-1',
      mpcGroups: { name: 'signers', requiredApprovals: 1, members: [{ id: f.rootDid }] },
    }),
    then: ({ vault }, f) => {
      expect(vault).toMatchObject({ keyManagement: 'MPC', status: 'NOT_INITIALIZED', wallets: [] })
      f.mpcVaultId = vault.id
    },
  }),
  call({
    operation: 'initializeVault',
    name: 'initialized with the member’s token (an input of path parameters only)',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ vaultID: f.mpcVaultId }),
    then: ({ vault }, f) => expect(vault).toMatchObject({ id: f.mpcVaultId, status: 'INITIALIZED' }),
  }),
  call({
    operation: 'deleteWallets',
    name: 'the solo wallet, by DID control',
    auth: (f) => acting(f.soloJwt),
    input: (f) => ({ ids: [f.soloDid] }),
    then: ({ ids, errors }, f) => {
      expect(ids).toEqual([f.soloDid])
      expect(errors).toEqual([])
    },
  }),
  call({
    operation: 'deleteVault',
    name: 'the BIP44 vault with its wallets',
    auth: (f) => acting(f.rootJwt),
    input: (f) => ({ _id: f.vaultId }),
    then: ({ wallets }, f) => expect(wallets.map((w) => w.did).sort()).toEqual([f.rootDid, f.savingsDid].sort()),
  }),
  call({
    operation: 'getAuditRecords',
    name: 'the tenant’s audit trail: the deletions just made, newest last',
    auth: () => tenant(),
    input: () => ({ action: 'vault.delete' }),
    then: ({ records }, f) => expect(records.map((r) => [r.action, r.target.id, r.outcome])).toEqual([['vault.delete', f.vaultId, 'ok']]),
  }),
  call({
    operation: 'getAuditRecords',
    name: 'an unknown action: 422',
    auth: () => tenant(),
    input: () => ({ action: 'vault.explode' as 'vault.delete' }),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR' },
  }),
  call({
    operation: 'verifyAuditChain',
    name: 'the tenant’s audit chain is intact',
    auth: () => tenant(),
    input: () => ({}),
    then: (report) => {
      expect(report.ok).toBe(true)
      expect(report.records).toBeGreaterThan(0)
      expect(report.break).toBeUndefined()
    },
  }),
  call({
    operation: 'verifyAuditChain',
    name: 'a query member it does not take: 422',
    auth: () => tenant(),
    input: () => ({ tenant: 'b' }) as never,
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR', message: /tenant/ },
  }),
  call({
    operation: 'listStatusLists',
    name: 'the tenant’s status list, with its bits',
    auth: () => tenant(),
    input: () => ({ withBits: true }),
    then: ({ lists }, f) => {
      expect(lists.map((list) => list.id)).toEqual([f.statusListId])
      expect(lists[0]).toMatchObject({ format: 'JWT', mechanism: 'Bitstring Status List', purpose: 'revocation' })
      expect(Buffer.from(lists[0].bits!, 'base64url')).toHaveLength(lists[0].size / 8)
    },
  }),
  call({
    operation: 'listStatusLists',
    name: 'another tenant lists none of them',
    auth: () => tenant(API_KEYS.b),
    input: () => ({}),
    then: ({ lists }) => expect(lists).toEqual([]),
  }),
  call({
    operation: 'listStatusLists',
    name: 'a limit of 0: 422',
    auth: () => tenant(),
    input: () => ({ limit: 0 }),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR', message: /limit/ },
  }),
  call({
    operation: 'getOverview',
    name: 'the tenant’s counts and storage',
    auth: () => tenant(),
    input: () => ({}),
    then: (overview) => {
      expect(overview.storage).toBe('memory')
      expect(overview.counts.vaults).toBeGreaterThan(0)
      expect(overview.counts.wallets).toBeGreaterThan(0)
      expect(overview.counts.statusLists).toBe(1)
      expect(overview.counts.auditRecords).toBeGreaterThan(0)
      const { total, byFormat } = overview.counts.credentials
      expect(Object.values(byFormat).reduce((a, b) => a + b, 0)).toBe(total)
    },
  }),
  call({
    operation: 'getOverview',
    name: 'another tenant counts nothing of the first',
    auth: () => tenant(API_KEYS.b),
    input: () => ({}),
    then: ({ counts }) =>
      expect(counts).toEqual({ vaults: 0, wallets: 0, credentials: { total: 0, byFormat: {} }, statusLists: 0, auditRecords: 0 }),
  }),
  // ---- helper "deferred": without the OID4VCI module nothing is pending, completion is 422, the endpoint 404
  call({
    operation: 'getDeferredCredentials',
    name: 'no deferred issuance pending',
    auth: () => tenant(),
    input: () => ({}),
    then: ({ deferred }) => expect(deferred).toEqual([]),
  }),
  call({
    operation: 'completeDeferredCredential',
    name: 'no OID4VCI module: 422 naming it',
    auth: (f) => acting(f.rootJwt),
    input: () => ({ reference: 'AAAAAAAAAAAAAAAAAAAAAAAA' }),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR', message: /oid4vci/ },
  }),
  call({
    operation: 'requestDeferredCredential',
    name: 'a deferred credential request to a service without the OID4VCI module: 404',
    auth: () => ({ authorization: 'Bearer some-access-token' }),
    input: () => ({ issuer: 'cases', transaction_id: 't' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  // ---- helper "vp-core": without the OID4VP module (these runs have none), requests are 422 and the request_uri 404
  call({
    operation: 'createPresentationRequest',
    name: 'no OID4VP module: 422 naming it',
    auth: () => tenant(),
    input: () => ({
      dcqlQuery: { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: ['https://example.com/id'] } }] },
      clientId: { prefix: 'redirect_uri' },
    }),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR', message: /oid4vp/ },
  }),
  call({
    operation: 'getPresentationResult',
    name: 'no OID4VP module: 422 naming it',
    auth: () => tenant(),
    input: () => ({ id: 'x' }),
    rejects: { statusCode: 422, errorType: 'VALIDATION_ERROR', message: /oid4vp/ },
  }),
  call({
    operation: 'getRequestObject',
    name: 'no OID4VP module: 404',
    auth: () => ({}),
    input: () => ({ id: 'x' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  call({
    operation: 'postRequestObject',
    name: 'no OID4VP module: 404',
    auth: () => ({}),
    input: () => ({ id: 'x', wallet_nonce: 'n' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
  call({
    operation: 'openAuthorizationRequest',
    name: 'no OID4VP module: 404',
    auth: () => ({}),
    input: () => ({ client_id: 'redirect_uri:x', request_uri: 'https://status.example.com/oid4vp/request-objects/x' }),
    rejects: { statusCode: 404, errorType: 'NOT_FOUND' },
  }),
]

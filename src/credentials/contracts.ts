/**
 * The contracts of the operations on verifiable credentials (see `operations/contract.ts`): summary,
 * auth, tag, errors, routes, schemas, batch field, example. Browser-safe: schemas and types only.
 */
import { BODY_ERRORS, QUERY_ERRORS, defineContract } from '../operations/contract.js'
import {
  addProofs,
  claimsPage,
  deleteClaims,
  deleteClaimsResponse,
  getClaimsQuery,
  proofsResponse,
  removeProofs,
  signClaims,
  signClaimsResponse,
  storeClaims,
  storeClaimsResponse,
  verifyClaims,
  verifyClaimsResponse,
} from './schemas.js'

const TAG = 'Verifiable credentials'

export const CREDENTIAL_CONTRACTS = {
  /**
   * Sign Verifiable Credentials (`POST /claims/sign`): credentials issued by a wallet of the tenant the caller controls, as JSON-LD or
   * JWT.
   */
  signClaims: defineContract({
    summary: 'Sign Verifiable Credentials',
    description:
      'Issues one credential per claim, signed by `iss` (a wallet DID of the tenant the caller controls; the key of its ' +
      'DID’s current owner signs, as `<iss>#controller`). `format` `JSON-LD` (default; proof ' +
      'the suite `proofType` / `cryptosuite` name, else the key type’s default: `EcdsaKoblitzSignature2016` for ' +
      'secp256k1), `JWT` (did-jwt-vc, ' +
      'ES256K) or `SD-JWT` (SD-JWT VC, `typ: dc+sd-jwt`, any key type: per claim `vct` (required), `payload`, `disclose`, ' +
      '`decoys`, and `holderJwk` or a subject DID whose first `authentication` key with key material becomes `cnf.jwk`; ' +
      'no `alias`, `walletConfig` or `status`; answered as `{ id?, sdjwt }`). A JSON-LD or JWT claim without `id` gets a ' +
      'new claim DID, a wallet of the tenant named by `alias`, whose document takes the claim’s `walletConfig`. ' +
      'Claim-level `exp`/`expiresIn`/`expirationDate` win over global ones; two at one level are 422; none: no expiration. ' +
      'Contexts must be bundled or registered (never fetched). Nothing is written when a claim is refused.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'credential.sign', target: 'issuer', targetField: 'iss' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/claims/sign' }],
    input: signClaims,
    batch: 'claims',
    response: signClaimsResponse,
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
      'Stores each credential of `claims` (`{ jsonld }` or `{ jwt }`, with optional `isPublicAccess` and `roles`). A JWT ' +
      'must decode as a VC-JWT; a JSON-LD VC needs `@context`, `type` with `VerifiableCredential`, `issuer`, ' +
      '`credentialSubject`. The signature is checked only with `verify: true` (an invalid credential is then an element ' +
      'of `errors`). `roles` (top level and per claim) must be role DIDs of the tenant that the caller manages (creator ' +
      'or owner of the role DID): otherwise 422 NOT_FOUND / 403 and nothing is stored; they are assigned to the ' +
      'credential’s DID. Storing the same JWT, or the same JSON-LD document with the same proofs, again returns the ' +
      'existing record. `storedBy` holds the DIDs the caller acts through.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'credential.store', target: 'credential' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/claims' }],
    input: storeClaims,
    batch: 'claims',
    response: storeClaimsResponse,
    example: { isPublicAccess: false, claims: [{ jwt: 'eyJhbGciOiJFUzI1NksiLCJ0eXAiOiJKV1QifQ.eyJ2YyI6e319.c2ln' }] },
  }),
  /** Fetch Verifiable Credentials (`GET /claims`): the stored credentials the caller may read, filtered and paged. */
  getClaims: defineContract({
    summary: 'Fetch Verifiable Credentials',
    description:
      'The tenant’s stored credentials the caller may read — public ones, those it stored, issued or is the subject of ' +
      '(through a DID named by its `x-did-auth` tokens), those whose DID its key owns, those a role with Read or Write ' +
      'it holds is listed in or assigned to — filtered by `subject`, `issuer`, `ids` (comma-separated credential ids), ' +
      '`type`, `format` (`JSON-LD`, `JWT`, `SD-JWT`, `VC-JOSE`) and `status` (`active`, `revoked`, `suspended`: as this ' +
      'service’s status lists hold it); oldest first, at most `limit` per page; `nextCursor` when more follow (a page is never cut short ' +
      'silently). The access set is computed by the database query.',
    auth: 'tenant+did',
    tag: TAG,
    errors: QUERY_ERRORS,
    routes: [{ method: 'get', path: '/claims' }],
    input: getClaimsQuery,
    response: claimsPage,
  }),
  /** Delete Verifiable Credentials (`DELETE /claims`): with the Access Token JWT; failures in `errors`. */
  deleteClaims: defineContract({
    summary: 'Delete Verifiable Credentials',
    description:
      'Takes the Access Token JWT (`Authorization: Bearer <DID-auth JWT>`). Each stored credential of `ids` (`_id`s) may ' +
      'be deleted by the holder of its DID’s owner key or of a role with Write assigned to it; a credential with no DID ' +
      '(no `id`, or a non-DID URI) or whose DID owns itself may also be deleted by whoever stored it. Its role ' +
      'assignments go with it (when no other stored copy has its DID); nothing else changes. Failures are elements of ' +
      '`errors`.',
    auth: 'access',
    tag: TAG,
    audit: { action: 'credential.delete', target: 'credential' },
    errors: BODY_ERRORS,
    routes: [{ method: 'delete', path: '/claims' }],
    input: deleteClaims,
    batch: 'ids',
    response: deleteClaimsResponse,
    example: { ids: ['4f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21'] },
  }),
  /** Verify Verifiable Credentials (`POST /claims/verify`, or `PATCH /claims` with `operation: "verify"`). */
  verifyClaims: defineContract({
    summary: 'Verify Verifiable Credentials',
    description:
      'Each credential of `claims` (or `vcs`), `{ jsonld }`, `{ jwt }` or `{ sdjwt }`, is answered with `verified`, its ' +
      '`issuer` and the named `checks` (every proof by a key of the issuer’s current DID document — its owner or a live ' +
      'veriKey/sigAuth delegate —, `issuanceDate`/`nbf` not in the future, `expirationDate`/`exp` not past; an SD-JWT ' +
      'VC’s `typ`, `alg`, `signature`, `sd_alg`, `disclosures`, `vct` and dates, and `disclosed`: its claims with the ' +
      'disclosures applied). An invalid ' +
      'credential is `verified: false` in the 200. `resolver` names the DID resolver used and is echoed. Through `PATCH ' +
      '/claims`, `operation: "verify"` is required; through `POST /claims/verify` it may be omitted.',
    auth: 'tenant+did',
    tag: TAG,
    errors: BODY_ERRORS,
    routes: [
      { method: 'post', path: '/claims/verify' },
      { method: 'patch', path: '/claims', discriminator: { field: 'operation', value: 'verify' } },
    ],
    input: verifyClaims,
    batch: ['claims', 'vcs'],
    response: verifyClaimsResponse,
    example: { resolver: 'default', claims: [{ jwt: 'eyJhbGciOiJFUzI1NksiLCJ0eXAiOiJKV1QifQ.eyJ2YyI6e319.c2ln' }] },
  }),
  /** Patch Verifiable Credentials with new Proofs (`POST /claims/proofs`, or `PATCH /claims` with `operation: "addProof"`). */
  addProofs: defineContract({
    summary: 'Patch Verifiable Credentials with new Proofs',
    description:
      'Each JSON-LD credential of `claims` (or `vcs`) — a stored one by `_id`, or a given `jsonld` (the tenant’s stored ' +
      'records with its `id` are updated too) — gets a proof by `iss` (a wallet of the tenant the caller controls; ' +
      'default the first DID the caller acts through), appended to its proof set; the caller must hold the owner key of ' +
      'the credential’s DID or a role with Write assigned to it (spec rule 5); a JWT cannot take a second proof (422 per ' +
      'item). Failures are elements of `errors`. Through `PATCH /claims`, `operation: "addProof"` is required; through ' +
      '`POST /claims/proofs` it may be omitted.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'credential.addProof', target: 'issuer', targetField: 'iss' },
    errors: BODY_ERRORS,
    routes: [
      { method: 'post', path: '/claims/proofs' },
      { method: 'patch', path: '/claims', discriminator: { field: 'operation', value: 'addProof' } },
    ],
    input: addProofs,
    batch: ['claims', 'vcs'],
    response: proofsResponse,
    example: { iss: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72', claims: [{ _id: '4f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21' }] },
  }),
  /** Remove Proofs (`PATCH /claims` with `operation: "removeProof"`, extension). */
  removeProofs: defineContract({
    summary: 'Remove Proofs from Verifiable Credentials',
    description:
      'An extension: removes from each JSON-LD credential of `claims` (or `vcs`), under the write rule of adding a ' +
      'proof, the proofs whose `creator`/`verificationMethod` names a DID whose owner key the caller holds. Failures are ' +
      'elements of `errors`. Through `PATCH /claims`, `operation: "removeProof"` is required.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'credential.removeProof', target: 'credential' },
    errors: BODY_ERRORS,
    routes: [{ method: 'patch', path: '/claims', discriminator: { field: 'operation', value: 'removeProof' } }],
    input: removeProofs,
    batch: ['claims', 'vcs'],
    response: proofsResponse,
    example: { operation: 'removeProof', claims: [{ _id: '4f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21' }] },
  }),
}

/**
 * The contracts of the operations on verifiable presentations (see `operations/contract.ts`):
 * summary, auth, tag, errors, routes, schemas, example. Browser-safe: schemas and types only.
 */
import { BODY_ERRORS, defineContract } from '../operations/contract.js'
import {
  deriveCredential,
  deriveCredentialResponse,
  signPresentation,
  signPresentationResponse,
  verifyPresentation,
  verifyPresentationResponse,
} from './schemas.js'

const TAG = 'Verifiable presentations'

export const PRESENTATION_CONTRACTS = {
  /** Sign a Verifiable Presentation (`POST /presentations/sign`): credentials presented by a holder the caller controls. */
  signPresentation: defineContract({
    summary: 'Sign a Verifiable Presentation',
    description:
      'Presents `vcs` — stored credentials by `_id` (each one the caller may read, else 422 NOT_FOUND whether it exists or ' +
      'not), `{ jwt }` or `{ jsonld }` — signed by `holder`, a wallet DID of the tenant the caller controls (the rule of ' +
      '`iss` in Sign Verifiable Credentials: the key of its DID’s current owner signs; an MPC wallet with its quorum’s ' +
      'approvals). The verifier’s binding by either name: `JWT`: a VP-JWT (did-jwt-vc, ES256K) with `nonce` (or ' +
      '`challenge`) and `aud` (or `domain`; a list allowed). `JSON-LD`: an `EcdsaSecp256k1RecoverySignature2020` proof, ' +
      'purpose `authentication`, with the required `challenge` (or `nonce`) and an optional `domain` (or a single `aud`); ' +
      'it holds JSON-LD credentials only. Both names of one binding with different values, or an `aud` list for JSON-LD, ' +
      'are 422. `expiresIn` (milliseconds) sets `exp` (whole seconds) / the proof’s `expires` (a `DataIntegrityProof`: ' +
      '422, its library writes no `expires`). At most 1,000 credentials. ' +
      '`SD-JWT`: exactly one SD-JWT VC `{ sdjwt }` (a stored one by `_id`: 422, not supported yet), `disclose` (JSON ' +
      'pointers of the claims shown; default none), `nonce` and a single `aud` required; answers `{ presentation: { sdjwt } }`, ' +
      'the SD-JWT with only those disclosures and a KB-JWT (`typ: kb+jwt`, `iat`, `aud`, `nonce`, `sd_hash`) signed by the ' +
      'credential’s `cnf.jwk`: the key of a wallet of the tenant the caller controls (403 otherwise). `holder` is optional ' +
      'there; when given, its current `authentication` must hold that key (422 otherwise).',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'presentation.sign', target: 'wallet', targetField: 'holder' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/presentations/sign' }],
    input: signPresentation,
    response: signPresentationResponse,
    example: {
      holder: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72',
      format: 'JWT',
      nonce: 'n-0S6_WzA2Mj',
      aud: 'https://verifier.example',
      vcs: [{ _id: '4f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21' }],
    },
  }),
  /** Derive a credential (`POST /presentations/derive`): a holder's selective disclosure of an ecdsa-sd-2023 credential. */
  deriveCredential: defineContract({
    summary: 'Derive a Verifiable Credential',
    description:
      'From a JSON-LD credential with an `ecdsa-sd-2023` base proof — given (`jsonld`; any tenant may derive, the holder ' +
      'need not be the issuer’s tenant) or stored (`_id`, one the caller may read, else 422 NOT_FOUND whether it exists or ' +
      'not) — the credential revealing only the claims the issuer made mandatory (`mandatoryPointers` of Sign) and those ' +
      '`selectivePointers` select, with a derived proof any verifier checks (`POST /claims/verify`); present it with ' +
      '`POST /presentations/sign` like any other. Uses no key and writes nothing. No single ecdsa-sd-2023 base proof, a ' +
      'malformed pointer or one that selects nothing: 422.',
    auth: 'tenant+did',
    tag: TAG,
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/presentations/derive' }],
    input: deriveCredential,
    response: deriveCredentialResponse,
    example: {
      _id: '4f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21',
      selectivePointers: ['/credentialSubject/degree/name'],
    },
  }),
  /** Verify a Verifiable Presentation (`POST /presentations/verify`). */
  verifyPresentation: defineContract({
    summary: 'Verify a Verifiable Presentation',
    description:
      'Answers `verified`, the `holder`, named `checks` and `vcs`, each embedded credential’s result exactly as `POST ' +
      '/claims/verify` gives it. Checked: the proof (JSON-LD) or signature (JWT) by an `authentication` key of the ' +
      'holder’s current DID document (did:ethr: its owner or a live sigAuth delegate); the proof purpose; every binding ' +
      'the request asks for, by either name (JWT: `nonce` = `challenge`, `aud` = `domain`; JSON-LD: `challenge` = ' +
      '`nonce`, `domain` = `aud`; both names differing is 422); expiry; every embedded credential ' +
      '(`credential`, one per credential); with `holderBinding: true`, each credential’s subject is the holder. ' +
      '`{ sdjwt }` (an SD-JWT VC presentation; `nonce` and `aud` required): the KB-JWT’s checks `kb`, `kbSignature` (by ' +
      '`cnf.jwk`), `sd_hash`, `nonce`, `aud`, `kbIat` (issued within the last 300 s, 60 s skew), then the credential as ' +
      '`/claims/verify` checks it, its `disclosed` claims in `vcs[0]`; `holder` is null. An ' +
      'invalid presentation is `verified: false` in the 200.',
    auth: 'tenant+did',
    tag: TAG,
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/presentations/verify' }],
    input: verifyPresentation,
    response: verifyPresentationResponse,
    example: { presentation: { jwt: 'eyJhbGciOiJFUzI1NksiLCJ0eXAiOiJKV1QifQ.eyJ2cCI6e319.c2ln' }, nonce: 'n-0S6_WzA2Mj' },
  }),
}

/**
 * The presentations' slice of the access policy. Presenting as `holder` is `controlWallet` of the
 * holder's wallet, the rule of Sign Verifiable Credentials' `iss` (an MPC wallet: its quorum's
 * approvals instead), enforced by the same code (`issuerSigner`). Presenting a stored credential
 * is reading it: the one read rule, so a credential the caller may not read is refused exactly
 * as one that does not exist. Pure: see `auth/policy-engine.ts`.
 */
import { decide } from '../auth/policy-engine.js'
import { CREDENTIAL_RULES } from '../credentials/policy.js'
import type { ReadableCredential, ReaderFacts } from '../credentials/read-rule.js'

export const PRESENTATION_RULES = {
  presentStoredCredential: CREDENTIAL_RULES.readCredential,
}

/** Include a stored credential (`{ _id }`) in a presentation. */
export const canPresentStoredCredential = (caller: ReaderFacts, credential: ReadableCredential) =>
  decide(PRESENTATION_RULES.presentStoredCredential, caller, credential).allowed

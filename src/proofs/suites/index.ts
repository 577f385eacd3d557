/**
 * The registry of JSON-LD proof suites: one line per suite (its folder implements {@link ProofSuite}), the suite each
 * key type signs with by default, and the one rule that picks the suite of a new proof — or answers 422 — from a
 * request's `proofType` / `cryptosuite` and the signing key's type. The only module imported from outside
 * `proofs/suites/` (test/architecture/layers.test.ts).
 */
import { invalid } from '../../errors.js'
import { DATA_INTEGRITY_PROOF, KOBLITZ_2016, RECOVERY_2020 } from '../jsonld/suite-names.js'
import { shown } from '../jsonld/errors.js'
import {
  BBS_2023_SUITE,
  ECDSA_JCS_2019_SUITE,
  ECDSA_RDFC_2019_SUITE,
  ECDSA_SD_2023_SUITE,
  EDDSA_JCS_2022_SUITE,
  EDDSA_RDFC_2022_SUITE,
} from './data-integrity/index.js'
import { KOBLITZ_2016_SUITE } from './koblitz2016/index.js'
import type { ProofSuite, SuiteKeyType, SuiteRequest } from './port.js'
import { RECOVERY_2020_SUITE } from './recovery2020/index.js'

export type { ProofCheckContext, ProofObject, ProofSigner, ProofSuite, SuiteKeyType, SuiteRequest } from './port.js'
export { KOBLITZ_2016, koblitz2016Digest, signKoblitz2016, verifyKoblitz2016, type Koblitz2016Proof } from './koblitz2016/index.js'
export { DATA_INTEGRITY_NO_EXPIRES } from './data-integrity/index.js'
export { RECOVERY_2020, signRecovery2020, verifyRecovery2020, type Recovery2020Proof } from './recovery2020/index.js'

/** The registered suites, one line each. */
const SUITES: readonly ProofSuite[] = [
  KOBLITZ_2016_SUITE,
  RECOVERY_2020_SUITE,
  ECDSA_RDFC_2019_SUITE,
  EDDSA_RDFC_2022_SUITE,
  ECDSA_JCS_2019_SUITE,
  EDDSA_JCS_2022_SUITE,
  ECDSA_SD_2023_SUITE,
  BBS_2023_SUITE,
]

/** The suite a credential's proof takes by default, by the signing key's type. */
export const DEFAULT_SUITE_OF: Readonly<Record<SuiteKeyType, SuiteRequest>> = {
  secp256k1: { proofType: KOBLITZ_2016 },
  'P-256': { proofType: DATA_INTEGRITY_PROOF, cryptosuite: 'ecdsa-rdfc-2019' },
  Ed25519: { proofType: DATA_INTEGRITY_PROOF, cryptosuite: 'eddsa-rdfc-2022' },
  Bls12381G2: { proofType: DATA_INTEGRITY_PROOF, cryptosuite: 'bbs-2023' },
}

/** The suite a presentation's proof takes by default (one that {@link ProofSuite.authenticates}), by key type. */
export const DEFAULT_PRESENTATION_SUITE_OF: Readonly<Record<SuiteKeyType, SuiteRequest>> = {
  ...DEFAULT_SUITE_OF,
  secp256k1: { proofType: RECOVERY_2020 },
}

/** The registered suites. */
export function proofSuites(): readonly ProofSuite[] {
  return SUITES
}

/** The registered suite of a proof's `type` and `cryptosuite` (a Data Integrity proof is named by both), or undefined. */
export function suiteOfProof(type: string, cryptosuite?: string): ProofSuite | undefined {
  return SUITES.find((s) => s.type === type && (s.cryptosuite === undefined || s.cryptosuite === cryptosuite))
}

/** How a suite is named: its type, and its cryptosuite in parentheses. */
export function suiteName(suite: SuiteRequest & { type?: string }): string {
  const type = suite.type ?? suite.proofType ?? DATA_INTEGRITY_PROOF
  return suite.cryptosuite === undefined ? type : `${type} (${suite.cryptosuite})`
}

/** The registered suites that sign with `keyType` (those that authenticate, for a presentation). */
export function suitesFor(keyType: SuiteKeyType, use: SuiteUse = 'credential'): ProofSuite[] {
  return SUITES.filter((s) => s.keyTypes.includes(keyType) && (use === 'credential' || s.authenticates))
}

/** What the proof is for: a credential's (assertion) or a presentation's (authentication, with a challenge). */
export type SuiteUse = 'credential' | 'presentation'

/**
 * The suite of a new proof by a `keyType` key: the one `request` names (`proofType`; `DataIntegrityProof` with a
 * `cryptosuite`, or the `cryptosuite` alone), else the key type's default.
 *
 * @throws {IdentityError} 422 — nothing is signed — for a `cryptosuite` with a `proofType` other than
 * `DataIntegrityProof`, a proof type or cryptosuite not registered, a suite that does not sign with `keyType` keys
 * (or, for a presentation, takes no challenge), or a key type whose default suite is not registered; each names the
 * suites that fit
 */
export function suiteToSign(keyType: SuiteKeyType, request: SuiteRequest = {}, use: SuiteUse = 'credential'): ProofSuite {
  const { proofType, cryptosuite } = request
  if (cryptosuite !== undefined && proofType !== undefined && proofType !== DATA_INTEGRITY_PROOF)
    throw invalid(`cryptosuite: only with proofType "${DATA_INTEGRITY_PROOF}" (or alone), not with ${JSON.stringify(shown(proofType))}`)
  const named = proofType !== undefined || cryptosuite !== undefined
  const wanted = named ? request : (use === 'presentation' ? DEFAULT_PRESENTATION_SUITE_OF : DEFAULT_SUITE_OF)[keyType]
  const type = wanted.proofType ?? DATA_INTEGRITY_PROOF
  if (type === DATA_INTEGRITY_PROOF && wanted.cryptosuite === undefined) {
    const fitting = suitesFor(keyType, use).filter((s) => s.type === DATA_INTEGRITY_PROOF)
    throw invalid(`cryptosuite: name the cryptosuite of a ${DATA_INTEGRITY_PROOF} (for ${keyType} keys: ${listed(fitting)})`)
  }
  const suite = suiteOfProof(type, wanted.cryptosuite)
  if (suite === undefined) {
    const field = wanted.cryptosuite === undefined ? 'proofType' : 'cryptosuite'
    const what =
      wanted.cryptosuite === undefined
        ? `proof type ${JSON.stringify(shown(type))}`
        : `cryptosuite ${JSON.stringify(shown(wanted.cryptosuite))}`
    if (named) throw invalid(`${field}: unsupported ${what}; the registered suites: ${listed(SUITES)}`)
    const others = suitesFor(keyType, use)
    const instead =
      others.length === 0
        ? `Data Integrity suites for ${keyType} keys are not registered. Sign as a JWT (format: "JWT")`
        : `name one that signs with ${keyType} keys: ${listed(others)}`
    throw invalid(
      `a ${keyType} key cannot sign a JSON-LD proof here: its suite ${suiteName(wanted)} is not registered; ` +
        `${described(SUITES)}; ${instead}`,
    )
  }
  const fitting = `for ${keyType} keys: ${listed(suitesFor(keyType, use))}`
  if (!suite.keyTypes.includes(keyType)) {
    const field = wanted.cryptosuite !== undefined ? 'cryptosuite' : 'proofType'
    throw invalid(`${field}: ${suiteName(suite)} signs with ${suite.keyTypes.join(', ')} keys, not ${keyType}; ${fitting}`)
  }
  if (use === 'presentation' && !suite.authenticates)
    throw invalid(`proofType: ${suiteName(suite)} takes no challenge, so it cannot sign a presentation; ${fitting}`)
  return suite
}

/** Suites by name, or "none registered". */
function listed(suites: readonly ProofSuite[]): string {
  return suites.length === 0 ? 'none registered' : suites.map(suiteName).join(', ')
}

/** The suites grouped by the key types they sign with: "the registered suites (A, B) sign with secp256k1 keys; …". */
function described(suites: readonly ProofSuite[]): string {
  const byKeys = new Map<string, string[]>()
  for (const suite of suites) {
    const keys = suite.keyTypes.join(', ')
    byKeys.set(keys, [...(byKeys.get(keys) ?? []), suiteName(suite)])
  }
  return [...byKeys].map(([keys, names]) => `the registered suites (${names.join(', ')}) sign with ${keys} keys`).join('; ')
}

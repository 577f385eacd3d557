/**
 * The W3C Bitstring Status List mechanism: one list per issuer, purpose and format, one bit per entry, one entry per
 * purpose of a credential (`BitstringStatusListEntry`), signed as a `BitstringStatusListCredential` in the list's
 * format (JSON-LD with the issuer key's list suite — {@link LIST_SUITE_OF} —, a VC-JWT or VC-JOSE).
 */
import { credentialFormatNamed, type CredentialContent } from '../../credentials/formats/index.js'
import type { KeyType } from '../../keys/key-types.js'
import type { ProofType } from '../../proofs/jsonld/index.js'
import { DATA_INTEGRITY_PROOF, RECOVERY_2020 } from '../../proofs/jsonld/suite-names.js'
import { DEFAULT_SUITE_OF, type SuiteRequest } from '../../proofs/suites/index.js'
import { encodeList } from '../bitstring.js'
import { listUrlOf } from '../list-url.js'
import type { StatusMechanism } from './port.js'

/**
 * The proof suite of a JSON-LD list, by the issuer key's type: the registry's default suite ({@link DEFAULT_SUITE_OF}:
 * ecdsa-rdfc-2019 for P-256, eddsa-rdfc-2022 for Ed25519), except for secp256k1 keys, whose lists are signed with
 * EcdsaSecp256k1RecoverySignature2020, which verifiers outside didvault implement (the transmute suite, Veramo,
 * jsonld-signatures based verifiers) — never with EcdsaKoblitzSignature2016. A list stored with a proof of another
 * suite (by an earlier release) is signed again at its next publication (its version unchanged).
 */
export const LIST_SUITE_OF: Readonly<Record<KeyType, SuiteRequest>> = {
  ...DEFAULT_SUITE_OF,
  secp256k1: { proofType: RECOVERY_2020 },
}

/** Whether `proof` is of a list suite ({@link LIST_SUITE_OF}) of some key type; a list with another is signed again. */
export function isListProof(proof: unknown): boolean {
  if (typeof proof !== 'object' || proof === null) return false
  const { type, cryptosuite } = proof as { type?: unknown; cryptosuite?: unknown }
  return Object.values(LIST_SUITE_OF).some(
    (suite) => type === (suite.proofType ?? DATA_INTEGRITY_PROOF) && cryptosuite === suite.cryptosuite,
  )
}

export const bitstringMechanism: StatusMechanism = {
  name: 'Bitstring Status List',
  entries: 'perPurpose',
  claimOf: (entries) =>
    entries.map(({ url, index, purpose }) => ({
      id: `${url}#${index}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: purpose,
      statusListIndex: String(index),
      statusListCredential: url,
    })),
  next(current, purpose, value) {
    if (purpose === 'revocation' && current === 1 && !value) return 'revocation is final (a revoked entry is never unrevoked)'
    return value ? 1 : 0
  },
  valueFor: (status) => status !== 0,
  async sign({ list, statuses, signer, now, resolver }) {
    const encodedList = await encodeList(list.size, statuses.keys())
    const url = listUrlOf(list.baseUrl, list.id)
    const format = credentialFormatNamed(list.format)
    const content: CredentialContent = {
      id: url,
      issuer: list.issuer,
      subject: `${url}#list`,
      claims: { type: 'BitstringStatusList', statusPurpose: list.purpose, encodedList },
      contexts: format.statusListContexts,
      types: ['BitstringStatusListCredential'],
      issuedAt: now,
    }
    // The registry's names: a proof type of PROOF_TYPES (a VC-JWT or VC-JOSE list reads neither).
    const { proofType, cryptosuite } = LIST_SUITE_OF[signer.keyType] as { proofType?: ProofType; cryptosuite?: string }
    const credential = await format.issue(content, signer, { proofType, cryptosuite, undefinedTerms: 'reject', resolver })
    return { credential, encodedList }
  },
  mediaType: (list) => credentialFormatNamed(list.format).mediaType,
}

/**
 * The W3C Bitstring Status List mechanism: one list per issuer, purpose and format, one bit per entry, one entry per
 * purpose of a credential (`BitstringStatusListEntry`), signed as a `BitstringStatusListCredential` in the list's
 * format (JSON-LD with EcdsaSecp256k1RecoverySignature2020, or a VC-JWT).
 */
import { credentialFormatNamed, type CredentialContent } from '../../credentials/formats/index.js'
import { RECOVERY_2020 } from '../../proofs/jsonld/suite-names.js'
import { encodeList } from '../bitstring.js'
import { listUrlOf } from '../list-url.js'
import type { StatusMechanism } from './port.js'

/**
 * The proof suite of JSON-LD lists: EcdsaSecp256k1RecoverySignature2020, which verifiers outside
 * didvault implement (the transmute suite, Veramo, jsonld-signatures based verifiers). Lists of
 * secp256k1 issuers are never signed with EcdsaKoblitzSignature2016 again; a list an earlier
 * release stored with it is signed again at its next publication (its version unchanged).
 */
export const LIST_PROOF_TYPE = RECOVERY_2020

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
    const credential = await format.issue(content, signer, { proofType: LIST_PROOF_TYPE, undefinedTerms: 'reject', resolver })
    return { credential, encodedList }
  },
  mediaType: (list) => credentialFormatNamed(list.format).mediaType,
}

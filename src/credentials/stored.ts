/**
 * A stored credential in the encoded form requests and responses carry: the record's `encoded` with what the record
 * keeps sealed (an SD-JWT VC's disclosures) opened — and sealing those when a record is made. Whoever calls it has
 * decided already that the caller may read the record (the read rule).
 */
import type { KeyCustody } from '../custody/key-custody.js'
import { credentialFormatNamed, memberOf, type CredentialFormat, type CredentialMember, type EncodedCredential } from './formats/index.js'
import { CREDENTIALS, encodedOfRecord, type CredentialRecord } from './records.js'

const DISCLOSURES = 'disclosures'

/** The record's sealed `disclosures` field for `disclosures` (none when there are none). */
export function sealDisclosures(
  custody: KeyCustody,
  record: Pick<CredentialRecord, 'tenantId' | 'id'>,
  disclosures: readonly string[] | undefined,
): Pick<CredentialRecord, 'disclosures'> {
  if (disclosures === undefined || disclosures.length === 0) return {}
  return { disclosures: custody.seal(CREDENTIALS.name, record, DISCLOSURES, new TextEncoder().encode(JSON.stringify(disclosures))) }
}

/** The format and the whole encoded credential of a stored record (any release's), its sealed parts opened. */
export function storedCredential(custody: KeyCustody, record: CredentialRecord): { format: CredentialFormat; encoded: EncodedCredential } {
  const { format: name, encoded } = encodedOfRecord(record)
  const format = credentialFormatNamed(name)
  if (record.disclosures === undefined) return { format, encoded: format.assemble(encoded, []) }
  const plain = custody.open(CREDENTIALS.name, record, DISCLOSURES, record.disclosures)
  try {
    return { format, encoded: format.assemble(encoded, JSON.parse(new TextDecoder().decode(plain)) as string[]) }
  } finally {
    plain.fill(0)
  }
}

/**
 * A stored credential in its wire member (`{ jsonld }`, `{ jwt }`, `{ sdjwt }` with its disclosures): what Fetch answers
 * and what a presentation of a stored `_id` carries. Only for a record the caller may read.
 */
export function storedMember(custody: KeyCustody, record: CredentialRecord): CredentialMember {
  const { format, encoded } = storedCredential(custody, record)
  return memberOf(encoded, format)
}

/** The W3C credential document a stored record carries (a VC-JWT's `vc`; none for an SD-JWT VC), its sealed parts left sealed. */
export function storedDocument(record: CredentialRecord): Record<string, unknown> | undefined {
  const { format, encoded } = encodedOfRecord(record)
  return credentialFormatNamed(format).document(encoded)
}

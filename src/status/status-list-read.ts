/**
 * A status list credential read: verified the way the service verifies any credential (JWT or
 * JSON-LD; its own status is not checked), then its list decoded — GZIP, base64url, with a
 * multibase `u` prefix for a `BitstringStatusListCredential` and none for a
 * `StatusList2021Credential` — into an `@digitalbazaar/bitstring` `Bitstring`. The decoded list
 * is capped (`maxBytes`): a small GZIP that inflates past it is refused.
 */
import { gunzipSync } from 'node:zlib'
import { Bitstring } from '@digitalbazaar/bitstring'
import { credentialFormatOf, type CredentialVerification, type CredentialVerifyOptions } from '../credentials/formats/index.js'
import { ENTRY_TYPES, type EntryType, type StatusProblem } from './status-list-entry.js'

/** A verified list: who issued it, what for, its bits, and the entry type it serves. */
export interface ReadList {
  entryType: EntryType
  issuer: string
  purposes: string[]
  bits: Bitstring
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const malformed = (error: string): StatusProblem => ({ reason: 'malformedList', error: `status list: ${error}` })

/** `credential` verified and decoded, or why not. Never throws. */
export async function readStatusList(
  credential: string | Record<string, unknown>,
  options: CredentialVerifyOptions,
  maxBytes: number,
): Promise<ReadList | StatusProblem> {
  const listOptions = { ...options, status: undefined }
  const format = credentialFormatOf(credential)
  let verification: CredentialVerification
  try {
    verification = await format.verify(credential, listOptions)
  } catch (err) {
    return { reason: 'listNotVerified', error: `status list credential: ${err instanceof Error ? err.message : 'not verified'}` }
  }
  if (!verification.verified || verification.issuer === null)
    return { reason: 'listNotVerified', error: `status list credential: ${verification.error ?? 'no issuer'}` }
  const body = format.document(credential)
  if (body === undefined) return malformed('no credential in the JWT')
  const types: unknown[] = Array.isArray(body.type) ? body.type : [body.type]
  const entryType = (Object.keys(ENTRY_TYPES) as EntryType[]).find((t) => types.includes(ENTRY_TYPES[t].list))
  if (entryType === undefined)
    return malformed(
      `not a ${Object.values(ENTRY_TYPES)
        .map((t) => t.list)
        .join(' or ')}`,
    )
  const subject = body.credentialSubject
  if (!isRecord(subject)) return malformed('credentialSubject: must be an object')
  const purposes = (Array.isArray(subject.statusPurpose) ? subject.statusPurpose : [subject.statusPurpose]).filter(
    (p) => typeof p === 'string',
  )
  if (purposes.length === 0) return malformed('credentialSubject.statusPurpose: missing')
  const bits = decodeList(subject.encodedList, ENTRY_TYPES[entryType].multibase, maxBytes)
  if (!(bits instanceof Bitstring)) return bits
  return { entryType, issuer: verification.issuer, purposes, bits }
}

function decodeList(encoded: unknown, multibase: boolean, maxBytes: number): Bitstring | StatusProblem {
  if (typeof encoded !== 'string') return malformed('encodedList: missing')
  if (multibase && !encoded.startsWith('u')) return malformed('encodedList: must be multibase base64url (a "u" prefix)')
  const base64url = multibase ? encoded.slice(1) : encoded
  if (!/^[A-Za-z0-9_-]+$/.test(base64url)) return malformed('encodedList: not base64url')
  let decoded: Buffer
  try {
    decoded = gunzipSync(Buffer.from(base64url, 'base64url'), { maxOutputLength: maxBytes })
  } catch (err) {
    const tooLong = err instanceof RangeError || (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE'
    return malformed(tooLong ? `encodedList: decodes to more than ${maxBytes} bytes` : 'encodedList: not GZIP')
  }
  if (decoded.length === 0) return malformed('encodedList: empty')
  // A copy: Bitstring takes the whole ArrayBuffer of the array it is given, and zlib's may be larger.
  return new Bitstring({ buffer: new Uint8Array(decoded) })
}

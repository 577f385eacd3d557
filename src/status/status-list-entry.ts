/**
 * The `credentialStatus` entries didvault reads: W3C Bitstring Status List v1.0's
 * `BitstringStatusListEntry` and the older W3C CCG `StatusList2021Entry` (Veramo's), each
 * parsed into what a status check needs, or the named reason it cannot be.
 */
import type { StatusFailure } from '../credentials/schemas.js'

/** The entry types read, with the type of the list credential each points to. */
export const ENTRY_TYPES = {
  BitstringStatusListEntry: { list: 'BitstringStatusListCredential', subject: 'BitstringStatusList', multibase: true },
  StatusList2021Entry: { list: 'StatusList2021Credential', subject: 'StatusList2021', multibase: false },
} as const

export type EntryType = keyof typeof ENTRY_TYPES

/** A status entry, parsed. */
export interface StatusEntry {
  type: EntryType
  purpose: string
  /** The bit's index in the list. */
  index: number
  /** The list credential's URL, as the entry gives it. */
  statusListCredential: string
  /** The URL, parsed (http or https). */
  url: URL
}

/** A failed check's reason and message. */
export interface StatusProblem {
  reason: StatusFailure
  error: string
}

/** What a check reports of an entry, parsed or not (the fields present in it). */
export interface EntryFields {
  type?: string
  purpose?: string
  statusListCredential?: string
  statusListIndex?: string
}

const INDEX = /^(0|[1-9]\d{0,14})$/

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v.slice(0, 2_000) : undefined)

/** The fields of `entry` a check reports, whatever the entry is. */
export function entryFields(entry: unknown): EntryFields {
  if (!isRecord(entry)) return {}
  const index = typeof entry.statusListIndex === 'number' ? String(entry.statusListIndex) : text(entry.statusListIndex)
  return {
    ...(text(entry.type) !== undefined && { type: text(entry.type) }),
    ...(text(entry.statusPurpose) !== undefined && { purpose: text(entry.statusPurpose) }),
    ...(text(entry.statusListCredential) !== undefined && { statusListCredential: text(entry.statusListCredential) }),
    ...(index !== undefined && { statusListIndex: index }),
  }
}

/** `entry` parsed, or why it is not read: an unknown type, a malformed field, a `statusSize` other than 1. */
export function parseEntry(entry: unknown): StatusEntry | StatusProblem {
  if (!isRecord(entry)) return { reason: 'malformedEntry', error: 'a status entry must be an object' }
  const type = entry.type
  if (typeof type !== 'string' || !Object.hasOwn(ENTRY_TYPES, type)) {
    const known = Object.keys(ENTRY_TYPES).join(', ')
    return { reason: 'unsupportedEntry', error: `status entry type ${JSON.stringify(text(type) ?? type ?? null)} is not read (${known})` }
  }
  const purpose = entry.statusPurpose
  if (typeof purpose !== 'string' || purpose.length === 0) return { reason: 'malformedEntry', error: 'statusPurpose: must be a string' }
  const index = typeof entry.statusListIndex === 'number' ? String(entry.statusListIndex) : entry.statusListIndex
  if (typeof index !== 'string' || !INDEX.test(index))
    return { reason: 'malformedEntry', error: 'statusListIndex: must be a non-negative integer (a string of digits)' }
  const size = entry.statusSize ?? 1
  if (size !== 1 && size !== '1')
    return { reason: 'statusSize', error: `statusSize ${JSON.stringify(text(size) ?? size)} is not supported (only 1)` }
  const listUrl = entry.statusListCredential
  let url: URL | undefined
  try {
    url = typeof listUrl === 'string' ? new URL(listUrl) : undefined
  } catch {
    url = undefined
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || typeof listUrl !== 'string')
    return { reason: 'malformedEntry', error: 'statusListCredential: must be an http(s) URL' }
  return { type: type as EntryType, purpose, index: Number(index), statusListCredential: listUrl, url }
}

/** The entries of a `credentialStatus` value: one entry, or an array of them. */
export const entriesOf = (credentialStatus: unknown): unknown[] => (Array.isArray(credentialStatus) ? credentialStatus : [credentialStatus])

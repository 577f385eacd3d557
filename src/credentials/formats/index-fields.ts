/** Reading the index fields of a credential (shared by the formats' `parse`). */
import { normalizeDid, principalOf } from '../../did/methods/ethr/index.js'
import type { CredentialRecord } from '../records.js'
import type { ParsedCredential } from './port.js'

/** A non-empty string, or undefined. */
export const asString = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined)

/** The string members of a `type` (one type or an array). */
export const typesOf = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : []

const didOrUndefined = (v: string | undefined) => (v !== undefined && v.startsWith('did:') ? v : undefined)

/**
 * The credential's id, issuer and subject as indexed: DIDs as principals (did:ethr in address
 * form, checksummed); and, where the credential spells one otherwise (a public-key did:ethr),
 * that spelling in `spelled`, which responses show.
 */
export function ids(
  vcId?: string,
  issuer?: string,
  subject?: string,
): Pick<ParsedCredential, 'vcId' | 'did' | 'issuer' | 'subject' | 'spelled'> {
  const given = { vcId, issuer, subject }
  const indexed: Pick<ParsedCredential, 'vcId' | 'issuer' | 'subject'> = {}
  const spelled: NonNullable<CredentialRecord['spelled']> = {}
  for (const field of ['vcId', 'issuer', 'subject'] as const) {
    const value = given[field]
    if (value === undefined) continue
    indexed[field] = principalOf(value)
    const shown = normalizeDid(value)
    if (shown !== indexed[field]) spelled[field] = shown
  }
  return {
    ...indexed,
    ...(didOrUndefined(indexed.vcId) !== undefined && { did: indexed.vcId }),
    ...(Object.keys(spelled).length > 0 && { spelled }),
  }
}

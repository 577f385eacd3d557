/**
 * `transaction_data` (OID4VP 1.0 §5.1, §8.4, Appendix B.3.3): each entry of the request names the credential queries
 * it is for (`credential_ids`); the presentation of such a credential must carry the entry's hash — for SD-JWT VCs in
 * its KB-JWT's `transaction_data_hashes` (base64url SHA-256 of the entry as the request carried it, base64url string
 * included), with `transaction_data_hashes_alg` `sha-256` when named. The other formats define no place for the hashes:
 * a presentation in them for a query that transaction data names fails. Run on a verified presentation (its KB-JWT's
 * signature checked).
 */
import { createHash } from 'node:crypto'
import { decodeJwt } from '../proofs/jwt-verifier.js'
import type { OutcomeCheck } from './outcome-schemas.js'

/** The entries of `transactionData` that name credential query `queryId`, or why an entry cannot be read. */
export function entriesFor(transactionData: readonly string[], queryId: string): string[] | { error: string } {
  const entries: string[] = []
  for (const [i, entry] of transactionData.entries()) {
    let decoded: unknown
    try {
      decoded = /^[A-Za-z0-9_-]+$/.test(entry) ? JSON.parse(Buffer.from(entry, 'base64url').toString('utf8')) : undefined
    } catch {
      decoded = undefined
    }
    const ids = (decoded as { credential_ids?: unknown } | undefined)?.credential_ids
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))
      return { error: `transaction_data ${i} is not base64url JSON naming its credential_ids` }
    if (ids.includes(queryId)) entries.push(entry)
  }
  return entries
}

/** The base64url SHA-256 of a transaction data entry, as the wallet hashes it. */
export const transactionDataHash = (entry: string): string => createHash('sha256').update(entry, 'ascii').digest('base64url')

/**
 * The `transaction_data` check of one presentation of credential query `queryId` in `format`, or undefined when no
 * entry names the query.
 */
export function transactionDataCheck(
  transactionData: readonly string[] | undefined,
  queryId: string,
  format: string,
  presentation: unknown,
): OutcomeCheck | undefined {
  if (transactionData === undefined || transactionData.length === 0) return undefined
  const entries = entriesFor(transactionData, queryId)
  const failed = (error: string): OutcomeCheck => ({ check: 'transaction_data', verified: false, error })
  if (!Array.isArray(entries)) return failed(entries.error)
  if (entries.length === 0) return undefined
  if (format !== 'dc+sd-jwt' || typeof presentation !== 'string')
    return failed(`transaction data names credential query '${queryId}', presented as ${format}, which carries no transaction data hashes`)
  const kbJwt = presentation.slice(presentation.lastIndexOf('~') + 1)
  let payload: Record<string, unknown>
  try {
    payload = decodeJwt(kbJwt).payload
  } catch {
    return failed('the key binding JWT does not read')
  }
  const alg = payload.transaction_data_hashes_alg
  if (alg !== undefined && alg !== 'sha-256') return failed('transaction_data_hashes_alg is not sha-256')
  const hashes = payload.transaction_data_hashes
  if (!Array.isArray(hashes)) return failed('the key binding JWT carries no transaction_data_hashes')
  const missing = entries.findIndex((entry) => !hashes.includes(transactionDataHash(entry)))
  if (missing >= 0) return failed(`transaction_data_hashes lacks the hash of a transaction data entry for '${queryId}'`)
  return { check: 'transaction_data', verified: true }
}

/**
 * The first entry of `transactionData` that no presented credential query covers (its `credential_ids` name none of
 * `presented`), as an error; undefined when each is covered. A wallet that leaves out every credential an entry is for
 * (a `credential_sets` option, an optional set) has not authorized the transaction.
 */
export function uncoveredTransactionData(transactionData: readonly string[] | undefined, presented: readonly string[]): string | undefined {
  for (const [i, entry] of (transactionData ?? []).entries()) {
    let ids: unknown
    try {
      ids = (JSON.parse(Buffer.from(entry, 'base64url').toString('utf8')) as { credential_ids?: unknown }).credential_ids
    } catch {
      return `transaction_data ${i} is not base64url JSON naming its credential_ids`
    }
    if (!Array.isArray(ids) || !ids.some((id) => presented.includes(id as string)))
      return `transaction_data ${i}: none of its credential_ids was presented, so the transaction was not authorized`
  }
  return undefined
}

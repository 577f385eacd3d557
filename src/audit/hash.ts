/**
 * The hash of an audit record: sha256 (hex) over the canonical serialization of its entry
 * without `hash` — JSON with every object's keys sorted, no whitespace, absent fields omitted —,
 * `prevHash` included, so each record commits to the whole chain before it.
 */
import { createHash } from 'node:crypto'
import type { AuditRecord } from './records.js'
import type { AuditEntry } from './schemas.js'

/** JSON with object keys sorted at every depth (the values here are strings, numbers, arrays and plain objects). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined)
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** A stored record as the trail shows it (`GET /audit`, `didvault audit verify`). */
export function entryOf(record: AuditRecord): AuditEntry {
  const entry: AuditEntry = {
    tenant: record.tenantId,
    seq: record.seq,
    time: new Date(record.time).toISOString(),
    actor: {
      ...(record.apiKeyId !== undefined && { apiKeyId: record.apiKeyId }),
      dids: record.actorDids,
      ...(record.actorSystem !== undefined && { system: record.actorSystem }),
    },
    action: record.action as AuditEntry['action'],
    target: {
      type: record.targetType,
      id: record.targetId,
      ...(record.targetRole !== undefined && { role: record.targetRole }),
      ...(record.targetOffer !== undefined && { offer: record.targetOffer }),
      ...(record.targetHolderKey !== undefined && { holderKey: record.targetHolderKey }),
      ...(record.targetEvent !== undefined && { event: record.targetEvent }),
    },
    outcome: record.outcome,
    requestId: record.requestId,
    prevHash: record.prevHash,
    hash: record.hash,
  }
  if (record.error !== undefined) entry.error = record.error
  if (record.approvals !== undefined) entry.approvals = record.approvals
  return entry
}

/** The hash a record must carry: over its entry without `hash` (whatever `record.hash` holds is left out). */
export function hashOf(record: AuditRecord): string {
  const { hash: _hash, ...entry } = entryOf(record)
  return createHash('sha256').update(canonicalJson(entry)).digest('hex')
}

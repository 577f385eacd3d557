/**
 * The ephemeral private key of a `direct_post.jwt` request at rest: sealed by the keyring under the master key, bound
 * to its request record (tenant, id) and field, as the service seals every secret (`KeyCustody`). Opened only by the
 * response endpoint, to decrypt the wallet's JWE.
 */
import type { KeyCustody, SealedRecordRef } from '../custody/key-custody.js'
import { OID4VP_REQUESTS } from './records.js'

/** The field the envelope is bound to (part of its sealing context). */
const FIELD = 'encryption.sealedPrivateJwk'

/** Seals the private JWK of request `record`'s ephemeral key. */
export function sealVpKey(ctx: { custody: KeyCustody }, record: SealedRecordRef, jwk: Record<string, unknown>): string {
  const bytes = new TextEncoder().encode(JSON.stringify(jwk))
  try {
    return ctx.custody.seal(OID4VP_REQUESTS.name, record, FIELD, bytes)
  } finally {
    bytes.fill(0)
  }
}

/** Opens the private JWK sealed by {@link sealVpKey} for the same record. */
export function openVpKey(ctx: { custody: KeyCustody }, record: SealedRecordRef, sealed: string): Record<string, unknown> {
  const bytes = ctx.custody.open(OID4VP_REQUESTS.name, { tenantId: record.tenantId, id: record.id }, FIELD, sealed)
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>
  } finally {
    bytes.fill(0)
  }
}

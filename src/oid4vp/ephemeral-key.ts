/**
 * The ephemeral private key of an encrypted response (`direct_post.jwt`), sealed at rest like every secret the service
 * holds: a keyring envelope under the master key (`KeyCustody`), bound to the collection and field it belongs to, so it
 * opens only as what it is. The record keeps the envelope (`encryption.sealedPrivateJwk`); the key is opened for the
 * one response that is decrypted with it and never written, logged or answered.
 */
import type { KeyCustody } from '../custody/key-custody.js'
import { OID4VP_REQUESTS } from './records.js'

/** What sealing needs of the service. */
export interface VpKeyContext {
  custody: Pick<KeyCustody, 'seal' | 'open'>
}

/**
 * The record and field the envelopes are bound to. One binding for every request: the envelope is made before its
 * record is written, and a request's key decrypts nothing but responses to its own public key (`kid`) anyway.
 */
const SEALED_AT = { tenantId: '_oid4vp', id: 'ephemeral-key' } as const
const FIELD = 'encryption.sealedPrivateJwk'

/** Seals a private JWK: the envelope to store. */
export function sealVpKey(ctx: VpKeyContext, jwk: Record<string, unknown>): string {
  return ctx.custody.seal(OID4VP_REQUESTS.name, SEALED_AT, FIELD, new TextEncoder().encode(JSON.stringify(jwk)))
}

/** Opens an envelope made by {@link sealVpKey}: the private JWK. Throws when it was not sealed by this service's keyring. */
export function openVpKey(ctx: VpKeyContext, sealed: string): Record<string, unknown> {
  const bytes = ctx.custody.open(OID4VP_REQUESTS.name, SEALED_AT, FIELD, sealed)
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>
  } finally {
    bytes.fill(0)
  }
}

/** The Credential Issuer Identifier of a tenant's issuer, and the setting it needs (`publicUrl`). */
import { invalid } from '../errors.js'

/** `<publicUrl>/oid4vci/<slug>`: the Credential Issuer Identifier (OID4VCI 1.0 §12.2.1), no trailing slash. */
export function credentialIssuerOf(publicUrl: string, slug: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/oid4vci/${slug}`
}

/** `publicUrl`, or the 422 of a management operation on a service without it. */
export function requirePublicUrl(publicUrl: string | undefined): string {
  if (publicUrl === undefined)
    throw invalid('publicUrl: the service has no publicUrl, which Credential Issuer Identifiers are made of (set `publicUrl`)')
  return publicUrl
}

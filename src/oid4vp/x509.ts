/**
 * The operator's certificate chain as the `x509_san_dns:` and `x509_hash:` client identifier prefixes use it (OID4VP
 * 1.0 §5.9.3): the `x5c` header (base64 DER, leaf first), the leaf's DNS SAN, the hash of the leaf's DER.
 */
import { X509Certificate, createHash } from 'node:crypto'
import { invalid } from '../errors.js'
import type { Oid4vpX509Options } from './module.js'

/** The chain as `x5c`: each certificate base64 DER (a PEM's body, or the base64 given). */
export function x5cOf(x509: Oid4vpX509Options): string[] {
  return x509.chain.map((cert, index) => {
    try {
      return new X509Certificate(cert.includes('-----BEGIN') ? cert : Buffer.from(cert, 'base64')).raw.toString('base64')
    } catch {
      throw invalid(`oid4vp x509.chain.${index}: not a certificate (PEM or base64 DER)`)
    }
  })
}

/**
 * The client identifier of `prefix` for the chain's leaf: `x509_san_dns:` the DNS name of its subjectAltName that is
 * the host of the response URI (OID4VP 1.0 §5.9.3: wallets check the `response_uri` host against it), or `x509_hash:`
 * base64url SHA-256 of its DER.
 */
export function x509ClientIdOf(prefix: 'x509_san_dns' | 'x509_hash', x5c: readonly string[], host: string): string {
  const der = Buffer.from(x5c[0], 'base64')
  if (prefix === 'x509_hash') return `x509_hash:${createHash('sha256').update(der).digest('base64url')}`
  const names = (new X509Certificate(der).subjectAltName ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.startsWith('DNS:'))
    .map((name) => name.slice(4).toLowerCase())
  if (!names.includes(host.toLowerCase()))
    throw invalid(
      `clientId.prefix: x509_san_dns needs the publicUrl host ${host} among the DNS names of the leaf certificate’s subjectAltName`,
    )
  return `x509_san_dns:${host.toLowerCase()}`
}

/**
 * `serve` as an OpenID for Verifiable Presentations verifier (config section `oid4vp`, `--oid4vp on|off`): the module
 * `didvault/oid4vc` loaded only then (its libraries are optional peers of the package), the operator's certificate
 * chain and key read from their files when configured.
 */
import { createPrivateKey } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import type { Oid4vpSettings } from '../config/schema.js'
import type { Oid4vpModule, Oid4vpX509Options } from '../oid4vp/module.js'
import { withOptionalPeer } from './optional-peer.js'
import { UsageError } from './usage.js'

/** The optional peers the verifier of `didvault/oid4vc` imports. */
export const OID4VP_PEERS = ['@openid4vc/openid4vp', 'dcql', 'jose'] as const

/** Why the verifier cannot run without a public URL. */
export const OID4VP_NEEDS_PUBLIC_URL =
  'oid4vp needs publicUrl (--public-url, DIDVAULT_PUBLIC_URL or publicUrl in the config file): wallets fetch requests ' +
  'at <publicUrl>/oid4vp/request-objects/<id> and answer at <publicUrl>/oid4vp/responses/<id>'

/**
 * The verifier module of the settings, loaded lazily.
 * @throws {UsageError} no `publicUrl`; an x509 file unreadable, not PEM, or its key readable by others
 * @throws {Error} an optional peer missing (naming the packages), or a setting `oid4vp()` refuses
 */
export async function oid4vpModuleOf(settings: Oid4vpSettings, publicUrl: string | undefined): Promise<Oid4vpModule> {
  if (publicUrl === undefined) throw new UsageError(OID4VP_NEEDS_PUBLIC_URL)
  const { enabled: _enabled, x509, ...options } = settings
  const certificates = x509 && readX509(x509)
  const { oid4vp } = await withOptionalPeer(OID4VP_PEERS, 'the OID4VP verifier (oid4vp)', () => import('../oid4vc.js'))
  return oid4vp({ ...options, ...(certificates && { x509: certificates }) })
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/g

/** The chain (base64 DER, leaf first) and the leaf's private key (a JWK, in memory only). */
function readX509(files: NonNullable<Oid4vpSettings['x509']>): Oid4vpX509Options {
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file, 'utf8')
    } catch (err) {
      throw new UsageError(`config oid4vp.x509.${what}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`)
    }
  }
  const chain = [...read(files.chainFile, 'chainFile').matchAll(PEM_CERTIFICATE)].map((m) => m[1].replace(/\s+/g, ''))
  if (chain.length === 0) throw new UsageError(`config oid4vp.x509.chainFile: ${files.chainFile} holds no PEM certificate`)
  const pem = read(files.keyFile, 'keyFile')
  if (statSync(files.keyFile).mode & 0o077)
    throw new UsageError(`config oid4vp.x509.keyFile: ${files.keyFile} is readable by others: chmod 600 it`)
  let privateKeyJwk: Record<string, unknown>
  try {
    privateKeyJwk = createPrivateKey(pem).export({ format: 'jwk' })
  } catch {
    // The key file's content is never echoed.
    throw new UsageError(`config oid4vp.x509.keyFile: ${files.keyFile} is not a PEM private key`)
  }
  return { chain, privateKeyJwk, ...(files.tenants !== undefined && { tenants: files.tenants }) }
}

/**
 * `serve` as an OpenID for Verifiable Credential Issuance issuer (config section `oid4vci`, `--oid4vci on|off`): the
 * module `didvault/oid4vc` loaded only then (its libraries are optional peers of the package), and the issuers the
 * config file declares applied at start.
 */
import type { Oid4vciSettings } from '../config/schema.js'
import type { Oid4vciModule } from '../oid4vci/module.js'
import type { IdentityService } from '../service/identity-service.js'
import { withOptionalPeer } from './optional-peer.js'
import { UsageError } from './usage.js'

/** The optional peers `didvault/oid4vc` imports. */
export const OID4VCI_PEERS = ['@openid4vc/openid4vci', '@openid4vc/oauth2', '@openid4vc/utils'] as const

/** Why the issuer cannot run without a public URL. */
export const OID4VCI_NEEDS_PUBLIC_URL =
  'oid4vci needs publicUrl (--public-url, DIDVAULT_PUBLIC_URL or publicUrl in the config file): a Credential Issuer ' +
  'Identifier is <publicUrl>/oid4vci/<slug>, the https URL wallets reach the issuer at'

/**
 * The issuer module of the settings, loaded lazily.
 * @throws {UsageError} no `publicUrl`
 * @throws {Error} an optional peer missing (naming the packages), or a setting `oid4vci()` refuses
 */
export async function oid4vciModuleOf(settings: Oid4vciSettings, publicUrl: string | undefined): Promise<Oid4vciModule> {
  if (publicUrl === undefined) throw new UsageError(OID4VCI_NEEDS_PUBLIC_URL)
  const { oid4vci } = await withOptionalPeer(OID4VCI_PEERS, 'the OID4VCI issuer (oid4vci)', () => import('../oid4vc.js'))
  const { enabled: _enabled, issuers: _issuers, ...options } = settings
  return oid4vci(options)
}

/**
 * Creates or replaces the configurations of the issuers the config file declares (`oid4vci.issuers`), as the operator.
 * @throws {Error} the first refused, named by its key path (`oid4vci.issuers[0]: …`); those before it are applied
 */
export async function applyDeclaredIssuers(service: IdentityService, issuers: Oid4vciSettings['issuers'] = []): Promise<void> {
  for (const [i, { tenant, slug, configurations }] of issuers.entries()) {
    try {
      await service.applyDeclaredConfigurations(tenant, slug, configurations)
    } catch (err) {
      throw new Error(`config oid4vci.issuers[${i}] (tenant ${tenant}, slug ${slug}): ${(err as Error).message}`, { cause: err })
    }
  }
}

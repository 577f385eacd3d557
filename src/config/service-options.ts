/**
 * The config file's sections that have no flag (`networks`, `resolvers`, `limits`, `tokens`) as
 * options of `IdentityService.create`: on-chain networks with their gas payers (read from key
 * files), Universal Resolvers by name, the work bounds, the DID-auth tokens' audience and lifetimes.
 */
import { readFileSync, statSync } from 'node:fs'
import { Wallet } from 'ethers'
import type { EthrNetwork } from '../did/methods/ethr/index.js'
import { universalResolver } from '../did/named-resolvers.js'
import type { OnchainRegistryOptions } from '../did/methods/ethr/index.js'
import type { IdentityServiceOptions } from '../service/identity-service.js'
import type { EffectiveConfig } from './effective.js'

/** The sections {@link serviceOptionsOf} reads. */
export type ServiceSettings = Pick<EffectiveConfig, 'networks' | 'resolvers' | 'limits' | 'tokens'>

/** The options of `IdentityService.create` the settings give (none for a section absent). */
export type ConfiguredServiceOptions = Pick<IdentityServiceOptions, 'networks' | 'onchain' | 'resolvers' | 'limits' | 'audience'>

/** A setting of the config file that cannot be used; the message starts with its key path (`networks[0].gasPayerKeyFile`). */
export class SettingError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting} ${message}`)
    this.name = 'SettingError'
  }
}

/** A gas payer's private key from its file, refused when others can read the file or it holds no 32-byte hex key. */
function gasPayerOf(file: string, setting: string): Wallet {
  let mode: number
  let text: string
  try {
    mode = statSync(file).mode & 0o777
    text = readFileSync(file, 'utf8').trim()
  } catch (err) {
    throw new SettingError(setting, `${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`)
  }
  if (mode & 0o077) throw new SettingError(setting, `${file} is readable by others (mode ${mode.toString(8)}): chmod 600 it`)
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(text)) throw new SettingError(setting, `${file} does not hold a 64-hex-character private key`)
  return new Wallet(text.startsWith('0x') ? text : `0x${text}`)
}

/** The service options of the settings. @throws {SettingError} a gas payer key file that cannot be used */
export function serviceOptionsOf(settings: ServiceSettings): ConfiguredServiceOptions {
  const { networks, resolvers, limits, tokens } = settings
  const options: ConfiguredServiceOptions = {}
  if (networks) {
    options.networks = networks.map(({ gasPayerKeyFile: _file, ...network }): EthrNetwork => network)
    const onchain: Record<string, OnchainRegistryOptions> = {}
    networks.forEach((n, i) => {
      if (n.gasPayerKeyFile !== undefined) onchain[n.name] = { gasPayer: gasPayerOf(n.gasPayerKeyFile, `networks[${i}].gasPayerKeyFile`) }
    })
    if (Object.keys(onchain).length > 0) options.onchain = onchain
  }
  if (resolvers) options.resolvers = Object.fromEntries(Object.entries(resolvers).map(([name, url]) => [name, universalResolver({ url })]))
  const lifetimes = {
    ...(tokens?.defaultLifetimeMs !== undefined && { tokenDefaultLifetimeMs: tokens.defaultLifetimeMs }),
    ...(tokens?.maxLifetimeMs !== undefined && { tokenMaxLifetimeMs: tokens.maxLifetimeMs }),
  }
  const serviceLimits = {
    ...(limits?.depth !== undefined && { depth: limits.depth }),
    ...(limits?.batch !== undefined && { batch: limits.batch }),
    ...(limits?.jsonld && { jsonld: limits.jsonld }),
    ...lifetimes,
  }
  if (Object.keys(serviceLimits).length > 0) options.limits = serviceLimits
  if (tokens?.audience !== undefined) options.audience = tokens.audience
  return options
}

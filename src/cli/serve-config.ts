/**
 * `didvault serve` and `didvault config print` settings: the flags (no parseArgs defaults, so a
 * flag not given is seen as such), the environment, and the config file of `--config` or
 * `DIDVAULT_CONFIG`, merged by precedence (`config/effective.ts`) into the {@link ServeOptions}.
 * A bad flag, environment value or config file is a usage error naming it.
 */
import { availableParallelism } from 'node:os'
import { type parseArgs } from 'node:util'
import { effectiveConfig, type EffectiveConfig, type SettingsLayer } from '../config/effective.js'
import { ConfigError, loadConfigFile } from '../config/load.js'
import { serviceOptionsOf, SettingError } from '../config/service-options.js'
import { MAX_DRAIN_MS, MAX_WORKERS, type DidvaultConfig } from '../config/schema.js'
import { canonicalOrigin } from '../http/cors.js'
import { LOG_FORMATS, LOG_LEVELS } from '../observability/logger.js'
import { publicBaseUrl } from '../status/list-url.js'
import { checkedOrigins } from '../net/allowed-origins.js'
import { parseContextFlag } from './context-files.js'
import type { ServeOptions } from './serve.js'
import { UsageError } from './usage.js'

/** The flags of `serve` (and of `config print`). */
export const SERVE_FLAGS = {
  config: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  storage: { type: 'string' },
  context: { type: 'string', multiple: true },
  cors: { type: 'string', multiple: true },
  console: { type: 'boolean' },
  'public-url': { type: 'string' },
  'status-list-origin': { type: 'string', multiple: true },
  'did-web-origin': { type: 'string', multiple: true },
  workers: { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  metrics: { type: 'string' },
  'metrics-port': { type: 'string' },
  'drain-ms': { type: 'string' },
  'previous-master-key-file': { type: 'string', multiple: true },
  oid4vci: { type: 'string' },
  oid4vp: { type: 'string' },
  'hsm-module': { type: 'string' },
  'hsm-token-label': { type: 'string' },
  'hsm-pin-file': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const

export type ServeFlags = ReturnType<typeof parseArgs<{ options: typeof SERVE_FLAGS; strict: true }>>['values']

/** Runs a checker, turning its error into a usage error led by `name`. */
function checked<T>(name: string, check: () => T): T {
  try {
    return check()
  } catch (err) {
    if (err instanceof UsageError) throw err
    throw new UsageError(`${name}: ${(err as Error).message}`)
  }
}

function portOf(flag: string, value: string): number {
  const port = Number(value)
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`${flag} must be 0..65535, got ${value}`)
  return port
}

function drainMsOf(value: string): number {
  const ms = Number(value)
  if (!/^\d+$/.test(value) || ms > MAX_DRAIN_MS) throw new UsageError(`--drain-ms must be 0..${MAX_DRAIN_MS} (ms), got ${value}`)
  return ms
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${flag} must be ${allowed.join(', ')}; got ${value}`)
  return value as T
}

/** The settings the flags give, checked. */
export function flagLayer(values: ServeFlags): SettingsLayer {
  const level = values['log-level']
  const format = values['log-format']
  const log = {
    ...(level !== undefined && { level: oneOf('--log-level', level, LOG_LEVELS) }),
    ...(format !== undefined && { format: oneOf('--log-format', format, LOG_FORMATS) }),
  }
  const metrics = {
    ...(values.metrics !== undefined && { enabled: oneOf('--metrics', values.metrics, ['on', 'off']) === 'on' }),
    ...(values['metrics-port'] !== undefined && { port: portOf('--metrics-port', values['metrics-port']) }),
  }
  const publicUrl = values['public-url']
  // The PIN itself is never a flag (it would show in `ps`): a file, or DIDVAULT_HSM_PIN.
  const hsm = {
    ...(values['hsm-module'] !== undefined && { module: values['hsm-module'] }),
    ...(values['hsm-token-label'] !== undefined && { tokenLabel: values['hsm-token-label'] }),
    ...(values['hsm-pin-file'] !== undefined && { pinFile: values['hsm-pin-file'] }),
  }
  return {
    ...(values.host !== undefined && { host: values.host }),
    ...(values.port !== undefined && { port: portOf('--port', values.port) }),
    ...(values.storage !== undefined && { storage: values.storage }),
    ...(values.workers !== undefined && { workers: parseWorkers(values.workers) }),
    ...(values.console !== undefined && { console: values.console }),
    ...(values.cors !== undefined && { cors: values.cors.map((o) => checked('--cors', () => canonicalOrigin(o))) }),
    ...(publicUrl !== undefined &&
      publicUrl !== '' && { publicUrl: checked('--public-url', () => publicBaseUrl(publicUrl, '--public-url')) }),
    ...(values['status-list-origin'] !== undefined && {
      statusListOrigins: checked('--status-list-origin', () => checkedOrigins(values['status-list-origin']!)),
    }),
    ...(values['did-web-origin'] !== undefined && {
      didWebOrigins: checked('--did-web-origin', () => checkedOrigins(values['did-web-origin']!, 'didWebOrigins')),
    }),
    ...(values.context !== undefined && { contexts: values.context.map(parseContextFlag) }),
    ...(values['previous-master-key-file'] !== undefined && { previousMasterKeyFiles: values['previous-master-key-file'] }),
    ...(Object.keys(log).length > 0 && { log }),
    ...(Object.keys(metrics).length > 0 && { metrics }),
    ...(values['drain-ms'] !== undefined && { shutdown: { drainMs: drainMsOf(values['drain-ms']) } }),
    ...(values.oid4vci !== undefined && { oid4vci: { enabled: oneOf('--oid4vci', values.oid4vci, ['on', 'off']) === 'on' } }),
    ...(values.oid4vp !== undefined && { oid4vp: { enabled: oneOf('--oid4vp', values.oid4vp, ['on', 'off']) === 'on' } }),
    ...(Object.keys(hsm).length > 0 && { hsm }),
  }
}

/**
 * The settings the environment gives (`DIDVAULT_STORAGE`, `DIDVAULT_PUBLIC_URL`, `DIDVAULT_STATUS_LIST_ORIGINS`,
 * `DIDVAULT_DID_WEB_ORIGINS`), checked.
 */
export function envLayer(env: NodeJS.ProcessEnv): SettingsLayer {
  const { DIDVAULT_STORAGE: storage, DIDVAULT_PUBLIC_URL: publicUrl } = env
  const listed = listOf(env.DIDVAULT_STATUS_LIST_ORIGINS)
  const didWeb = listOf(env.DIDVAULT_DID_WEB_ORIGINS)
  return {
    ...(storage && { storage }),
    ...(publicUrl && { publicUrl: checked('DIDVAULT_PUBLIC_URL', () => publicBaseUrl(publicUrl, '--public-url')) }),
    ...(listed.length > 0 && { statusListOrigins: checked('--status-list-origin', () => checkedOrigins(listed)) }),
    ...(didWeb.length > 0 && { didWebOrigins: checked('--did-web-origin', () => checkedOrigins(didWeb, 'didWebOrigins')) }),
  }
}

/** The items of a comma-separated environment value. */
const listOf = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)

/** The config file `--config` names, else `DIDVAULT_CONFIG`. */
const configPathOf = (flag: string | undefined, env: NodeJS.ProcessEnv) => flag ?? (env.DIDVAULT_CONFIG || undefined)

/** The config file named by `--config`, else `DIDVAULT_CONFIG`, checked; undefined when neither names one. */
export function configFileOf(flag: string | undefined, env: NodeJS.ProcessEnv): DidvaultConfig | undefined {
  const file = configPathOf(flag, env)
  if (file === undefined) return undefined
  try {
    return loadConfigFile(file)
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(`config ${err.message}`)
    throw err
  }
}

/** The effective settings of `serve` with these flags and environment; `notes`: what the environment overrode in the file. */
export function effectiveServeConfig(values: ServeFlags, env: NodeJS.ProcessEnv): { config: EffectiveConfig; notes: string[] } {
  return effectiveConfig(flagLayer(values), envLayer(env), configFileOf(values.config, env))
}

/**
 * The effective settings `serve` starts with: those of {@link effectiveServeConfig}, and the key files the config
 * file names read (gas payers), so that a bad one stops the start as a usage error naming the config file and its key path.
 */
export function checkedServeConfig(values: ServeFlags, env: NodeJS.ProcessEnv): { config: EffectiveConfig; notes: string[] } {
  const effective = effectiveServeConfig(values, env)
  try {
    serviceOptionsOf(effective.config)
  } catch (err) {
    if (err instanceof SettingError) throw new UsageError(`config ${configPathOf(values.config, env)}: ${err.message}`)
    throw err
  }
  return effective
}

/** What `serve` is started with. */
export function serveOptionsOf(config: EffectiveConfig): ServeOptions & { workers: number } {
  const { networks, resolvers, limits, tokens, log, metrics, shutdown, oid4vci, oid4vp, hsm } = config
  return {
    host: config.host,
    port: config.port,
    storage: config.storage,
    ...(config.storageSettings !== undefined && { storageSettings: config.storageSettings }),
    contexts: config.contexts,
    corsOrigins: config.cors,
    console: config.console,
    ...(config.publicUrl !== undefined && { publicUrl: config.publicUrl }),
    statusListOrigins: config.statusListOrigins,
    didWebOrigins: config.didWebOrigins,
    workers: typeof config.workers === 'number' ? config.workers : parseWorkers(config.workers),
    ...(log && { log }),
    ...(metrics && { metrics }),
    ...(shutdown && { shutdown }),
    ...(oid4vci && oid4vci.enabled !== false && { oid4vci }),
    ...(oid4vp && oid4vp.enabled !== false && { oid4vp }),
    ...(hsm && { hsm }),
    settings: { networks, resolvers, limits, tokens },
    previousMasterKeyFiles: config.previousMasterKeyFiles,
  }
}

/** Parses `--workers`: `auto` (the available cores) or 1..{@link MAX_WORKERS}. @throws {UsageError} anything else */
export function parseWorkers(value: string): number {
  if (value === 'auto') return Math.min(availableParallelism(), MAX_WORKERS)
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_WORKERS) throw new UsageError(`--workers must be auto or 1..${MAX_WORKERS}, got ${value}`)
  return n
}

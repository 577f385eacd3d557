/**
 * The effective settings of `didvault serve`: for each one, the flag if given, else its
 * environment variable, else the config file, else the default (docs/operations.md
 * *Configuration*). A flag replaces the file's value whole (lists are not merged); the `log`,
 * `metrics`, `shutdown`, `oid4vci` and `oid4vp` sections merge field by field. What the environment overrides in the file is
 * reported in `notes`, never silently.
 */
import {
  splitStorage,
  type DidvaultConfig,
  type Oid4vciSettings,
  type HsmSettings,
  type Oid4vpSettings,
  type StorageFileSettings,
} from './schema.js'

/** A JSON-LD context registered from a file; `setting`: its config file key, when it comes from the file. */
export interface ContextFile {
  url: string
  file: string
  setting?: string
}

/** Every setting, as the service is started with it. */
export interface EffectiveConfig {
  host: string
  port: number
  storage: string
  /**
   * The file's `storage` settings besides the URL (`startTimeoutMs`, `preparedStatements`, `synchronous`): they apply
   * to the URL a flag or the environment gives too.
   */
  storageSettings?: StorageFileSettings
  workers: number | 'auto'
  cors: string[]
  /** Serve the web console at `/console` (`--console`, config `console`; default off). */
  console: boolean
  publicUrl?: string
  statusListOrigins: string[]
  didWebOrigins: string[]
  contexts: ContextFile[]
  /** Files of earlier master keys (`--previous-master-key-file`, `previousMasterKeyFiles`). */
  previousMasterKeyFiles: string[]
  networks?: DidvaultConfig['networks']
  resolvers?: DidvaultConfig['resolvers']
  limits?: DidvaultConfig['limits']
  tokens?: DidvaultConfig['tokens']
  log?: NonNullable<DidvaultConfig['log']>
  metrics?: NonNullable<DidvaultConfig['metrics']>
  shutdown?: NonNullable<DidvaultConfig['shutdown']>
  /** The OID4VCI issuer: the file's `oid4vci` section, `enabled` set by `--oid4vci on|off` when given. */
  oid4vci?: Oid4vciSettings
  /** The OID4VP verifier: the file's `oid4vp` section, `enabled` set by `--oid4vp on|off` when given. */
  oid4vp?: Oid4vpSettings
  /** The HSM: the file's `hsm` section, with `--hsm-module`, `--hsm-token-label`, `--hsm-pin-file` over it field by field. */
  hsm?: Partial<HsmSettings>
}

/** What the flags or the environment set, already checked. */
export type SettingsLayer = Partial<Pick<EffectiveConfig, 'host' | 'port' | 'storage' | 'workers' | 'cors' | 'console' | 'publicUrl'>> &
  Partial<
    Pick<
      EffectiveConfig,
      | 'statusListOrigins'
      | 'didWebOrigins'
      | 'contexts'
      | 'previousMasterKeyFiles'
      | 'log'
      | 'metrics'
      | 'shutdown'
      | 'oid4vci'
      | 'oid4vp'
      | 'hsm'
    >
  >

/** The settings the environment may give, with their variables. */
export const ENV_SETTINGS = {
  storage: 'DIDVAULT_STORAGE',
  publicUrl: 'DIDVAULT_PUBLIC_URL',
  statusListOrigins: 'DIDVAULT_STATUS_LIST_ORIGINS',
  didWebOrigins: 'DIDVAULT_DID_WEB_ORIGINS',
} as const

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  storage: 'sqlite:./didvault.db',
  workers: 1,
  cors: [] as string[],
  console: false,
  statusListOrigins: [] as string[],
  didWebOrigins: [] as string[],
  contexts: [] as ContextFile[],
  previousMasterKeyFiles: [] as string[],
} as const

/** The file's settings in the layers' shape. */
export function fileLayer(
  config: DidvaultConfig,
): SettingsLayer & Omit<DidvaultConfig, '$schema' | 'contexts' | 'storage'> & { storageSettings?: StorageFileSettings } {
  const { $schema: _ignored, contexts, storage, ...rest } = config
  const files = contexts && Object.entries(contexts).map(([url, file]) => ({ url, file, setting: `contexts[${JSON.stringify(url)}]` }))
  const split = storage === undefined ? undefined : splitStorage(storage)
  return {
    ...rest,
    ...(split && { storage: split.url }),
    ...(split && Object.keys(split.settings).length > 0 && { storageSettings: split.settings }),
    ...(files && { contexts: files }),
  }
}

const first = <T>(...values: Array<T | undefined>): T | undefined => values.find((value) => value !== undefined)

/** Merges flags > environment > file > defaults; `notes` say which file settings the environment overrode. */
export function effectiveConfig(
  flags: SettingsLayer,
  env: SettingsLayer,
  file?: DidvaultConfig,
): { config: EffectiveConfig; notes: string[] } {
  const fromFile = file === undefined ? {} : fileLayer(file)
  const pick = <K extends keyof SettingsLayer>(key: K) => first(flags[key], env[key], fromFile[key])
  const notes = (Object.keys(ENV_SETTINGS) as Array<keyof typeof ENV_SETTINGS>)
    .filter((key) => flags[key] === undefined && env[key] !== undefined && fromFile[key] !== undefined)
    .map((key) => `${ENV_SETTINGS[key]} overrides ${key} of the config file`)
  const section = (key: 'log' | 'metrics' | 'shutdown' | 'oid4vci' | 'oid4vp' | 'hsm') => {
    const merged: object = { ...fromFile[key], ...env[key], ...flags[key] }
    return Object.keys(merged).length === 0 ? {} : { [key]: merged }
  }
  const publicUrl = pick('publicUrl')
  const { networks, resolvers, limits, tokens } = fromFile as Partial<DidvaultConfig>
  const config: EffectiveConfig = {
    host: pick('host') ?? DEFAULTS.host,
    port: pick('port') ?? DEFAULTS.port,
    storage: pick('storage') ?? DEFAULTS.storage,
    ...('storageSettings' in fromFile && { storageSettings: fromFile.storageSettings }),
    workers: pick('workers') ?? DEFAULTS.workers,
    cors: pick('cors') ?? DEFAULTS.cors,
    console: pick('console') ?? DEFAULTS.console,
    ...(publicUrl !== undefined && { publicUrl }),
    statusListOrigins: pick('statusListOrigins') ?? DEFAULTS.statusListOrigins,
    didWebOrigins: pick('didWebOrigins') ?? DEFAULTS.didWebOrigins,
    contexts: pick('contexts') ?? DEFAULTS.contexts,
    previousMasterKeyFiles: pick('previousMasterKeyFiles') ?? DEFAULTS.previousMasterKeyFiles,
    ...(networks && { networks }),
    ...(resolvers && { resolvers }),
    ...(limits && { limits }),
    ...(tokens && { tokens }),
    ...section('log'),
    ...section('metrics'),
    ...section('shutdown'),
    ...section('oid4vci'),
    ...section('oid4vp'),
    ...section('hsm'),
  }
  return { config, notes }
}

/**
 * Reading a config file: JSON, or YAML for a `.yaml`/`.yml` name, parsed by {@link configSchema}.
 * Any problem is a {@link ConfigError} naming the file and each key path (`networks[0].rpcUrl:
 * Invalid URL`). Relative paths in the file (contexts, a `sqlite:` storage, gas payer and previous
 * master key files) are resolved against the file's directory.
 */
import { readFileSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { parse as parseYaml } from 'yaml'
import type { z } from 'zod'
import { configSchema, splitStorage, type DidvaultConfig } from './schema.js'

/** A config file that cannot be read or is not valid; `issues` are `<key path>: <problem>` lines. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly issues: string[],
  ) {
    super(`${file}: ${issues.join('\n  ')}`)
    this.name = 'ConfigError'
  }
}

/** A zod issue path as written in JavaScript: `networks[0].rpcUrl`, `contexts["https://x"]`. */
export function keyPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, i) => {
      if (typeof key === 'number') return `[${key}]`
      const name = String(key)
      if (/^[A-Za-z_$][\w$]*$/.test(name)) return i === 0 ? name : `.${name}`
      return `[${JSON.stringify(name)}]`
    })
    .join('')
}

/** Secrets that are never settings, where operators may look for them: said so when a file has them. */
const ENV_ONLY: Record<string, string> = {
  masterKey: 'the master key is never a config setting: DIDVAULT_MASTER_KEY (or the SQLite <db>.key file)',
  previousMasterKeys:
    'master keys are never config settings: previousMasterKeyFiles names files holding them, or DIDVAULT_PREVIOUS_MASTER_KEYS',
  apiKeys: 'API keys are never config settings: DIDVAULT_API_KEYS, or didvault keys create',
}

/** One line per problem; an unknown key is named with its own path. */
export function issueLines(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => {
          const hint = issue.path.length === 0 && Object.hasOwn(ENV_ONLY, key) ? ` (${ENV_ONLY[key]})` : ''
          return `${keyPath([...issue.path, key])}: unknown key${hint}`
        })
      : [`${keyPath(issue.path) || '(top level)'}: ${issue.message}`],
  )
}

/** The file's text as a value: YAML for `.yaml`/`.yml`, else JSON. */
function parseText(file: string, text: string): unknown {
  try {
    return /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text)
  } catch (err) {
    throw new ConfigError(file, [`not ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'}: ${(err as Error).message.split('\n')[0]}`])
  }
}

/** Checks a config value (a parsed file); relative paths are resolved against `baseDir`. @throws {ConfigError} */
export function parseConfig(value: unknown, file: string, baseDir: string): DidvaultConfig {
  const parsed = configSchema.safeParse(value ?? {})
  if (!parsed.success) throw new ConfigError(file, issueLines(parsed.error.issues))
  return withPathsResolved(parsed.data, baseDir)
}

/** Reads and checks the config file at `file`. @throws {ConfigError} */
export function loadConfigFile(file: string): DidvaultConfig {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new ConfigError(file, [`cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`])
  }
  return parseConfig(parseText(file, text), file, dirname(resolve(file)))
}

const against = (baseDir: string, path: string) => (isAbsolute(path) ? path : resolve(baseDir, path))

/** A relative `sqlite:` path of the file's `storage` (a string or `{ url }`) made absolute. */
function withSqlitePathResolved(storage: NonNullable<DidvaultConfig['storage']>, baseDir: string): NonNullable<DidvaultConfig['storage']> {
  const { url } = splitStorage(storage)
  if (!url.startsWith('sqlite:') || url === 'sqlite::memory:') return storage
  const resolved = `sqlite:${against(baseDir, url.slice(7))}`
  return typeof storage === 'string' ? resolved : { ...storage, url: resolved }
}

/** The file's relative paths made absolute. */
function withPathsResolved(config: DidvaultConfig, baseDir: string): DidvaultConfig {
  const { storage, contexts, networks, previousMasterKeyFiles, oid4vp, hsm } = config
  return {
    ...config,
    ...(storage !== undefined && { storage: withSqlitePathResolved(storage, baseDir) }),
    ...(contexts && { contexts: Object.fromEntries(Object.entries(contexts).map(([url, path]) => [url, against(baseDir, path)])) }),
    ...(previousMasterKeyFiles && { previousMasterKeyFiles: previousMasterKeyFiles.map((path) => against(baseDir, path)) }),
    ...(oid4vp?.x509 && {
      oid4vp: {
        ...oid4vp,
        x509: { ...oid4vp.x509, chainFile: against(baseDir, oid4vp.x509.chainFile), keyFile: against(baseDir, oid4vp.x509.keyFile) },
      },
    }),
    ...(hsm?.pinFile !== undefined && { hsm: { ...hsm, pinFile: against(baseDir, hsm.pinFile) } }),
    ...(networks && {
      networks: networks.map((n) => (n.gasPayerKeyFile === undefined ? n : { ...n, gasPayerKeyFile: against(baseDir, n.gasPayerKeyFile) })),
    }),
  }
}

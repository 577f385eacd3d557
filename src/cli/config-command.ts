/** `didvault config check <file>` and `didvault config print [--config <file>] [serve flags…]`: nothing is opened or started. */
import { parseArgs } from 'node:util'
import { ConfigError, loadConfigFile } from '../config/load.js'
import { splitStorage } from '../config/schema.js'
import { printableConfig } from '../config/print.js'
import { serviceOptionsOf } from '../config/service-options.js'
import { effectiveServeConfig, SERVE_FLAGS } from './serve-config.js'
import { storageTargetOf } from './storage-target.js'
import { readKeyFile } from './master-key.js'
import { USAGE, UsageError } from './usage.js'

/** Runs a `config` subcommand; output goes to `out` (stdout), notes to stderr. */
export function config(args: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): void {
  const [sub, ...rest] = args
  if (sub === undefined) throw new UsageError('config needs a subcommand: check or print')
  if (sub === '-h' || sub === '--help') return out(USAGE.config)
  if (sub === 'check') return check(rest, out)
  if (sub !== 'print') throw new UsageError(`unknown config subcommand ${JSON.stringify(sub)} (check or print)`)
  const { values } = parseArgs({ args: rest, options: SERVE_FLAGS, strict: true })
  if (values.help) return out(USAGE.config)
  const { config: effective, notes } = effectiveServeConfig(values, env)
  for (const note of notes) console.error(`didvault: ${note}`)
  out(JSON.stringify(printableConfig(effective), null, 2))
}

/**
 * Validates one file: its keys and values, its storage spelling, its gas payer and previous master key files (readable
 * by the owner only, holding a key); exit 2 naming the key path or file. Context files are read at start only.
 */
function check(args: string[], out: (line: string) => void): void {
  const { values, positionals } = parseArgs({
    args,
    options: { help: { type: 'boolean', short: 'h', default: false } },
    allowPositionals: true,
  })
  if (values.help) return out(USAGE.config)
  if (positionals.length !== 1) throw new UsageError('config check takes one file')
  const [file] = positionals
  try {
    const parsed = loadConfigFile(file)
    if (parsed.storage !== undefined) {
      const { url, settings } = splitStorage(parsed.storage)
      storageTargetOf(url, settings)
    }
    serviceOptionsOf(parsed)
    parsed.previousMasterKeyFiles?.forEach((keyFile, i) => readKeyFile(keyFile, `previousMasterKeyFiles[${i}]`))
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(`config ${err.message}`)
    if (err instanceof UsageError) throw new UsageError(`config ${file}: storage: ${err.message}`)
    throw new UsageError(`config ${file}: ${(err as Error).message}`)
  }
  out(`ok: ${file}`)
}

/** The `didvault` command: usage errors exit 2 on stderr, help and version go to stdout with exit 0. */
import { parseArgs } from 'node:util'
import packageJson from '../../package.json' with { type: 'json' }
import { canonicalOrigin } from '../http/cors.js'
import { publicBaseUrl } from '../status/list-url.js'
import { checkedOrigins } from '../status/status-list-source.js'
import { parseWorkers, serveCluster } from './cluster.js'
import { keys } from './keys.js'
import { serve } from './serve.js'
import { LOG_FORMATS, LOG_LEVELS } from '../observability/logger.js'
import { defaultStorage } from './storage-target.js'
import { USAGE, UsageError } from './usage.js'

const out = (line: string) => console.log(line)

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const [command, ...rest] = argv
  if (command === undefined) throw new UsageError('no command given')
  if (command === '-h' || command === '--help' || command === 'help') return out(USAGE.main)
  if (command === '-v' || command === '--version') return out(packageJson.version)
  if (command === 'keys') return keys(rest, env, out)
  if (command !== 'serve') throw new UsageError(`unknown command ${JSON.stringify(command)}`)
  const { values } = parseArgs({
    args: rest,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8080' },
      storage: { type: 'string', default: defaultStorage(env) },
      context: { type: 'string', multiple: true, default: [] },
      cors: { type: 'string', multiple: true, default: [] },
      'public-url': { type: 'string' },
      'status-list-origin': { type: 'string', multiple: true, default: [] },
      workers: { type: 'string', default: '1' },
      'log-level': { type: 'string', default: 'info' },
      'log-format': { type: 'string', default: 'json' },
      metrics: { type: 'string', default: 'on' },
      'metrics-port': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  })
  if (values.help) return out(USAGE.serve)
  const port = Number(values.port)
  if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port must be 0..65535, got ${values.port}`)
  const workers = parseWorkers(values.workers)
  const options = {
    host: values.host,
    port,
    storage: values.storage,
    contexts: values.context,
    corsOrigins: values.cors.map(corsOrigin),
    ...publicUrlOf(values['public-url'] ?? env.DIDVAULT_PUBLIC_URL),
    statusListOrigins: statusListOrigins(values['status-list-origin'], env),
    workers,
    log: { level: oneOf('--log-level', LOG_LEVELS, values['log-level']), format: oneOf('--log-format', LOG_FORMATS, values['log-format']) },
    metrics: { enabled: oneOf('--metrics', ['on', 'off'] as const, values.metrics) === 'on', ...metricsPortOf(values['metrics-port']) },
  }
  await (workers > 1 ? serveCluster(options, env) : serve(options, env))
}

/** A flag's value among `allowed`, or a usage error listing them. */
function oneOf<T extends string>(flag: string, allowed: readonly T[], value: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${flag} must be ${allowed.join(', ')}; got ${value}`)
  return value as T
}

/** `--metrics-port`: 0..65535 (0: any free port, named in the log). */
function metricsPortOf(value: string | undefined): { port?: number } {
  if (value === undefined) return {}
  const port = Number(value)
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`--metrics-port must be 0..65535, got ${value}`)
  return { port }
}

/** `--public-url` (or DIDVAULT_PUBLIC_URL) checked, or a usage error. */
function publicUrlOf(value: string | undefined): { publicUrl?: string } {
  if (value === undefined || value === '') return {}
  try {
    return { publicUrl: publicBaseUrl(value, '--public-url') }
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
}

/** The `--status-list-origin` values (or, without any, `DIDVAULT_STATUS_LIST_ORIGINS`, comma-separated), checked. */
function statusListOrigins(flags: string[], env: NodeJS.ProcessEnv): string[] {
  const values =
    flags.length > 0
      ? flags
      : (env.DIDVAULT_STATUS_LIST_ORIGINS ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
  try {
    return checkedOrigins(values)
  } catch (err) {
    throw new UsageError(`--status-list-origin: ${(err as Error).message}`)
  }
}

/** A `--cors` value in the spelling browsers send, or a usage error. */
function corsOrigin(value: string): string {
  try {
    return canonicalOrigin(value)
  } catch (err) {
    throw new UsageError(`--cors: ${(err as Error).message}`)
  }
}

/** parseArgs reports unknown options and missing values with these codes. */
const isArgumentError = (err: unknown) =>
  err instanceof UsageError ||
  (typeof (err as { code?: unknown })?.code === 'string' && (err as { code: string }).code.startsWith('ERR_PARSE_ARGS_'))

main(process.argv.slice(2), process.env).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err)
  if (isArgumentError(err)) {
    const command = process.argv[2]
    const help = command === 'serve' || command === 'keys' ? `didvault ${command} --help` : 'didvault --help'
    console.error(`didvault: ${message}\nsee: ${help}`)
    process.exit(2)
  }
  console.error(`didvault: ${message}`)
  process.exit(1)
})

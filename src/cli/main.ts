/**
 * The `didvault` command: usage errors exit 2 on stderr, help and version go to stdout with exit 0. Each command's
 * modules are loaded when it runs, so help, version and the small commands start without loading the service.
 */
import cluster from 'node:cluster'
import { parseArgs } from 'node:util'
import packageJson from '../../package.json' with { type: 'json' }
import { USAGE, UsageError } from './usage.js'

const out = (line: string) => console.log(line)

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const [command, ...rest] = argv
  if (command === undefined) throw new UsageError('no command given')
  if (command === '-h' || command === '--help' || command === 'help') return out(USAGE.main)
  if (command === '-v' || command === '--version') return out(packageJson.version)
  if (command === 'keys') return (await import('./keys.js')).keys(rest, env, out)
  if (command === 'audit') return void (process.exitCode = await (await import('./audit.js')).audit(rest, env, out))
  if (command === 'config') return (await import('./config-command.js')).config(rest, env, out)
  if (command === 'master-key') return (await import('./master-key-command.js')).masterKey(rest, env, out)
  if (command !== 'serve') throw new UsageError(`unknown command ${JSON.stringify(command)}`)
  const [{ checkedServeConfig, serveOptionsOf, SERVE_FLAGS }, { withOptionalPeer }] = await Promise.all([
    import('./serve-config.js'),
    import('./optional-peer.js'),
  ])
  const { values } = parseArgs({ args: rest, options: SERVE_FLAGS, strict: true })
  if (values.help) return out(USAGE.serve)
  const { config: effective, notes } = checkedServeConfig(values, env)
  // A cluster's workers run this again: the primary alone says what the environment overrides.
  if (!cluster.isWorker) for (const note of notes) console.error(`didvault: ${note}`)
  const options = serveOptionsOf(effective)
  // Loaded for `serve` only: serving needs express, an optional peer (the other commands run without it).
  const [{ serve }, { serveCluster }] = await withOptionalPeer('express', 'didvault serve', () =>
    Promise.all([import('./serve.js'), import('./cluster.js')]),
  )
  await (options.workers > 1 ? serveCluster(options, env) : serve(options, env))
}

/** parseArgs reports unknown options and missing values with these codes. */
const isArgumentError = (err: unknown) =>
  err instanceof UsageError ||
  (typeof (err as { code?: unknown })?.code === 'string' && (err as { code: string }).code.startsWith('ERR_PARSE_ARGS_'))

main(process.argv.slice(2), process.env).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err)
  if (isArgumentError(err)) {
    const command = process.argv[2]
    const help = ['serve', 'keys', 'config', 'audit', 'master-key'].includes(command) ? `didvault ${command} --help` : 'didvault --help'
    console.error(`didvault: ${message}\nsee: ${help}`)
    process.exit(2)
  }
  console.error(`didvault: ${message}`)
  process.exit(1)
})

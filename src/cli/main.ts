/** The `didvault` command. */
import { parseArgs } from 'node:util'
import { serve } from './serve.js'

const USAGE = `usage: didvault serve [--host 127.0.0.1] [--port 8080] [--storage sqlite:<path> | mongodb://host[:port]/db | memory]

environment:
  DIDVAULT_MASTER_KEY   64 hex characters (raw key) or a passphrase; unset: <db>.key (SQLite) or a random key (memory);
                        required with MongoDB
  DIDVAULT_API_KEYS     tenant:key,tenant:key; unset: the first start creates a key for tenant "default"
  DIDVAULT_STORAGE      the --storage value when the flag is not given (keeps a mongodb:// password out of the process list)`

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (command !== 'serve') {
    console.error(USAGE)
    process.exit(command === '--help' || command === 'help' ? 0 : 2)
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8080' },
      storage: { type: 'string', default: process.env.DIDVAULT_STORAGE || 'sqlite:./didvault.db' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  })
  if (values.help) {
    console.log(USAGE)
    return
  }
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${values.port}`)
  await serve({ host: values.host!, port, storage: values.storage! })
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`didvault: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(1)
})

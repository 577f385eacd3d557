/**
 * Debian's PgBouncer in front of a test cluster (test/helpers/postgres.ts), in *transaction*
 * mode on a free loopback port: each transaction gets whichever server connection is free, so
 * session state (session advisory locks, prepared statements before 1.21) does not follow a client.
 * PgBouncer refuses to run as root: as root it runs as `postgres`, like the cluster.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { freeLoopbackPort } from './ports.js'

export const PGBOUNCER = '/usr/sbin/pgbouncer'
/** Whether Debian's pgbouncer is installed (.ci/run installs it). */
export const hasPgBouncer = existsSync(PGBOUNCER)

export interface TestPgBouncer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` through PgBouncer. */
  url: string
  /** What it logged. */
  log(): string
  stop(): Promise<void>
}

/**
 * Starts PgBouncer in transaction mode in front of `serverUrl` (a trust-authenticated test cluster),
 * with `poolSize` server connections, fewer than the clients a test opens, so they share them.
 */
export async function startPgBouncer(serverUrl: string, { poolSize = 4 } = {}): Promise<TestPgBouncer> {
  const server = new URL(serverUrl)
  const dir = mkdtempSync(join(tmpdir(), 'didvault-pgbouncer-'))
  const port = await freeLoopbackPort()
  const ini = join(dir, 'pgbouncer.ini')
  writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n')
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      // Each transaction on the next server connection in turn, as under load: session state never follows a client.
      'server_round_robin = 1',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 200',
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  )
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString())
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString())
    for (const file of [dir, ini, join(dir, 'userlist.txt')]) chownSync(file, uid, gid)
  }
  const [command, args] = asRoot ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER, ini]] : [PGBOUNCER, [ini]]
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk))
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const url = `postgres://postgres@127.0.0.1:${port}/${decodeURIComponent(server.pathname.slice(1)) || 'postgres'}`
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
      await client.query('SELECT 1')
      await client.end()
      break
    } catch (err) {
      await client.end().catch(() => undefined)
      if (attempt >= 50 || child.exitCode !== null) {
        child.kill('SIGKILL')
        throw new Error(`pgbouncer did not start: ${(err as Error).message}\n${log}`)
      }
      await sleep(100)
    }
  }
  console.log(`[pgbouncer] transaction mode on 127.0.0.1:${port}, ${poolSize} server connections, in front of ${server.host}`)
  return {
    url,
    log: () => log,
    async stop() {
      child.kill('SIGTERM')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * One `didvault serve` child process (the built CLI) on a storage that outlives it: started,
 * `kill -9`ed and started again on the same SQLite file or PostgreSQL schema; alone, or as the
 * primary of `--workers <n>`.
 */
import { randomBytes } from 'node:crypto'
import { CLI } from '../helpers/build.js'
import { spawnNode, type Spawned } from '../helpers/spawn.js'

const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)[" ]/
const WORKER_LISTENING = /didvault worker (\d+) listening/g

/** The tenant's API key (from `DIDVAULT_API_KEYS`) and its tenant id. */
export const API_KEY = 'crash-harness-key-0123456789'
export const TENANT = 'crash'

export interface CrashServer {
  /** The base URL of the running process. */
  url: string
  /** Starts the process (again) and waits until it listens. */
  start(): Promise<void>
  /** The pid of the running process (a cluster's primary). */
  pid(): number
  /** Whether the process started last is still running. */
  running(): boolean
  /** The pids of the workers that said they listen, in order (with `--workers`). */
  workerPids(): number[]
  /** SIGKILL, then waits for the process to be gone. */
  kill(): Promise<void>
  /** What the process printed on stderr since its last start. */
  stderr(): string
}

/**
 * A server on `storage` (`sqlite:<file>` or a PostgreSQL URL with `?schema=`), run from `cwd`,
 * with one master key for all its lives and `--public-url` set so credentials can carry status.
 */
export function crashServer(storage: string, cwd: string, options: { workers?: number } = {}): CrashServer {
  const env = { DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex'), DIDVAULT_API_KEYS: `${TENANT}:${API_KEY}` }
  let proc: Spawned | undefined
  const server: CrashServer = {
    url: '',
    async start() {
      const args = [CLI, 'serve', '--port', '0', '--storage', storage, '--public-url', 'https://status.example.com']
      if (options.workers !== undefined) args.push('--workers', String(options.workers))
      proc = spawnNode(args, { cwd, env })
      server.url = (await proc.waitFor(LISTENING, 30_000))[1]
    },
    async kill() {
      if (!proc) return
      proc.child.kill('SIGKILL')
      await proc.exited
    },
    stderr: () => proc?.stderr() ?? '',
    pid: () => proc!.child.pid!,
    running: () => proc !== undefined && proc.child.exitCode === null && proc.child.signalCode === null,
    workerPids: () => [...(proc?.stdout() ?? '').matchAll(WORKER_LISTENING)].map((m) => Number(m[1])),
  }
  return server
}

/** Real child processes for tests: spawn node, wait for a line of output, always clean up. */
import { spawn, type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface Spawned {
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** Resolves with the first match of `pattern` in stdout; rejects if the process exits first or on timeout. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>
  /** Settles when the process has exited and its output is complete. */
  exited: Promise<Exit>
}

const running = new Set<Spawned>()

/** The test runner's environment without `DIDVAULT_*` and `NODE_OPTIONS`, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const name of Object.keys(env)) if (name.startsWith('DIDVAULT_') || name === 'NODE_OPTIONS') delete env[name]
  return { ...env, ...extra }
}

/** Starts `node <args>` with stdout and stderr collected. */
export function spawnNode(args: string[], options: { cwd: string; env?: Record<string, string> }): Spawned {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: cleanEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })))
  const spawned: Spawned = {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const describe = (why: string) => new Error(`${why} waiting for ${pattern}\n--- stdout\n${out}\n--- stderr\n${err}`)
        const check = () => {
          const match = pattern.exec(out)
          if (!match) return
          done()
          resolve(match)
        }
        const timer = setTimeout(() => {
          done()
          reject(describe(`timed out after ${timeoutMs} ms`))
        }, timeoutMs)
        const onExit = () => {
          done()
          reject(describe('process exited'))
        }
        const done = () => {
          clearTimeout(timer)
          child.stdout.off('data', check)
          child.off('close', onExit)
        }
        child.stdout.on('data', check)
        child.once('close', onExit)
        check()
      })
    },
  }
  running.add(spawned)
  void exited.then(() => running.delete(spawned))
  return spawned
}

/** Kills (SIGKILL) every child still running and waits for them; for `afterEach`. */
export async function killAll(): Promise<void> {
  const left = [...running]
  for (const s of left) s.child.kill('SIGKILL')
  await Promise.all(left.map((s) => s.exited))
}

export interface HttpResult {
  status: number
  body: any
  /** The response headers (not enumerable: results still compare with `toEqual` by status and body). */
  readonly headers: Headers
}

/** One HTTP request; the body is parsed as JSON when it is JSON. */
export async function http(
  url: string,
  init: { method?: string; token?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers = new Headers(init.headers)
  if (init.token !== undefined) headers.set('authorization', `Bearer ${init.token}`)
  let body = init.body
  if (init.json !== undefined) body = JSON.stringify(init.json)
  if (body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json')
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body })
  const text = await res.text()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = text
  }
  return Object.defineProperty({ status: res.status, body: parsed }, 'headers', { value: res.headers, enumerable: false }) as HttpResult
}

/** The answer to a slow request, with its `Connection` header (`close`: the server ends the connection after it). */
export interface SlowResponse {
  status: number
  body: any
  connection: string | undefined
}

/**
 * A POST whose headers and first body bytes are sent now and the rest on `finish()`: the
 * server has it in flight in between. Uses Node's default (keep-alive) agent, like most clients.
 */
export async function startSlowRequest(url: string, token: string, json: unknown): Promise<{ finish(): Promise<SlowResponse> }> {
  const body = JSON.stringify(json)
  const req = request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
  })
  const response = new Promise<SlowResponse>((resolve, reject) => {
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (c: string) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), connection: res.headers.connection }))
    })
    req.on('error', reject)
  })
  req.write(body.slice(0, 10))
  await sleep(300)
  return {
    finish() {
      req.end(body.slice(10))
      return response
    },
  }
}

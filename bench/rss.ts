/**
 * Memory of a real server holding 100k credentials (issue 10: under 300 MB RSS). A `didvault
 * serve` process (the built CLI, SQLite file) is filled over HTTP with 100,000 VC-JWTs in
 * batches of 1,000 by 50 issuers, then answers fetches by issuer, by subject and unfiltered
 * pages; its resident set is read from `/proc/<pid>/status` after the load: `VmRSS` (now) and
 * `VmHWM` (the peak over its whole life, the figure the target holds).
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI, ensureBuilt } from '../test/helpers/build.js'

const STORED = 100_000
const BATCH = 1_000

export interface RssResults {
  credentials: number
  /** Resident set after the load, MB. */
  rssMb: number
  /** Peak resident set over the server's life, MB. */
  peakRssMb: number
  fetchesAnswered: number
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
const HEADER = b64({ alg: 'ES256K', typ: 'JWT' })
const didOf = (n: number) => `did:ethr:dev:0x${n.toString(16).padStart(40, '0')}`

/** A synthetic VC-JWT (well-formed, dummy signature: Store does not check signatures unless asked). */
function vcJwt(iss: string, n: number): string {
  const payload = {
    iss,
    sub: didOf(1_000_000 + n),
    jti: `urn:uuid:${randomUUID()}`,
    nbf: 1_700_000_000,
    vc: { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], credentialSubject: { n } },
  }
  return `${HEADER}.${b64(payload)}.c2ln`
}

/** `VmRSS` and `VmHWM` of `pid`, MB. */
function residentSet(pid: number): { rssMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) }
}

export async function benchServerRss(): Promise<RssResults> {
  ensureBuilt()
  const dir = mkdtempSync(join(tmpdir(), 'didvault-bench-rss-'))
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--storage', `sqlite:${join(dir, 'rss.db')}`], {
    env: { ...process.env, DIDVAULT_MASTER_KEY: randomUUID() + randomUUID(), NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
      let out = ''
      // Once started, its output (a log line per request) is drained unread: kept and searched, it would cost more and more.
      const onData = (chunk: string) => {
        out += chunk
        const url = /didvault listening on ([^\s"]+)"/.exec(out)?.[1]
        const key = /API key for tenant "default".*: (\S+)$/m.exec(out)?.[1]
        if (!url || !key) return
        child.stdout.off('data', onData)
        child.stdout.resume()
        resolve({ url, key })
      }
      child.stdout.setEncoding('utf8').on('data', onData)
      child.once('exit', (code) => reject(new Error(`bench: didvault serve exited (${code}) before listening:\n${out}`)))
    })
    const call = async (method: string, path: string, body?: unknown, didAuth?: string) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(didAuth && { 'x-did-auth': didAuth }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const json = (await response.json()) as Record<string, unknown>
      if (!response.ok) throw new Error(`bench: ${method} ${path} → ${response.status} ${JSON.stringify(json).slice(0, 300)}`)
      return json
    }
    const { wallet } = (await call('POST', '/wallet', {})) as { wallet: { did: string } }
    const { jwt } = (await call('POST', '/did-auth-jwt', { iss: wallet.did, expiresIn: 3_600_000 })) as { jwt: string }
    const issuers = [wallet.did, ...Array.from({ length: 49 }, (_, i) => didOf(i + 1))]
    process.stderr.write(`bench: storing ${STORED} credentials in a didvault serve process\n`)
    for (let n = 0; n < STORED; n += BATCH) {
      await call(
        'POST',
        '/claims',
        { claims: Array.from({ length: BATCH }, (_, i) => ({ jwt: vcJwt(issuers[(n + i) % issuers.length], n + i) })) },
        jwt,
      )
    }
    let fetchesAnswered = 0
    for (let i = 0; i < 200; i++) {
      const query =
        i % 3 === 0
          ? `issuer=${encodeURIComponent(wallet.did)}&limit=50`
          : i % 3 === 1
            ? `subject=${encodeURIComponent(didOf(1_000_000 + i * 50))}`
            : 'limit=100'
      await call('GET', `/claims?${query}`, undefined, jwt)
      fetchesAnswered++
    }
    return { credentials: STORED, ...residentSet(child.pid!), fetchesAnswered }
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)))
    rmSync(dir, { recursive: true, force: true })
  }
}

// Standalone: `node --import tsx bench/rss.ts`.
if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify(await benchServerRss(), null, 2)}\n`)
}

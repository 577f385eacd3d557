/**
 * Issue 28, finding 7, through a real `didvault serve` (SQLite) and the built CLI: a credential id
 * holding a terminal escape sequence (`ESC[31m`) and a bidi override (U+202E) is stored and served
 * as given, and shown escaped (`\u001b`, `\u202e`) wherever it reaches an operator: its audit
 * records (what `GET /audit` shows is what the hash covers), the request log lines, and `didvault
 * audit verify`'s report. Names the service assigns (aliases) stay refused.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomMasterKey } from '../../src/index.js'
import { CLI, ROOT, ensureBuilt } from '../helpers/build.js'
import { http, killAll, spawnNode, type Spawned } from '../helpers/spawn.js'

const TOKEN = 'token-tenant-a-0123456789'
const ID = 'urn:x:\u001b[31m\u202eevil'
const SHOWN = 'urn:x:\\u001b[31m\\u202eevil'
/** Raw characters that must never reach an operator's terminal. */
const RAW = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u
/** `RAW` in a whole output: line ends and tabs allowed. */
const RAW_IN_OUTPUT = /[^\P{Cc}\n\t]|[\u202a-\u202e\u2066-\u2069]/u

let dir: string
let db: string
let server: Spawned
let url: string

beforeAll(async () => {
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'didvault-escaped-'))
  db = join(dir, 'vault.db')
  const env = { DIDVAULT_MASTER_KEY: Buffer.from(randomMasterKey()).toString('hex'), DIDVAULT_API_KEYS: `tenant-a:${TOKEN}` }
  server = spawnNode([CLI, 'serve', '--port', '0', '--storage', `sqlite:${db}`, '--public-url', 'https://vault.example'], {
    cwd: ROOT,
    env,
  })
  ;[, url] = await server.waitFor(/didvault listening on ([^\s"]+)"/)
}, 180_000)
afterAll(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

describe('an identifier with ESC[31m and U+202E: stored as given, shown escaped (serve on SQLite, the CLI)', () => {
  let didAuth: string
  it('is signed with a revocation entry, stored, fetched as given and revoked', async () => {
    const wallet = (await http(`${url}/wallet`, { method: 'POST', token: TOKEN, json: {} })).body.wallet.did as string
    didAuth = (await http(`${url}/did-auth-jwt`, { method: 'POST', token: TOKEN, json: { iss: wallet } })).body.jwt
    const headers = { 'x-did-auth': didAuth }
    const signed = await http(`${url}/claims/sign`, {
      method: 'POST',
      token: TOKEN,
      headers,
      json: { iss: wallet, format: 'JWT', status: { purposes: ['revocation'] }, claims: [{ id: ID, payload: { member: true } }] },
    })
    expect(signed.status).toBe(200)
    expect(signed.body.vcs[0].id).toBe(ID)
    const stored = await http(`${url}/claims`, {
      method: 'POST',
      token: TOKEN,
      headers,
      json: { claims: [{ jwt: signed.body.vcs[0].jwt }] },
    })
    expect(stored.status).toBe(200)
    const fetched = await http(`${url}/claims?ids=${encodeURIComponent(ID)}`, { token: TOKEN, headers })
    expect(fetched.body.vcs.map((v: { id: string; jwt: string }) => [v.id, v.jwt])).toEqual([[ID, signed.body.vcs[0].jwt]])
    const revoked = await http(`${url}/claims/status`, {
      method: 'POST',
      token: TOKEN,
      headers,
      json: { items: [{ id: ID, purpose: 'revocation', value: true }] },
    })
    expect(revoked.status).toBe(200)
    expect(revoked.body.errors).toEqual([])
    // A name the service assigns keeps being refused.
    const alias = await http(`${url}/wallet`, { method: 'POST', token: TOKEN, json: { alias: 'a\u202eb' } })
    expect(alias.status).toBe(422)
  })

  it('GET /audit: its records carry it escaped, found by the id as given', async () => {
    const page = await http(`${url}/audit?target=${encodeURIComponent(ID)}`, { token: TOKEN })
    expect(page.body.records.map((r: { action: string; target: { id: string } }) => [r.action, r.target.id])).toEqual([
      ['credential.sign', SHOWN],
      ['credential.status', SHOWN],
    ])
    expect(JSON.stringify(page.body)).not.toMatch(RAW)
  })

  it('the request and error log lines: no raw control or override in any line (a path carries it percent-encoded)', async () => {
    // Node refuses raw bytes in a request line; a path naming the id is logged as sent, percent-encoded.
    expect((await http(`${url}/status/${encodeURIComponent(ID)}`)).status).toBe(422)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const output = `${server.stdout()}\n${server.stderr()}`
    const lines = output.split('\n').filter((line) => line.includes('"request"'))
    expect(lines.length).toBeGreaterThan(5)
    expect(lines.some((line) => line.includes('/status/urn%3Ax%3A%1B%5B31m%E2%80%AEevil'))).toBe(true)
    expect(output).not.toMatch(RAW_IN_OUTPUT)
  })

  it('audit verify: the record where the chain breaks is named with the id escaped', async () => {
    await killAll()
    const file = new Database(db)
    try {
      const changed = file
        .prepare(
          `UPDATE "auditRecords" SET data = json_set(data, '$.outcome', 'refused') WHERE json_extract(data, '$.action') = 'credential.status'`,
        )
        .run()
      expect(changed.changes).toBe(1)
    } finally {
      file.close()
    }
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('DIDVAULT_') && name !== 'NODE_OPTIONS'))
    const run = spawnSync(process.execPath, [CLI, 'audit', 'verify', '--storage', `sqlite:${db}`], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(run.status).toBe(1)
    expect(run.stdout).toContain(`(credential.status on credential ${SHOWN}): hash does not match the record (it was changed)`)
    expect(run.stdout + run.stderr).not.toMatch(RAW_IN_OUTPUT)
  })
})

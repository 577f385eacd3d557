/**
 * The logs of a whole HTTP session of `didvault serve` (the built CLI, a real child process) on a
 * real PostgreSQL whose connection string carries a password, at `--log-level debug`: ECS vaults
 * (BIP44, with its mnemonic), HD and standalone wallets, DID-auth tokens, signed credentials, an
 * MPC vault initialized and used by a quorum, two API keys, and at the end the database stopped
 * (readiness 503 naming the storage; a 503 whose error record carries the request id). Every line
 * of stdout and stderr is searched for every secret the session created or was configured with:
 * none is there. The first API key is printed once, as a plain line, never as a log record.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openKeyring } from '../../src/custody/keyring-store.js'
import { secretContext } from '../../src/keys/secret-context.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { createPostgresStorage } from '../../src/storage/postgres/index.js'
import type { StoredRecord } from '../../src/storage/port.js'
import { CLI, ensureBuilt } from '../helpers/build.js'
import { approvals, member, mpcVaultBody } from '../helpers/mpc.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'
import { cleanEnv, http, killAll, spawnNode, type HttpResult } from '../helpers/spawn.js'

const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)"/
const FIRST_KEY = /^didvault: created an API key for tenant "default" .*: (\S+)$/m
const PG_PASSWORD = 'pg-pa55word-in-the-dsn'
const MASTER_PASSPHRASE = 'correct horse battery staple of the master key'

function ok(res: HttpResult): any {
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}

let dir: string
let postgres: TestPostgres
let stopped = false
beforeAll(async () => {
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'didvault-serve-logs-'))
  postgres = await startTestPostgres('serve-logs')
}, 180_000)
afterAll(async () => {
  await killAll()
  if (!stopped) await postgres?.stop()
  rmSync(dir, { recursive: true, force: true })
})

// Stopping the server is the induced failure: only a throw-away cluster of this test may be stopped.
describe.skipIf(process.env.DIDVAULT_TEST_POSTGRES_URL !== undefined)('didvault serve --log-level debug on PostgreSQL', () => {
  it('a full session, then the database stopped: no secret in any log line; the first key only as its plain line', async () => {
    const storage = postgres.url.replace('postgres@', `postgres:${PG_PASSWORD}@`)
    const env = { DIDVAULT_MASTER_KEY: MASTER_PASSPHRASE, DIDVAULT_STORAGE: storage }
    const secrets: string[] = [PG_PASSWORD, MASTER_PASSPHRASE]

    const proc = spawnNode([CLI, 'serve', '--port', '0', '--log-level', 'debug'], { cwd: dir, env })
    const [, url] = await proc.waitFor(LISTENING, 60_000)
    const firstKey = FIRST_KEY.exec(proc.stdout())![1]
    // A second key, made by `didvault keys` on the same database (its own output is not the server's log).
    const created = execFileSync('node', [CLI, 'keys', 'create', '--tenant', 'globex', '--json'], { cwd: dir, env: cleanEnv(env) })
    const otherKey = (JSON.parse(created.toString()) as { key: string }).key
    secrets.push(firstKey, otherKey)
    const call = (path: string, init: Parameters<typeof http>[1] = {}) => http(`${url}${path}`, { token: firstKey, ...init })
    const post = (path: string, json: unknown, headers: Record<string, string> = {}) => call(path, { method: 'POST', json, headers })

    // ECS vaults: BIP44 (its mnemonic, once), then wallets of it and standalone.
    const { vault } = ok(await post('/vaults', { name: 'hd', hierarchy: 'BIP44' }))
    secrets.push(vault.mnemonic, vault.wallets[0].privateKeyHex)
    const owner = ok(await post('/did-auth-jwt', { iss: vault.wallets[0].did })).jwt
    ok(await post(`/vaults/${vault.id}/wallet`, {}, { 'x-did-auth': owner }))
    const standalone = ok(await post('/wallet', {})).wallet
    expect(vault.mnemonic.split(' ')).toHaveLength(12)

    // DID-auth tokens (sent as x-did-auth), signed credentials.
    const { jwt } = ok(await post('/did-auth-jwt', { iss: standalone.did }))
    secrets.push(owner, jwt)
    const signed = ok(
      await post(
        '/claims/sign',
        { iss: standalone.did, claims: [{ payload: { name: 'Alice' } }] },
        { 'x-did-auth': jwt, cookie: `s=${jwt}` },
      ),
    )
    expect(signed.vcs).toHaveLength(1)

    // An MPC vault: created, initialized and used by a quorum of outside members.
    const members = await Promise.all([member(), member(), member()])
    const quorum = await approvals(members[0], members[1])
    secrets.push(...quorum.split(','))
    const mpc = ok(await post('/vaults', mpcVaultBody(members))).vault
    ok(await post(`/vaults/${mpc.id}/initialize`, {}, { 'x-did-auth': quorum }))
    ok(await post(`/vaults/${mpc.id}/wallet`, {}, { 'x-did-auth': quorum }))

    secrets.push(...(await storedSecrets(postgres.url, MASTER_PASSPHRASE)))
    expect(secrets.every((secret) => typeof secret === 'string' && secret.length >= 16)).toBe(true)

    // The other tenant, and a request the router refuses.
    ok(await call('/vaults', { token: otherKey }))
    expect((await call('/vaults', { token: 'not-a-key-at-all-0123456789' })).status).toBe(403)

    // The database goes away: not ready (naming the storage), and a request fails with a 503 (Retry-After: 1).
    await postgres.stop()
    stopped = true
    const ready = await http(`${url}/health/ready`)
    expect(ready).toEqual({ status: 503, body: { status: 'unavailable', reason: 'storage unreachable' } })
    expect((await http(`${url}/health/live`)).status).toBe(200)
    const failed = await fetch(`${url}/vaults`, { headers: { authorization: `Bearer ${otherKey}`, 'x-request-id': 'the-failing-request' } })
    expect(failed.status).toBe(503)
    expect(await failed.json()).toMatchObject({ statusCode: 503, errorType: 'SERVICE_UNAVAILABLE' })
    expect(failed.headers.get('retry-after')).toBe('1')
    expect(failed.headers.get('x-request-id')).toBe('the-failing-request')
    proc.child.kill('SIGTERM')
    await proc.exited

    const out = proc.stdout()
    const err = proc.stderr()
    // stdout: the first-key line once, then JSON records only.
    const lines = out.split('\n').filter(Boolean)
    expect(lines.filter((l) => !l.startsWith('{'))).toEqual([FIRST_KEY.exec(out)![0]])
    const records = [...lines, ...err.split('\n').filter(Boolean)].filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
    expect(err.split('\n').filter((l) => l && !l.startsWith('{') && !l.startsWith(' '))).toEqual([])
    const requests = records.filter((r) => r.msg === 'request')
    expect(requests.length).toBeGreaterThanOrEqual(12)
    const signing = requests.find((r) => r.operation === 'signClaims' || r.path === '/claims/sign')
    expect(signing.headers).toMatchObject({ authorization: '[redacted]', 'x-did-auth': '[redacted]', cookie: '[redacted]' })
    const failure = records.find((r) => r.level === 50 && r.requestId === 'the-failing-request' && typeof r.err === 'string')
    expect(failure, err).toBeDefined()
    expect(failure.msg).toMatch(/failed$/)

    const all = out.replace(FIRST_KEY.exec(out)![0], '') + err
    for (const secret of secrets) expect(all, `a secret of ${secret.length} characters is in the log`).not.toContain(secret)
    expect(out.split(firstKey)).toHaveLength(2)
  }, 180_000)
})

/**
 * Every secret field of every stored record (private keys, mnemonics, HD account nodes, MPC
 * shares), opened with the master key: as hex and base64, and as text when it is text.
 */
async function storedSecrets(url: string, masterKey: string): Promise<string[]> {
  const storage = await createPostgresStorage({ connectionString: url })
  try {
    await storage.init(COLLECTIONS)
    const keyring = await openKeyring(storage, masterKey)
    const found: string[] = []
    const counts: Record<string, number> = {}
    for (const spec of COLLECTIONS.filter((c) => (c.secretFields ?? []).length > 0)) {
      const { items } = await storage.collection(spec.name).find({ and: [] }, { limit: 1_000 })
      for (const record of items as Array<StoredRecord & { tenantId: string } & Record<string, unknown>>) {
        for (const field of spec.secretFields!) {
          if (record[field] === undefined) continue
          const secret = Buffer.from(keyring.open(record[field] as never, secretContext(spec.name, record, field)))
          counts[`${spec.name}.${field}`] = (counts[`${spec.name}.${field}`] ?? 0) + 1
          found.push(secret.toString('hex'), secret.toString('base64'))
          const text = secret.toString('utf8')
          if (/^[\x20-\x7e]{16,}$/.test(text)) found.push(text)
        }
      }
    }
    // At least the three ECS wallets' keys (the vault's first and second and the standalone one, all in the key port's
    // keys collection: no wallet record holds a key), the mnemonic, the three MPC shares.
    expect(counts['wallets.privateKey']).toBeUndefined()
    expect(counts['keys.privateKey']).toBeGreaterThanOrEqual(3)
    expect(counts).toMatchObject({ 'vaults.mnemonic': 1, 'mpcShares.share': 3 })
    return found
  } finally {
    await storage.close()
  }
}

/**
 * `didvault serve` with an HSM, on the built CLI against a real SoftHSM2 token (docs/operations.md *HSM*): a wrong PIN
 * and a missing token stop the start (exit 2) naming the setting, the PIN in no output; a good start makes HSM wallets
 * over HTTP that sign VC-JWTs (verified by jose); `/health/ready` is 503 while the token directory is moved away and
 * 200 once it is back, without a restart; with `hsm.masterKey: true` (config file) after `master-key rotate --to-hsm`,
 * the server starts on the master key in the token, makes no `<db>.key`, and every wallet signs.
 */
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { importJWK, jwtVerify } from 'jose'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CLI } from './helpers/build.js'
import { http, killAll, spawnNode, type Spawned } from './helpers/spawn.js'
import { softHsmAvailable } from './helpers/softhsm.js'
import { softHsmForCli } from './helpers/softhsm-cli.js'

const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)/
const API_KEY = 'acme-key-0123456789abcdef'

const hsm = softHsmForCli()
let dir: string
/** Every process of the test, to search their output for the PIN. */
let spawned: Spawned[]

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-serve-hsm-'))
  spawned = []
})
afterEach(async () => {
  await killAll()
  for (const proc of spawned) expect(proc.stdout() + proc.stderr()).not.toContain(hsm().pin)
  rmSync(dir, { recursive: true, force: true })
})

const cli = (args: string[], env: Record<string, string> = {}) => {
  const proc = spawnNode([CLI, ...args], { cwd: dir, env: { SOFTHSM2_CONF: hsm().conf, DIDVAULT_API_KEYS: `acme:${API_KEY}`, ...env } })
  spawned.push(proc)
  return proc
}

/** A PIN file (mode 0600) holding `pin`. */
function pinFile(pin: string, name = 'pin'): string {
  const file = join(dir, name)
  writeFileSync(file, `${pin}\n`, { mode: 0o600 })
  return file
}

const hsmFlags = (pinPath: string, tokenLabel = hsm().tokenLabel) => [
  '--hsm-module',
  hsm().module,
  '--hsm-token-label',
  tokenLabel,
  '--hsm-pin-file',
  pinPath,
]

async function serve(args: string[], env: Record<string, string> = {}): Promise<{ proc: Spawned; url: string }> {
  const proc = cli(['serve', '--port', '0', ...args], env)
  const [, url] = await proc.waitFor(LISTENING, 30_000)
  return { proc, url }
}

async function stop(proc: Spawned): Promise<void> {
  proc.child.kill('SIGTERM')
  expect(await proc.exited, proc.stderr()).toEqual({ code: 0, signal: null })
}

/** The start refused as a usage error: exit 2, nothing listening. Returns its stderr. */
async function refused(proc: Spawned): Promise<string> {
  const { code } = await proc.exited
  expect(code, proc.stderr()).toBe(2)
  expect(proc.stdout()).not.toMatch(/listening/)
  return proc.stderr()
}

const didAuth = async (url: string, did: string) => {
  const res = await http(`${url}/did-auth-jwt`, { method: 'POST', token: API_KEY, json: { iss: did } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.jwt as string
}

/** A VC-JWT signed by `did`'s wallet over HTTP. */
async function signVc(url: string, did: string): Promise<string> {
  const res = await http(`${url}/claims/sign`, {
    method: 'POST',
    token: API_KEY,
    json: { iss: did, format: 'JWT', claims: [{ payload: { degree: 'BSc' } }] },
    headers: { 'x-did-auth': await didAuth(url, did) },
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.vcs[0].jwt
}

/** Makes an HSM wallet (P-256, did:jwk) over HTTP. */
async function hsmWallet(url: string): Promise<{ did: string; publicKeyJwk: Record<string, string> }> {
  const res = await http(`${url}/wallet`, {
    method: 'POST',
    token: API_KEY,
    json: { walletConfig: { keyManagement: 'HSM', keyType: 'P-256', didMethod: 'jwk' } },
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  expect(res.body.wallet.keyManagement).toBe('HSM')
  return res.body.wallet
}

describe.skipIf(!softHsmAvailable())('didvault serve --hsm-* (SoftHSM2)', () => {
  it('a wrong PIN stops the start (exit 2) naming hsm.pinFile; the PIN is in no output', async () => {
    const wrong = 'wrong-pin-4711'
    const stderr = await refused(
      cli(['serve', '--port', '0', '--storage', `sqlite:${join(dir, 'db.sqlite')}`, ...hsmFlags(pinFile(wrong))]),
    )
    expect(stderr).toContain('hsm.pinFile')
    expect(stderr).not.toContain(wrong)
    // The PIN from DIDVAULT_HSM_PIN: the same.
    const fromEnv = cli(
      ['serve', '--port', '0', '--storage', 'memory', '--hsm-module', hsm().module, '--hsm-token-label', hsm().tokenLabel],
      {
        DIDVAULT_HSM_PIN: wrong,
      },
    )
    const envStderr = await refused(fromEnv)
    expect(envStderr).toMatch(/hsm\.pinFile|DIDVAULT_HSM_PIN/)
    expect(fromEnv.stdout() + envStderr).not.toContain(wrong)
    // A pin file others can read is refused before the token is touched.
    const open = join(dir, 'open-pin')
    writeFileSync(open, `${hsm().pin}\n`, { mode: 0o644 })
    expect(await refused(cli(['serve', '--port', '0', '--storage', 'memory', ...hsmFlags(open)]))).toMatch(/hsm\.pinFile.*chmod 600/)
  }, 60_000)

  it('a token label the module does not have stops the start (exit 2) naming hsm.tokenLabel', async () => {
    const proc = cli(['serve', '--port', '0', '--storage', 'memory', ...hsmFlags(pinFile(hsm().pin), 'no-such-token')])
    expect(await refused(proc)).toContain('hsm.tokenLabel')
  }, 60_000)

  it('starts with the token: an HSM wallet made over HTTP signs a VC-JWT; /health/ready 503 while the token is away, 200 back', async () => {
    const db = join(dir, 'db.sqlite')
    const { proc, url } = await serve(['--storage', `sqlite:${db}`, ...hsmFlags(pinFile(hsm().pin))])
    const wallet = await hsmWallet(url)
    const jwt = await signVc(url, wallet.did)
    const { payload, protectedHeader } = await jwtVerify(jwt, await importJWK(wallet.publicKeyJwk, 'ES256'))
    expect(protectedHeader.alg).toBe('ES256')
    expect(payload.iss).toBe(wallet.did)
    expect((await http(`${url}/health/ready`)).status).toBe(200)

    // The DID-auth token is signed by the HSM key too: made before the token goes.
    const auth = await didAuth(url, wallet.did)
    renameSync(hsm().tokenDir, `${hsm().tokenDir}.away`)
    try {
      const ready = await http(`${url}/health/ready`)
      expect(ready.status).toBe(503)
      expect(JSON.stringify(ready.body)).toContain('HSM unavailable')
      const signing = await http(`${url}/claims/sign`, {
        method: 'POST',
        token: API_KEY,
        json: { iss: wallet.did, format: 'JWT', claims: [{ payload: { a: 1 } }] },
        headers: { 'x-did-auth': auth },
      })
      expect(signing.status, JSON.stringify(signing.body)).toBe(503)
      expect(signing.body.errorType).toBe('SERVICE_UNAVAILABLE')
    } finally {
      renameSync(`${hsm().tokenDir}.away`, hsm().tokenDir)
    }
    await expect.poll(async () => (await http(`${url}/health/ready`)).status, { timeout: 20_000, interval: 200 }).toBe(200)
    await jwtVerify(await signVc(url, wallet.did), await importJWK(wallet.publicKeyJwk, 'ES256'))
    await stop(proc)
  }, 90_000)

  it('hsm.masterKey: true after master-key rotate --to-hsm: serve starts on the master key in the token and every wallet signs', async () => {
    const db = join(dir, 'db.sqlite')
    const pin = pinFile(hsm().pin)
    // A database on its <db>.key file, with an ECS wallet and an HSM wallet.
    const first = await serve(['--storage', `sqlite:${db}`, ...hsmFlags(pin)])
    const made = await http(`${first.url}/wallet`, { method: 'POST', token: API_KEY, json: {} })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const ecs = made.body.wallet.did as string
    const inToken = await hsmWallet(first.url)
    await stop(first.proc)
    expect(existsSync(`${db}.key`)).toBe(true)

    const config = join(dir, 'didvault.json')
    const label = 'didvault-master-test'
    writeFileSync(
      config,
      JSON.stringify({
        storage: `sqlite:${db}`,
        hsm: { module: hsm().module, tokenLabel: hsm().tokenLabel, pinFile: 'pin', masterKey: true, masterKeyLabel: label },
      }),
    )
    // The config's hsm section is the token of the rotation (no --hsm-* flag).
    const rotate = cli(['master-key', 'rotate', '--to-hsm', '--config', config])
    expect((await rotate.exited).code, rotate.stderr()).toBe(0)
    expect(rotate.stdout()).toMatch(new RegExp(`^rotated the master key to the HSM \\(token key ${label}, data key [0-9a-f]{16}\\)`, 'm'))
    expect(existsSync(`${db}.key`)).toBe(false)
    // --new-key-file on a database whose config keeps the master key in the HSM: refused, pointing at --to-file.
    const newKey = join(dir, 'new.key')
    writeFileSync(newKey, `${'cd'.repeat(32)}\n`, { mode: 0o600 })
    expect(await refused(cli(['master-key', 'rotate', '--new-key-file', newKey, '--config', config]))).toMatch(/--to-file/)

    const { proc, url } = await serve(['--config', config])
    for (const did of [ecs, inToken.did]) expect((await signVc(url, did)).split('.')).toHaveLength(3)
    await jwtVerify(await signVc(url, inToken.did), await importJWK(inToken.publicKeyJwk, 'ES256'))
    // A new ECS wallet is sealed under the data key the token unwrapped.
    const later = await http(`${url}/wallet`, { method: 'POST', token: API_KEY, json: {} })
    expect(later.status).toBe(200)
    expect((await signVc(url, later.body.wallet.did)).split('.')).toHaveLength(3)
    await stop(proc)
    expect(existsSync(`${db}.key`)).toBe(false)

    // Without the token's PIN the database does not open: the master key is in the HSM only.
    writeFileSync(join(dir, 'pin'), 'not-the-pin\n', { mode: 0o600 })
    expect(await refused(cli(['serve', '--port', '0', '--config', config]))).toContain('hsm.pinFile')
  }, 120_000)

  it('hsm.masterKey with memory storage: a usage error', async () => {
    const config = join(dir, 'mem.json')
    writeFileSync(
      config,
      JSON.stringify({
        storage: 'memory',
        hsm: { module: hsm().module, tokenLabel: hsm().tokenLabel, pinFile: pinFile(hsm().pin), masterKey: true },
      }),
    )
    expect(await refused(cli(['serve', '--port', '0', '--config', config]))).toMatch(/hsm\.masterKey.*storage of a server/)
  }, 60_000)
})

/**
 * `didvault config check|print` and `didvault serve --config`, as real processes (the CLI run by
 * tsx from the sources) in a fresh temporary directory, over real HTTP on loopback.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { expectError } from '../helpers/harness.js'
import { http, killAll, type Spawned } from '../helpers/spawn.js'
import { freeLoopbackPort } from '../helpers/ports.js'
import { configCli } from './cli.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-config-cli-'))
})
afterEach(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

const cli = (args: string[], env: Record<string, string> = {}) => configCli(args, dir, env)

async function run(args: string[], env: Record<string, string> = {}) {
  const proc = cli(args, env)
  return { ...(await proc.exited), stdout: proc.stdout(), stderr: proc.stderr() }
}

/** Writes a file into the test's directory (creating folders) and returns its path. */
function file(name: string, text: string): string {
  const path = join(dir, name)
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
  return path
}

const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:(\d+))"/

describe('didvault config check', () => {
  it('a valid file (JSON or YAML): "ok: <file>", exit 0, nothing created', async () => {
    const json = file('c.json', JSON.stringify({ port: 9000, storage: 'sqlite:./x.db', tokens: { audience: 'a' } }))
    const yaml = file('c.yaml', 'port: 9000\nstorage: sqlite:./x.db\ntokens:\n  audience: a\n')
    for (const path of [json, yaml]) {
      const result = await run(['config', 'check', path])
      expect(result, result.stderr).toMatchObject({ code: 0, stdout: `ok: ${path}\n`, stderr: '' })
    }
    expect(readdirSync(dir).sort()).toEqual(['c.json', 'c.yaml'])
  })

  it.each([
    ['unknown.yaml', 'port: 9000\nnetwork:\n  - name: x\n', /config .*unknown\.yaml: network: unknown key/],
    ['type.json', '{ "port": "9000" }', /config .*type\.json: port: Invalid input: expected number, received string/],
    [
      'rpc.yaml',
      "networks:\n  - name: x\n    chainId: 1\n    rpcUrl: localhost:8545\n    registry: '0x03d5003bf0e79C5F5223588F347ebA39AfbC3818'\n",
      /networks\[0\]\.rpcUrl: Invalid URL/,
    ],
    [
      'schema.json',
      '{ "storage": "postgres://u@db/x?schema=no-dash" }',
      /config .*schema\.json: storage: --storage: schema=no-dash is not a plain/,
    ],
    ['broken.json', '{ "port": ', /config .*broken\.json: not JSON/],
  ])('%s: exit 2, the key path on stderr, nothing on stdout, nothing created', async (name, text, message) => {
    const path = file(name, text)
    const result = await run(['config', 'check', path])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(message)
    expect(result.stderr).toContain('see: didvault config --help')
    expect(result.stdout).toBe('')
    expect(readdirSync(dir)).toEqual([name])
  })

  it('a gas payer key file others can read, or that is missing, fails the check (exit 2) naming it', async () => {
    const network =
      "networks:\n  - name: x\n    chainId: 1\n    rpcUrl: http://127.0.0.1:8545\n    registry: '0x03d5003bf0e79C5F5223588F347ebA39AfbC3818'\n"
    const path = file('c.yaml', `${network}    gasPayerKeyFile: gas.key\n`)
    const missing = await run(['config', 'check', path])
    expect(missing).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(/gasPayerKeyFile .*gas\.key: cannot read the file \(ENOENT\)/),
    })
    writeFileSync(join(dir, 'gas.key'), `0x${'ab'.repeat(32)}\n`, { mode: 0o644 })
    const readable = await run(['config', 'check', path])
    expect(readable).toMatchObject({ code: 2, stderr: expect.stringMatching(/gas\.key is readable by others \(mode 644\): chmod 600 it/) })
    chmodSync(join(dir, 'gas.key'), 0o600)
    expect(await run(['config', 'check', path])).toMatchObject({ code: 0, stdout: `ok: ${path}\n` })
  }, 60_000)

  it('a missing file, or not exactly one file, is a usage error', async () => {
    expect(await run(['config', 'check', join(dir, 'missing.json')])).toMatchObject({ code: 2, stderr: expect.stringMatching(/ENOENT/) })
    expect(await run(['config', 'check'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/config check takes one file/) })
    expect(await run(['config'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/config needs a subcommand/) })
    expect(await run(['config', 'help', '--help'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown config subcommand/) })
    expect(await run(['config', '--help'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/usage: didvault config/) })
  })
})

describe('didvault config print', () => {
  const SECRET_PASSWORD = 'pg-password-5f2a9c'
  const RPC_KEY = '9b1deb4d3b7d4bad9bdd2b0d7b3dcb6d'
  const config = () =>
    file(
      'conf/didvault.yaml',
      `storage: postgres://didvault:${SECRET_PASSWORD}@db.example:5432/didvault\n` +
        `networks:\n  - name: sepolia\n    chainId: 11155111\n    rpcUrl: https://sepolia.infura.io/v3/${RPC_KEY}\n` +
        `    registry: '0x03d5003bf0e79C5F5223588F347ebA39AfbC3818'\n` +
        `contexts:\n  https://example.com/c: ctx/c.jsonld\nport: 7000\n`,
    )

  it('prints the effective config as JSON with the storage password and the rpcUrl key masked', async () => {
    const path = config()
    const result = await run(['config', 'print', '--config', path])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).not.toContain(SECRET_PASSWORD)
    expect(result.stdout).not.toContain(RPC_KEY)
    const printed = JSON.parse(result.stdout)
    expect(printed).toMatchObject({
      host: '127.0.0.1',
      port: 7000,
      storage: 'postgres://didvault:***@db.example:5432/didvault',
      contexts: { 'https://example.com/c': join(dir, 'conf/ctx/c.jsonld') },
      networks: [{ name: 'sepolia', rpcUrl: 'https://sepolia.infura.io/v3/***' }],
    })
  })

  it('a storage URL that does not parse (a typo in the port) is printed masked from the flag and the environment, refused in a file, and never echoed', async () => {
    const typo = `postgres://didvault:${SECRET_PASSWORD}@db.example:54x32/didvault`
    const results = [
      await run(['config', 'print', '--storage', typo]),
      await run(['config', 'print'], { DIDVAULT_STORAGE: typo }),
      await run(['config', 'print', '--config', file('typo.yaml', `storage: ${typo}\n`)]),
      await run(['config', 'check', join(dir, 'typo.yaml')]),
      await run(['serve', '--storage', typo], { DIDVAULT_MASTER_KEY: 'a'.repeat(64) }),
    ]
    for (const result of results) expect(result.stdout + result.stderr).not.toContain(SECRET_PASSWORD)
    for (const printed of results.slice(0, 2)) {
      expect(printed.code, printed.stderr).toBe(0)
      expect(JSON.parse(printed.stdout).storage).toBe('postgres://***')
    }
    for (const refused of results.slice(2)) {
      expect(refused.code).toBe(2)
      expect(refused.stderr).toMatch(/does not parse as a URL: check the port/)
    }
  })

  it('precedence through the process: --storage > DIDVAULT_STORAGE > file > default; the environment’s override is said', async () => {
    const path = config()
    const storageOf = async (args: string[], env: Record<string, string> = {}) => {
      const result = await run(['config', 'print', ...args], env)
      expect(result.code, result.stderr).toBe(0)
      return { storage: JSON.parse(result.stdout).storage, stderr: result.stderr }
    }
    const env = { DIDVAULT_STORAGE: 'sqlite:/env.db' }
    expect(await storageOf([])).toEqual({ storage: 'sqlite:./didvault.db', stderr: '' })
    expect((await storageOf(['--config', path])).storage).toBe('postgres://didvault:***@db.example:5432/didvault')
    expect(await storageOf(['--config', path], env)).toEqual({
      storage: 'sqlite:/env.db',
      stderr: 'didvault: DIDVAULT_STORAGE overrides storage of the config file\n',
    })
    expect(await storageOf(['--config', path, '--storage', 'sqlite:/flag.db'], env)).toEqual({ storage: 'sqlite:/flag.db', stderr: '' })
    expect((await storageOf(['--storage', 'sqlite:/flag.db'], env)).storage).toBe('sqlite:/flag.db')
    // DIDVAULT_CONFIG names the file when --config does not.
    expect((await storageOf([], { DIDVAULT_CONFIG: path })).storage).toBe('postgres://didvault:***@db.example:5432/didvault')
    const other = file('other.json', '{ "storage": "memory" }')
    expect((await storageOf(['--config', other], { DIDVAULT_CONFIG: path })).storage).toBe('memory')
    // Seven processes one after another: past 30 s on a loaded machine.
  }, 90_000)
})

describe('didvault keys --config', () => {
  it('uses the storage of the config file (relative to the file), unless --storage or DIDVAULT_STORAGE says otherwise', async () => {
    const path = file('etc/c.yaml', 'storage: sqlite:keys.db\n')
    const created = await run(['keys', 'create', '--tenant', 'acme', '--create', '--config', path])
    expect(created.code, created.stderr).toBe(0)
    expect(readdirSync(join(dir, 'etc'))).toEqual(expect.arrayContaining(['keys.db', 'keys.db.key']))
    const listed = await run(['keys', 'list', '--json'], { DIDVAULT_CONFIG: path })
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).map((k: { tenantId: string }) => k.tenantId)).toEqual(['acme'])
    const elsewhere = await run(['keys', 'list', '--config', path, '--storage', `sqlite:${join(dir, 'none.db')}`])
    expect(elsewhere).toMatchObject({ code: 1, stderr: expect.stringMatching(/no didvault database at .*none\.db/) })
    const fromEnv = await run(['keys', 'list', '--config', path], { DIDVAULT_STORAGE: `sqlite:${join(dir, 'env.db')}` })
    expect(fromEnv).toMatchObject({ code: 1, stderr: expect.stringMatching(/no didvault database at .*env\.db/) })
  }, 60_000)
})

describe('didvault serve --config', () => {
  it('a wrong file stops the start: exit 2 naming the key path, no listening line, nothing created', async () => {
    const path = file('c.yaml', 'storage: sqlite:./x.db\nlimits:\n  jsonld:\n    maxDepth: 1000\n')
    const proc = cli(['serve', '--config', path])
    expect((await proc.exited).code).toBe(2)
    expect(proc.stderr()).toMatch(/limits\.jsonld\.maxDepth: Too big: expected number to be <=256/)
    expect(proc.stdout()).not.toMatch(/listening/)
    expect(readdirSync(dir)).toEqual(['c.yaml'])
  })

  it('a context file of the config file that is missing stops the start (exit 1), naming its key and resolved path', async () => {
    const path = file('etc/c.yaml', 'storage: memory\ncontexts:\n  https://example.com/c: ctx/missing.jsonld\n')
    const proc = cli(['serve', '--config', path, '--port', '0'])
    expect((await proc.exited).code).toBe(1)
    const shown = `contexts["https://example.com/c"] (${join(dir, 'etc/ctx/missing.jsonld')}): cannot read the file (ENOENT)`
    expect(proc.stderr()).toContain(shown)
    expect(proc.stdout()).not.toMatch(/listening/)
  })

  it('serves with the file’s port, storage (relative to the file), contexts, audience, body limit and batch limit', async () => {
    const port = await freeLoopbackPort()
    const COURSE = 'https://example.com/contexts/course/v1'
    file('etc/ctx/course.jsonld', JSON.stringify({ '@context': { '@version': 1.1, course: 'https://example.com/vocab#course' } }))
    const path = file(
      'etc/didvault.yaml',
      `port: ${port}\nstorage: sqlite:data.db\nlimits:\n  body: 2kb\n  batch: 2\ntokens:\n  audience: id.example.com\n  defaultLifetimeMs: 60000\n` +
        `contexts:\n  ${COURSE}: ctx/course.jsonld\n`,
    )
    const proc: Spawned = cli(['serve', '--config', path], { DIDVAULT_API_KEYS: 'acme:acme-key-0123456789' })
    const [, url, listened] = await proc.waitFor(LISTENING, 60_000)
    expect(Number(listened)).toBe(port)
    // The relative sqlite: path is the file's directory's, not the working directory's.
    expect(readdirSync(join(dir, 'etc'))).toEqual(expect.arrayContaining(['data.db', 'data.db.key']))
    expect(readdirSync(dir)).toEqual(['etc'])
    expect(readdirSync(join(dir, 'etc'))).not.toContain('course.jsonld')
    const token = 'acme-key-0123456789'
    const wallet = await http(`${url}/wallet`, { method: 'POST', token, json: {} })
    expect(wallet.status).toBe(200)
    const minted = await http(`${url}/did-auth-jwt`, { method: 'POST', token, json: { iss: wallet.body.wallet.did } })
    expect(minted.status).toBe(200)
    const payload = JSON.parse(Buffer.from(minted.body.jwt.split('.')[1], 'base64url').toString())
    expect(payload.aud).toBe('id.example.com')
    expect(payload.exp - payload.iat).toBe(60)
    const big = await http(`${url}/wallet`, { method: 'POST', token, json: { name: 'x'.repeat(4096) } })
    expect(big.status).toBe(413)
    const sign = (claims: number) =>
      http(`${url}/claims/sign`, {
        method: 'POST',
        token,
        headers: { 'x-did-auth': minted.body.jwt },
        json: { iss: wallet.body.wallet.did, format: 'JWT', claims: Array.from({ length: claims }, () => ({ payload: { n: 1 } })) },
      })
    expect((await sign(2)).status).toBe(200)
    // The file's context is registered: a JSON-LD credential may reference it (an unknown context would be 422).
    const jsonld = await http(`${url}/claims/sign`, {
      method: 'POST',
      token,
      headers: { 'x-did-auth': minted.body.jwt },
      json: { iss: wallet.body.wallet.did, context: [COURSE], claims: [{ payload: { course: 'Chemistry' } }] },
    })
    expect(jsonld.status, JSON.stringify(jsonld.body)).toBe(200)
    expect(jsonld.body.vcs[0].jsonld['@context']).toContain(COURSE)
    expectError(await sign(3), 422, 'VALIDATION_ERROR')
    expect((await sign(3)).body.errorMessage).toMatch(/claims: at most 2 items per request/)
    proc.child.kill('SIGTERM')
    expect(await proc.exited).toEqual({ code: 0, signal: null })
  }, 90_000)
})

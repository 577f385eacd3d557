/**
 * Key files `didvault serve` reads at start, on the built CLI (real processes): a gas payer key
 * file of the config file that cannot be used stops the start like any other config error (exit
 * 2), naming the config file, the key path and the file; a previous master key file that cannot be
 * used stops it naming the file. Previous master keys of the config file reach the keyring. Nothing
 * is created, no key is shown.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { CLI, ensureBuilt } from '../helpers/build.js'
import { killAll, spawnNode } from '../helpers/spawn.js'

beforeAll(ensureBuilt, 180_000)

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-key-files-'))
})
afterEach(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawnNode([CLI, ...args], { cwd: dir, env })
  const { code } = await proc.exited
  return { code, stdout: proc.stdout(), stderr: proc.stderr() }
}

const GAS_KEY = 'cd'.repeat(32)

describe('didvault serve --config with a gas payer key file', () => {
  it.each([
    ['missing', undefined, 0o600, 'cannot read the file (ENOENT)'],
    ['readable by others', GAS_KEY, 0o644, 'is readable by others (mode 644): chmod 600 it'],
    ['not a key', 'not a key\n', 0o600, 'does not hold a 64-hex-character private key'],
  ])('%s: exit 2 naming the config file, networks[1].gasPayerKeyFile and the file; nothing created', async (_case, text, mode, problem) => {
    const gasKey = join(dir, 'gas.key')
    if (text !== undefined) writeFileSync(gasKey, text, { mode })
    const config = join(dir, 'didvault.yaml')
    writeFileSync(
      config,
      'storage: sqlite:./x.db\nnetworks:\n  - name: dev\n    chainId: 1337\n  - name: x\n    chainId: 1\n' +
        "    rpcUrl: http://127.0.0.1:9\n    registry: '0x03d5003bf0e79C5F5223588F347ebA39AfbC3818'\n    gasPayerKeyFile: gas.key\n",
    )
    const before = readdirSync(dir).sort()
    const r = await run(['serve', '--port', '0', '--config', config])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(
      `didvault: config ${config}: networks[1].gasPayerKeyFile ${gasKey}${problem.startsWith('cannot') ? ':' : ''} ${problem}`,
    )
    expect(r.stderr).toContain('see: didvault serve --help')
    expect(r.stdout).not.toMatch(/listening/)
    expect(`${r.stdout}${r.stderr}`).not.toContain(GAS_KEY)
    expect(readdirSync(dir).sort()).toEqual(before)
  })
})

describe('config previousMasterKeyFiles', () => {
  it('reach the keyring of serve (a database on the old key opens with the new one as master key); config check names a bad one', async () => {
    const oldHex = 'ab'.repeat(32)
    const storage = `sqlite:${join(dir, 'x.db')}`
    const created = await run(['keys', 'create', '--tenant', 'acme', '--create', '--storage', storage], { DIDVAULT_MASTER_KEY: oldHex })
    expect(created.code, created.stderr).toBe(0)
    const config = join(dir, 'c.yaml')
    writeFileSync(config, `storage: ${storage}\npreviousMasterKeyFiles:\n  - keys/old.key\n`)
    mkdirSync(join(dir, 'keys'))
    const checked = await run(['config', 'check', config])
    expect(checked).toMatchObject({ code: 2 })
    expect(checked.stderr).toContain(
      `config ${config}: previousMasterKeyFiles[0] ${join(dir, 'keys/old.key')}: cannot read the file (ENOENT)`,
    )

    writeFileSync(join(dir, 'keys/old.key'), `${oldHex}\n`, { mode: 0o600 })
    expect(await run(['config', 'check', config])).toMatchObject({ code: 0 })
    const newKey = { DIDVAULT_MASTER_KEY: 'cd'.repeat(32) }
    const without = await run(['serve', '--port', '0', '--storage', storage], newKey)
    expect(without).toMatchObject({ code: 1, stderr: expect.stringContaining('the master key does not match this database') })
    const proc = spawnNode([CLI, 'serve', '--port', '0', '--config', config], { cwd: dir, env: newKey })
    await proc.waitFor(/didvault listening on/, 60_000)
    proc.child.kill('SIGTERM')
    expect(await proc.exited).toEqual({ code: 0, signal: null })
    expect(`${proc.stdout()}${proc.stderr()}`).not.toMatch(/abababab|cdcdcdcd/)
  }, 60_000)
})

describe('didvault serve --previous-master-key-file', () => {
  it('a file that is missing, readable by others or holds no key stops the start naming it; nothing created, no key shown', async () => {
    const file = join(dir, 'previous.key')
    const serve = () => run(['serve', '--port', '0', '--storage', `sqlite:${join(dir, 'x.db')}`, '--previous-master-key-file', file])
    expect(await serve()).toMatchObject({ code: 1, stderr: `didvault: previous master key file ${file}: cannot read the file (ENOENT)\n` })
    writeFileSync(file, `${GAS_KEY}\n`, { mode: 0o640 })
    expect((await serve()).stderr).toBe(`didvault: previous master key file ${file} is readable by others (mode 640): chmod 600 it\n`)
    writeFileSync(join(dir, 'short.key'), `${GAS_KEY.slice(2)}\n`, { mode: 0o600 })
    const short = await run([
      'serve',
      '--port',
      '0',
      '--storage',
      `sqlite:${join(dir, 'x.db')}`,
      '--previous-master-key-file',
      join(dir, 'short.key'),
    ])
    expect(short.stderr).toBe(`didvault: previous master key file ${join(dir, 'short.key')} does not hold a 64-hex-character master key\n`)
    expect(readdirSync(dir).sort()).toEqual(['previous.key', 'short.key'])
  })
})

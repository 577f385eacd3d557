/**
 * The README's quickstart, run as a newcomer would: `didvault serve` (the built CLI) on a fresh
 * database, then the README's curl block verbatim, with only the printed key and the port
 * filled in.
 */
import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, ROOT, ensureBuilt } from './helpers/build.js'
import { killAll, spawnNode } from './helpers/spawn.js'

const run = promisify(execFile)
const haveTools = ['bash', 'curl', 'jq'].every((tool) => {
  try {
    execFileSync('which', [tool], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})
if (!haveTools) console.log('README quickstart test skipped: bash, curl and jq are needed to run it as a user would')

let dir: string
beforeAll(() => {
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'didvault-readme-'))
}, 180_000)
afterAll(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

/** The README's curl walkthrough: the sh block that starts with `KEY=`. */
function quickstartScript(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.startsWith('KEY='))
  if (!block) throw new Error('README has no ```sh block starting with KEY=')
  return block
}

describe.skipIf(!haveTools)('README quickstart', () => {
  it('the curl walkthrough works verbatim against `didvault serve`', async () => {
    const server = spawnNode([CLI, 'serve', '--port', '0', '--storage', `sqlite:${join(dir, 'didvault.db')}`], { cwd: dir })
    const [, key] = await server.waitFor(/API key for tenant "default".*: (\S+)$/m)
    const [, url] = await server.waitFor(/didvault listening on (http:\/\/127\.0\.0\.1:\d+)"/)
    const script = quickstartScript()
      .replace(/^KEY=dvk_\.\.\..*$/m, `KEY=${key}`)
      .replace(/^API=http:\/\/127\.0\.0\.1:8080$/m, `API=${url}`)
    expect(script).toContain(`KEY=${key}`)
    expect(script).toContain(`API=${url}`)
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: dir, timeout: 60_000 })
    // The configure response, the document's service and the OpenAPI paths are printed.
    expect(stdout).toContain('"registry"')
    const service = /\[\s*\{[^\]]*"serviceEndpoint": "https:\/\/hub\.example\.com"[^\]]*\}\s*\]/.exec(stdout)
    expect(service, stdout).not.toBeNull()
    expect(stdout).toContain('"/vaults/{vaultID}/wallet"')
    expect(stdout).toContain('"/did-auth-jwt"')
    // The credential signed in step 4 verifies.
    expect(stdout).toMatch(/"verified": true,\s*"checks": \[\s*\{\s*"check": "signature",\s*"verified": true/)
  })
})

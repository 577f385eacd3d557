/**
 * The examples run as users run them: `node --import tsx examples/<file>.ts` (the client example
 * against the built `didvault serve`). The browser page runs in test/client/browser.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { CLI, ROOT, ensureBuilt } from './helpers/build.js'
import { expectError } from './helpers/harness.js'
import { http, killAll, spawnNode } from './helpers/spawn.js'

afterEach(killAll)

describe('examples', () => {
  it('embedded.ts creates a BIP44 vault, derives, lists and renames wallets, and exits 0', async () => {
    const run = spawnNode(['--import', 'tsx', 'examples/embedded.ts'], { cwd: ROOT })
    const exit = await run.exited
    const out = run.stdout()
    expect(exit, run.stderr()).toEqual({ code: 0, signal: null })
    expect(out).toMatch(/^vault created: \S+ \(ECS, BIP44\)$/m)
    expect(out).toMatch(/^mnemonic returned once: yes$/m)
    expect(out).toMatch(/^first wallet: index 0 did:ethr:dev:0x[0-9a-fA-F]{40}$/m)
    expect(out).toMatch(/^derived wallet: index 1 did:ethr:dev:0x[0-9a-fA-F]{40}$/m)
    expect(out).toMatch(/^renamed: main \(errors: 0\)$/m)
    expect(out).toMatch(/^wallets in vault: 2$/m)
    expect(out).toMatch(/^ {2}#0 main +0x[0-9a-fA-F]{40}$/m)
    expect(out).toMatch(/^ {2}#1 savings +0x[0-9a-fA-F]{40}$/m)
    expect(out).toMatch(/^done$/m)
    // No key material: no private key or envelope (long hex) is printed.
    expect(out).not.toMatch(/[0-9a-f]{64}/i)
  })

  it('client-node.ts calls didvault serve: vault, token, JSON-LD credential signed and verified, an error, a delete; exits 0', async () => {
    ensureBuilt()
    const server = spawnNode([CLI, 'serve', '--port', '0', '--storage', 'memory'], { cwd: ROOT })
    const [, key] = await server.waitFor(/API key for tenant "default".*: (\S+)$/m)
    const [, url] = await server.waitFor(/didvault listening on ([^\s"]+)"/)
    const run = spawnNode(['--import', 'tsx', 'examples/client-node.ts'], { cwd: ROOT, env: { DIDVAULT_URL: url, DIDVAULT_API_KEY: key } })
    const exit = await run.exited
    const out = run.stdout()
    expect(exit, run.stderr()).toEqual({ code: 0, signal: null })
    expect(out).toMatch(/^vault created: \S+ \(ECS, BIP44\)$/m)
    expect(out).toMatch(/^issuer: did:ethr:dev:0x[0-9a-fA-F]{40}$/m)
    expect(out).toMatch(/^credential signed: did:ethr:dev:0x[0-9a-fA-F]{40}$/m)
    expect(out).toMatch(/^verified: true \(.*proof ok.*\)$/m)
    expect(out).toMatch(/^refused: 422 NOT_FOUND$/m)
    expect(out).toMatch(/^stored and deleted: 1 \(errors: 0\)$/m)
    expect(out).toMatch(/^done$/m)
  }, 60_000)

  it('client-node.ts without DIDVAULT_API_KEY says what to set and exits 2', async () => {
    const run = spawnNode(['--import', 'tsx', 'examples/client-node.ts'], { cwd: ROOT })
    expect((await run.exited).code).toBe(2)
    expect(run.stderr()).toMatch(/set DIDVAULT_API_KEY/)
  })

  it('express-app.ts serves its own /health and didvault under /identity', async () => {
    const app = spawnNode(['--import', 'tsx', 'examples/express-app.ts'], { cwd: ROOT, env: { PORT: '0' } })
    const [, base, port] = await app.waitFor(/^listening on (http:\/\/127\.0\.0\.1:(\d+))/m)
    expect(Number(port)).toBeGreaterThan(0)

    const health = await http(`${base}/health`)
    expect(health).toEqual({ status: 200, body: { status: 'ok' } })

    const denied = await http(`${base}/identity/vaults`, { method: 'POST', token: 'not-a-valid-token-0123456789', json: { name: 'v' } })
    expectError(denied, 403, 'UNAUTHENTICATED')

    const [, devKey] = await app.waitFor(/^development API key .*: (\S+)$/m)
    const created = await http(`${base}/identity/vaults`, { method: 'POST', token: devKey, json: { name: 'v' } })
    expect(created.status).toBe(200)
    expect(created.body.vault.wallets).toHaveLength(1)

    app.child.kill('SIGTERM')
    expect(await app.exited).toEqual({ code: 0, signal: null })
  })
})

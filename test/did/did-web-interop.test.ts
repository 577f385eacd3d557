/**
 * web-did-resolver (an independent did:web implementation) resolves the service's own did:web DIDs from `didvault
 * serve` (a child process) over real https: serve listens on loopback behind the test-only TLS terminator, its
 * `publicUrl` is `https://localhost:<terminator port>`, and only the resolving client process trusts the throw-away CA
 * (NODE_EXTRA_CA_CERTS; nothing in the server allows insecure URLs). The document it gets equals ours, for each key
 * type and after updates; a deleted wallet's DID does not resolve there (410). The service never fetches its own DIDs.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, ensureBuilt, ROOT } from '../helpers/build.js'
import { freeLoopbackPort } from '../helpers/ports.js'
import { cleanEnv, http, killAll, spawnNode } from '../helpers/spawn.js'
import { makeTestCa, tlsTerminator, type TestCa, type TlsTerminator } from '../helpers/tls.js'

const API_KEY = 'key-acme-123456789'
const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)"/

let ca: TestCa
let terminator: TlsTerminator
let url: string
let dir: string

beforeAll(async () => {
  ensureBuilt()
  ca = makeTestCa()
  const port = await freeLoopbackPort()
  terminator = await tlsTerminator(ca, port)
  dir = mkdtempSync(join(tmpdir(), 'didvault-didweb-interop-'))
  const proc = spawnNode([CLI, 'serve', '--port', String(port), '--storage', 'memory', '--public-url', terminator.origin], {
    cwd: dir,
    env: { DIDVAULT_API_KEYS: `acme:${API_KEY}` },
  })
  url = (await proc.waitFor(LISTENING))[1]
}, 180_000)

afterAll(async () => {
  await killAll()
  await terminator?.close()
  ca?.remove()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** What web-did-resolver answers for `dids`, resolved in a client process that trusts the test CA. */
async function webDidResolver(dids: string[]): Promise<Array<{ didDocument: unknown; didResolutionMetadata: { error?: string } }>> {
  const script = `
    import { Resolver } from 'did-resolver'
    import { getResolver } from 'web-did-resolver'
    const resolver = new Resolver(getResolver(), { cache: false })
    const results = []
    for (const did of JSON.parse(process.argv[1])) results.push(await resolver.resolve(did))
    process.stdout.write(JSON.stringify(results))`
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(dids)], {
    cwd: ROOT,
    env: cleanEnv({ NODE_EXTRA_CA_CERTS: ca.caFile }),
    timeout: 60_000,
  })
  return JSON.parse(stdout)
}

const ours = async (did: string) =>
  (await http(`${url}/1.0/identifiers/${encodeURIComponent(did)}`, { headers: { accept: 'application/did+ld+json' } })).body

describe('web-did-resolver resolves our did:web DIDs from didvault serve over https', () => {
  it('gets our documents (each key type, one updated), not a deleted wallet’s; serve never fetches its own DIDs', async () => {
    const dids: string[] = []
    for (const keyType of ['secp256k1', 'P-256', 'Ed25519']) {
      const txsInput = keyType === 'P-256' ? [{ service: { name: 'Inbox', value: 'https://inbox.example/', validity: 600_000 } }] : []
      const res = await http(`${url}/wallet`, {
        method: 'POST',
        token: API_KEY,
        json: { walletConfig: { didMethod: 'web', keyType, txsInput } },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      dids.push(res.body.wallet.did)
    }
    expect(dids[0]).toMatch(new RegExp(`^did:web:localhost%3A${terminator.port}:dids:`))
    // A deleted wallet (of a vault, governed by its root wallet's token).
    const vault = (await http(`${url}/vaults`, { method: 'POST', token: API_KEY, json: { name: 'web', hierarchy: 'BIP44' } })).body.vault
    const rootToken = (await http(`${url}/did-auth-jwt`, { method: 'POST', token: API_KEY, json: { iss: vault.wallets[0].did } })).body.jwt
    const headers = { 'x-did-auth': rootToken }
    const walletConfig = { didMethod: 'web', keyType: 'Ed25519' }
    const gone = (await http(`${url}/vaults/${vault.id}/wallet`, { method: 'POST', token: API_KEY, headers, json: { walletConfig } })).body
      .wallet
    const deleted = await http(`${url}/wallet`, { method: 'DELETE', token: API_KEY, headers, json: { ids: [gone.did] } })
    expect(deleted.body.errors).toEqual([])

    const expected = await Promise.all(dids.map(ours))
    expect(terminator.connections()).toBe(0) // resolving its own DIDs, serve fetched nothing
    const theirs = await webDidResolver([...dids, gone.did])
    expect(theirs.slice(0, 3).map((r) => r.didDocument)).toEqual(expected)
    expect(theirs.slice(0, 3).map((r) => r.didResolutionMetadata.error)).toEqual([undefined, undefined, undefined])
    expect((expected[1] as { service: unknown[] }).service).toHaveLength(1)
    expect(theirs[3].didResolutionMetadata.error).toBe('notFound')
    expect(terminator.connections()).toBeGreaterThan(0) // the client came through the terminator (one kept-alive connection or more)
  }, 90_000)
})

/**
 * The built package, as users import it: subpath exports resolve (ESM and CJS), the core
 * entry loads none of the optional peers (better-sqlite3, express, mongodb), and both builds
 * find their JSON-LD worker module.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt } from './helpers/build.js'

const root = join(import.meta.dirname, '..')

beforeAll(ensureBuilt, 180_000)

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' })
}

describe('package entry points', () => {
  it('the core entry loads no optional peer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'didvault-pkg-'))
    try {
      const hooks = join(dir, 'hooks.mjs')
      writeFileSync(
        hooks,
        `export async function resolve(specifier, context, next) {
  if (/^(better-sqlite3|express|mongodb)($|\\/)/.test(specifier)) throw new Error('optional peer loaded: ' + specifier)
  return next(specifier, context)
}`,
      )
      const register = join(dir, 'register.mjs')
      writeFileSync(register, `import { register } from 'node:module'; register(${JSON.stringify('file://' + hooks)});`)
      const out = node(['--import', register, '--input-type=module', '-e', "const m = await import('didvault'); console.log(typeof m.IdentityService, typeof m.createMemoryStorage)"])
      expect(out.trim()).toBe('function function')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('every subpath resolves in ESM and CJS', () => {
    const esm = node([
      '--input-type=module',
      '-e',
      "const a = await import('didvault'); const b = await import('didvault/sqlite'); const c = await import('didvault/express'); console.log([typeof a.IdentityService, typeof b.createSqliteStorage, typeof c.createRouter].join())",
    ])
    expect(esm.trim()).toBe('function,function,function')
    const cjs = node(['-e', "const a = require('didvault'); const b = require('didvault/sqlite'); const c = require('didvault/express'); console.log([typeof a.IdentityService, typeof b.createSqliteStorage, typeof c.createRouter].join())"])
    expect(cjs.trim()).toBe('function,function,function')
  })
})

describe('didvault/mongo entry', () => {
  it('resolves in ESM and CJS', () => {
    expect(node(['--input-type=module', '-e', "const m = await import('didvault/mongo'); console.log(typeof m.createMongoStorage)"]).trim()).toBe('function')
    expect(node(['-e', "console.log(typeof require('didvault/mongo').createMongoStorage)"]).trim()).toBe('function')
  })
})

describe('JSON-LD worker pool of the built package', () => {
  /** Signs and verifies a JSON-LD credential with every canonicalization in the pool, then closes the service. */
  const script = (load: string) => `
const { IdentityService, createMemoryStorage, staticTenants, randomMasterKey } = ${load}
const main = async () => {
  const options = { storage: createMemoryStorage(), masterKey: randomMasterKey(), tenants: staticTenants({ key: 'tenant' }) }
  const service = await IdentityService.create({ ...options, jsonldWorkers: { inlineMaxNodes: 0 } })
  const api = service.as({ authorization: 'key' })
  const { wallet } = await api.generateWallet({})
  const as = service.as({ authorization: 'key', didAuth: (await api.generateToken({ iss: wallet.did })).jwt })
  const vc = (await as.signClaims({ iss: wallet.did, claims: [{ id: 'urn:example:1' }] })).vcs[0].jsonld
  const other = { ...vc, proof: { ...vc.proof, nonce: 'other' } }
  const verified = (await as.verifyClaims({ claims: [{ jsonld: vc }, { jsonld: other }] })).vcs.map((v) => v.verified)
  console.log(JSON.stringify({ verified, completed: service.jsonldStats().completed }))
  await service.close()
}
main()`

  it('ESM and CommonJS: sign and verify in the workers, and the process exits once the service is closed', () => {
    const esm = node(['--input-type=module', '-e', script("await import('didvault')")])
    const cjs = node(['-e', script("require('didvault')")])
    for (const out of [esm, cjs]) expect(JSON.parse(out)).toEqual({ verified: [true, false], completed: 2 })
  })
})

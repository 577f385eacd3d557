/**
 * The built package, as users import it: every subpath export resolves (ESM, and CJS where it
 * declares it: all but `didvault/testing`, which runs on ESM-only vitest), the core entry
 * loads none of the optional peers (better-sqlite3, express, mongodb, pg), `didvault/client` imports
 * nothing but zod, and both builds find their JSON-LD worker module.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt } from './helpers/build.js'

const root = join(import.meta.dirname, '..')

beforeAll(ensureBuilt, 180_000)

/** The `exports` of package.json: subpath → conditions. */
const EXPORTS: Record<string, { import?: unknown; require?: unknown }> = JSON.parse(
  readFileSync(join(root, 'package.json'), 'utf8'),
).exports

/** One function each entry point must export; a subpath added to package.json without one here fails the test. */
const ENTRY_POINTS: Record<string, string> = {
  '.': 'IdentityService',
  './sqlite': 'createSqliteStorage',
  './mongo': 'createMongoStorage',
  './postgres': 'createPostgresStorage',
  './express': 'createRouter',
  './client': 'createClient',
  './testing': 'runStorageConformance',
}

/** Exports that are data files, not entry points. */
const DATA_EXPORTS = ['./package.json', './config.schema.json']

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
  if (/^(better-sqlite3|express|mongodb|pg)($|\\/)/.test(specifier)) throw new Error('optional peer loaded: ' + specifier)
  return next(specifier, context)
}`,
      )
      const register = join(dir, 'register.mjs')
      writeFileSync(register, `import { register } from 'node:module'; register(${JSON.stringify('file://' + hooks)});`)
      const out = node([
        '--import',
        register,
        '--input-type=module',
        '-e',
        "const m = await import('didvault'); console.log(typeof m.IdentityService, typeof m.createMemoryStorage)",
      ])
      expect(out.trim()).toBe('function function')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('every subpath of package.json exports resolves, in ESM and (where it declares one) in CJS, to its entry point', () => {
    const exported = Object.entries(EXPORTS).filter(([subpath]) => !DATA_EXPORTS.includes(subpath))
    expect(exported.map(([subpath]) => subpath).sort()).toEqual(Object.keys(ENTRY_POINTS).sort())
    for (const [subpath, conditions] of exported) {
      const specifier = `didvault${subpath.slice(1)}`
      const name = ENTRY_POINTS[subpath]
      const esm = node(['--input-type=module', '-e', `const m = await import(${JSON.stringify(specifier)}); console.log(typeof m.${name})`])
      expect(esm.trim(), `import ${specifier}`).toBe('function')
      if (conditions.require === undefined) continue
      const cjs = node(['-e', `console.log(typeof require(${JSON.stringify(specifier)}).${name})`])
      expect(cjs.trim(), `require ${specifier}`).toBe('function')
    }
  })

  it('didvault/config.schema.json is the config file’s JSON Schema, for import (with type json) and require', () => {
    const committed = JSON.parse(readFileSync(join(root, 'schemas/didvault.config.schema.json'), 'utf8'))
    const esm = node([
      '--input-type=module',
      '-e',
      "const m = await import('didvault/config.schema.json', { with: { type: 'json' } }); console.log(JSON.stringify(m.default))",
    ])
    expect(JSON.parse(esm)).toEqual(committed)
    expect(JSON.parse(node(['-e', "console.log(JSON.stringify(require('didvault/config.schema.json')))"]))).toEqual(committed)
  })

  it('didvault/testing is ESM only: vitest, which it runs on, cannot be required', () => {
    expect(EXPORTS['./testing'].require).toBeUndefined()
  })
})

describe('didvault/client of the built package', () => {
  /** The modules a built file imports or requires. */
  const importsOf = (file: string) => {
    const code = readFileSync(join(root, 'dist', file), 'utf8')
    const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1])
    return [...new Set(specifiers)].sort()
  }

  it('its ESM and CJS builds import nothing but zod: no Node built-in, no chunk shared with the Node entries', () => {
    expect(importsOf('client.js')).toEqual(['zod'])
    expect(importsOf('client.cjs')).toEqual(['zod'])
  })

  it('its IdentityError and the core’s recognize each other’s errors (each build bundles its own class)', () => {
    const out = node([
      '--input-type=module',
      '-e',
      `const core = await import('didvault'); const client = await import('didvault/client')
const fromBody = client.IdentityError.fromBody({ statusCode: 404, errorType: 'NOT_FOUND', errorMessage: 'no such route' })
const coreMade = new core.IdentityError('CONFLICT', 'x')
console.log(JSON.stringify([
  core.IdentityError === client.IdentityError,
  fromBody instanceof core.IdentityError,
  coreMade instanceof client.IdentityError,
  new Error('x') instanceof client.IdentityError,
  fromBody.statusCode,
]))`,
    ])
    expect(JSON.parse(out)).toEqual([false, true, true, false, 404])
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

/**
 * The built package, as users import it: every subpath export resolves (ESM, and CJS where it
 * declares it: all but `didvault/testing`, which runs on ESM-only vitest), and the core entry
 * loads none of the optional peers (better-sqlite3, express, mongodb).
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
const EXPORTS: Record<string, { import?: unknown; require?: unknown }> = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  .exports

/** One function each entry point must export; a subpath added to package.json without one here fails the test. */
const ENTRY_POINTS: Record<string, string> = {
  '.': 'IdentityService',
  './sqlite': 'createSqliteStorage',
  './mongo': 'createMongoStorage',
  './express': 'createRouter',
  './testing': 'runStorageConformance',
}

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

  it('every subpath of package.json exports resolves, in ESM and (where it declares one) in CJS, to its entry point', () => {
    const exported = Object.entries(EXPORTS).filter(([subpath]) => subpath !== './package.json')
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

  it('didvault/testing is ESM only: vitest, which it runs on, cannot be required', () => {
    expect(EXPORTS['./testing'].require).toBeUndefined()
  })
})

/**
 * The built package, as users import it: subpath exports resolve (ESM and CJS), and the
 * core entry loads none of the optional peers (better-sqlite3, express, mongodb).
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

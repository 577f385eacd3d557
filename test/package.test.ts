/**
 * The built package, as users import it: every subpath export resolves (ESM, and CJS where it
 * declares it: all but `didvault/testing`, which runs on ESM-only vitest), the core entry
 * loads none of the optional peers (better-sqlite3, express, mongodb, pg), `didvault/client` imports
 * nothing but zod, and both builds find their JSON-LD worker module. Then the tarball `npm pack`
 * makes, installed into fresh projects (ESM on SQLite, CommonJS without peers, Express 4 and 5)
 * with the README's install step and snippets.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt } from './helpers/build.js'
import { createProject, nodeIn, packTarball, type ProjectSpec, readmeBlocks, tsc, tsconfig, writeFiles } from './helpers/fresh-project.js'
import { killAll, spawnNode } from './helpers/spawn.js'

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
  './oid4vc': 'createOid4vciProtocol',
  './pkcs11': 'pkcs11',
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
  /**
   * Signs and verifies a JSON-LD credential with every canonicalization in the pool, and an ecdsa-jcs-2019 one with its
   * library steps there (the worker module's `dataIntegrityStep`), then closes the service.
   */
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
  // A P-256 wallet's ecdsa-jcs-2019 credential: its sign and verify steps run whole in the workers.
  const p256 = (await api.generateWallet({ walletConfig: { didMethod: 'key', keyType: 'P-256' } })).wallet
  const asP256 = service.as({ authorization: 'key', didAuth: (await api.generateToken({ iss: p256.did })).jwt })
  const jcs = { iss: p256.did, claims: [{ payload: { degree: 'BSc' } }], context: ['https://www.w3.org/ns/credentials/v2'] }
  const di = (await asP256.signClaims({ ...jcs, cryptosuite: 'ecdsa-jcs-2019' })).vcs[0].jsonld
  const diVerified = (await asP256.verifyClaims({ claims: [{ jsonld: di }] })).vcs[0].verified
  const { completed, dataIntegritySteps } = service.jsonldStats()
  console.log(JSON.stringify({ verified, completed, diVerified, dataIntegritySteps }))
  await service.close()
}
main()`

  it('ESM and CommonJS: sign and verify in the workers (Data Integrity steps too), and the process exits once the service is closed', () => {
    const esm = node(['--input-type=module', '-e', script("await import('didvault')")])
    const cjs = node(['-e', script("require('didvault')")])
    for (const out of [esm, cjs]) {
      expect(JSON.parse(out)).toEqual({ verified: [true, false], completed: 4, diVerified: true, dataIntegritySteps: 2 })
    }
  })
})

describe('the README’s install step', () => {
  it('names every optional peer with `npm install <peer>`', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    const optional = Object.keys(manifest.peerDependenciesMeta).filter((peer) => manifest.peerDependenciesMeta[peer].optional)
    expect(optional.sort()).toEqual(Object.keys(manifest.peerDependencies).sort())
    const install = readmeBlocks('Install', 'sh').join('')
    expect(install).toMatch(/^npm install didvault$/m)
    for (const peer of optional) expect(install, peer).toMatch(new RegExp(`^npm install (-D )?${peer} +# `, 'm'))
  })
})

describe('the README on the registry page', () => {
  it('package.json names the repository, homepage and issues, and every relative link of the README is a file of the repository', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    const repo = /^git\+(https:\/\/github\.com\/[\w.-]+\/[\w.-]+)\.git$/.exec(manifest.repository?.url ?? '')?.[1]
    expect(repo, 'repository.url').toBeDefined()
    expect(manifest.repository.type).toBe('git')
    expect(manifest.homepage).toBe(`${repo}#readme`)
    expect(manifest.bugs).toEqual({ url: `${repo}/issues` })
    // The registry page resolves relative links against the repository: each must name a file or folder there.
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    const relative = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((href) => !/^[a-z]+:|^#/.test(href))
    expect(relative.length).toBeGreaterThan(0)
    for (const href of relative) expect(existsSync(join(root, href.split('#')[0])), href).toBe(true)
  })
})

/**
 * The tarball `npm pack` makes, installed into fresh projects as users install it: an ESM project on
 * SQLite (type-checked with `moduleResolution` `node16` and `bundler`), a CommonJS project with
 * no optional peer, and one project per major version of Express the peer range allows. Only the
 * SQLite project installs better-sqlite3; the others install only the peers they use. The
 * README's snippets go in verbatim (only the client's base URL is filled in).
 * Each case compiles and runs whole projects: it has two minutes, not the default 30 s, so a loaded machine does
 * not fail it.
 */
describe('the packed package in fresh projects', { timeout: 120_000 }, () => {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const installed = (name: string): string => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version
  /** The majors of Express the peer range allows: `^4.21.2 || ^5.1.0` → 4 and 5. */
  const expressRanges: string[] = (manifest.peerDependencies.express as string).split('||').map((range) => range.trim())
  let work: string
  let tarball: string
  const project = (name: string) => join(work, name)
  /** The packages of the README's quickstart `npm install didvault …` line. */
  const quickstartInstall = (): string[] => {
    const line = /^npm install (didvault( [\w@./-]+)*)$/m.exec(readmeBlocks('Quickstart', 'sh')[0])
    if (line === null) throw new Error('the README’s quickstart has no `npm install didvault …` line')
    return line[1].split(' ')
  }
  const timings: Record<string, number> = {}

  beforeAll(async () => {
    ensureBuilt()
    work = mkdtempSync(join(tmpdir(), 'didvault-packed-'))
    tarball = await packTarball(work)
    // better-sqlite3's install fetches a prebuilt binary from GitHub, or compiles for a minute when it cannot (as here).
    // The binary this checkout's install got or built stands in for the download: a local prebuild of the same version.
    const sqliteVersion = installed('better-sqlite3')
    const prebuilds = join(work, 'prebuilds')
    mkdirSync(prebuilds)
    const binary = `better-sqlite3-v${sqliteVersion}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`
    execFileSync('tar', [
      '-C',
      join(root, 'node_modules/better-sqlite3'),
      '-czf',
      join(prebuilds, binary),
      'build/Release/better_sqlite3.node',
    ])
    const typesNode = `@types/node@${installed('@types/node')}`
    const projects: ProjectSpec[] = [
      {
        // The README's quickstart install, with the tarball for didvault and better-sqlite3 at the version of the prebuild.
        dir: project('sqlite-esm'),
        type: 'module',
        install: [
          ...quickstartInstall().map((name) =>
            name === 'didvault' ? tarball : name === 'better-sqlite3' ? `${name}@${sqliteVersion}` : name,
          ),
          typesNode,
        ],
        env: { npm_config_better_sqlite3_local_prebuilds: prebuilds },
      },
      { dir: project('cjs'), type: 'commonjs', install: [tarball, typesNode] },
      ...expressRanges.map((range): ProjectSpec => {
        const major = /^\^(\d+)\./.exec(range)![1]
        return {
          dir: project(`express${major}`),
          type: 'module',
          install: [tarball, `express@${range}`, `@types/express@${major}`, typesNode],
        }
      }),
    ]
    const seconds = await Promise.all(projects.map(createProject))
    projects.forEach((p, i) => (timings[p.dir.slice(work.length + 1)] = seconds[i]))
    console.log(`packed-package projects installed (seconds): ${JSON.stringify(timings)}`)
  }, 240_000)
  // Stopping the projects' servers and removing their installs took over a minute on a loaded machine.
  afterAll(async () => {
    await killAll()
    if (work) rmSync(work, { recursive: true, force: true })
  }, 180_000)

  it('ESM on SQLite: the README’s embedding snippet type-checks (node16 and bundler resolution, no @types/better-sqlite3) and runs; `didvault serve` answers the README’s client snippet', async () => {
    const dir = project('sqlite-esm')
    expect(quickstartInstall()).toEqual(['didvault', 'better-sqlite3', 'express'])
    expect(existsSync(join(dir, 'node_modules/@types/better-sqlite3'))).toBe(false)
    const [embedding] = readmeBlocks('Embedding', 'ts')
    const [client] = readmeBlocks('Quickstart', 'ts')
    writeFiles(dir, {
      'embedding.ts': `${embedding}\nconsole.log(JSON.stringify({ vault: vault.id, next: next.wallet.did }))\nawait service.close()\n`,
      'client.ts': client,
      'tsconfig.json': tsconfig({ module: 'node16', moduleResolution: 'node16', outDir: 'out' }, ['embedding.ts', 'client.ts']),
      'tsconfig.bundler.json': tsconfig({ module: 'esnext', moduleResolution: 'bundler', noEmit: true }, ['embedding.ts', 'client.ts']),
    })
    await Promise.all([tsc(dir, 'tsconfig.json'), tsc(dir, 'tsconfig.bundler.json')])

    const apiToken = 'dvk_readme_embedding_token'
    const out = await nodeIn(dir, ['out/embedding.js'], { DIDVAULT_MASTER_KEY: '11'.repeat(32), API_TOKEN: apiToken })
    expect(JSON.parse(out)).toEqual({ vault: expect.any(String), next: expect.stringMatching(/^did:ethr:/) })
    expect(existsSync(join(dir, 'identity.db'))).toBe(true)

    const server = spawnNode([join(dir, 'node_modules/.bin/didvault'), 'serve', '--port', '0'], { cwd: dir })
    const [, key] = await server.waitFor(/API key for tenant "default".*: (\S+)$/m, 60_000)
    const [, url] = await server.waitFor(/didvault listening on (http:\/\/127\.0\.0\.1:\d+)"/, 60_000)
    expect(existsSync(join(dir, 'didvault.db'))).toBe(true)
    const compiled = readFileSync(join(dir, 'out/client.js'), 'utf8')
    expect(compiled).toContain("'http://127.0.0.1:8080'")
    writeFileSync(join(dir, 'out/client.js'), compiled.replace("'http://127.0.0.1:8080'", JSON.stringify(url)))
    const printed = await nodeIn(dir, ['out/client.js'], { DIDVAULT_API_KEY: key })
    expect(printed).toMatch(/^true \[/)
    expect(printed).toMatch(/check: 'signature',\s*verified: true/)
  })

  it('CommonJS with no optional peer: the core and the client load through require; `didvault --version` runs and `didvault serve` names express, which it needs', async () => {
    const dir = project('cjs')
    writeFiles(dir, {
      'main.ts': `import { IdentityService, createMemoryStorage, randomMasterKey, staticTenants } from 'didvault'
import { createClient, IdentityError } from 'didvault/client'

async function main(): Promise<void> {
  const service = await IdentityService.create({ storage: createMemoryStorage(), masterKey: randomMasterKey(), tenants: staticTenants({ key: 'tenant' }) })
  const api = service.as({ authorization: 'Bearer key' })
  const { wallet } = await api.generateWallet({})
  const holder = service.as({ authorization: 'Bearer key', didAuth: (await api.generateToken({ iss: wallet.did })).jwt })
  const [vc] = (await holder.signClaims({ iss: wallet.did, format: 'JWT', claims: [{ payload: { role: 'treasurer' } }] })).vcs
  if (!('jwt' in vc)) throw new Error('asked for a VC-JWT')
  const [checked] = (await holder.verifyClaims({ claims: [{ jwt: vc.jwt }] })).vcs
  const refused = await service.as({ authorization: 'Bearer wrong' }).getVaults({}).then(() => false, (err: unknown) => err instanceof IdentityError)
  console.log(JSON.stringify({ verified: checked.verified, refused, client: typeof createClient }))
  await service.close()
}
void main()
`,
      'tsconfig.json': tsconfig({ module: 'node16', moduleResolution: 'node16', outDir: 'out' }, ['main.ts']),
    })
    await tsc(dir, 'tsconfig.json')
    expect(readFileSync(join(dir, 'out/main.js'), 'utf8')).toContain('require("didvault")')
    expect(JSON.parse(await nodeIn(dir, ['out/main.js']))).toEqual({ verified: true, refused: true, client: 'function' })

    // The commands that serve nothing run without express; serve names it.
    const bin = join(dir, 'node_modules/.bin/didvault')
    expect((await nodeIn(dir, [bin, '--version'])).trim()).toBe(manifest.version)
    await expectRefusal(
      dir,
      ['serve', '--storage', 'memory'],
      'didvault serve needs the optional package express, which is not installed: npm install express',
    )
  })

  /** `didvault serve <args>` in `dir` exits 1 with `advice` on stderr, no stack trace, and nothing created. */
  async function expectRefusal(dir: string, args: string[], advice: string): Promise<void> {
    const bin = join(dir, 'node_modules/.bin/didvault')
    const child = spawnNode([bin, ...args, '--port', '0'], { cwd: dir, env: { DIDVAULT_MASTER_KEY: '22'.repeat(32) } })
    const exit = await child.exited
    expect(exit.code, child.stderr()).toBe(1)
    expect(child.stderr(), args.join(' ')).toContain(advice)
    expect(child.stderr()).not.toMatch(/Cannot find package|ERR_MODULE_NOT_FOUND|\n\s+at /)
    expect(existsSync(join(dir, 'didvault.db'))).toBe(false)
    expect(existsSync(join(dir, 'didvault.db.key'))).toBe(false)
  }

  it('`didvault serve` beside express without the driver of its storage (or pino-pretty) names the package to install', async () => {
    const dir = project(`express${/^\^(\d+)\./.exec(expressRanges.at(-1)!)![1]}`)
    const refusals: Array<[string[], string]> = [
      [
        ['serve'],
        'SQLite storage (sqlite:<path>, the default --storage) needs the optional package better-sqlite3, which is not installed: npm install better-sqlite3',
      ],
      [
        ['serve', '--storage', 'postgres://didvault@127.0.0.1:9/didvault'],
        'PostgreSQL storage needs the optional package pg, which is not installed: npm install pg',
      ],
      [
        ['serve', '--storage', 'mongodb://127.0.0.1:9/didvault'],
        'MongoDB storage needs the optional package mongodb, which is not installed: npm install mongodb',
      ],
      [['serve', '--storage', 'memory', '--log-format', 'pretty'], 'npm install pino-pretty'],
    ]
    for (const [args, advice] of refusals) await expectRefusal(dir, args, advice)
  })

  it.each(expressRanges)(
    'Express %s: the README’s mount snippet type-checks and serves the README’s client snippet; errors, queries, the body limit and the app’s own routes behave',
    async (range) => {
      const major = /^\^(\d+)\./.exec(range)![1]
      const dir = project(`express${major}`)
      expect(JSON.parse(readFileSync(join(dir, 'node_modules/express/package.json'), 'utf8')).version).toMatch(new RegExp(`^${major}\\.`))
      expect(existsSync(join(dir, 'node_modules/better-sqlite3'))).toBe(false)
      const [mount] = readmeBlocks('In an existing Express app', 'ts')
      const [client] = readmeBlocks('Quickstart', 'ts')
      expect(client).toContain("'http://127.0.0.1:8080'")
      writeFiles(dir, {
        'app.ts': `import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { IdentityService, createMemoryStorage, randomMasterKey, staticTenants } from 'didvault'

process.env.DIDVAULT_API_KEY = 'dvk_express_app_key'
const service = await IdentityService.create({ storage: createMemoryStorage(), masterKey: randomMasterKey(), tenants: staticTenants({ [process.env.DIDVAULT_API_KEY]: 'acme' }) })
// The README's mount:
${mount}
app.get('/own', (_req, res) => void res.json({ own: true }))
const server = app.listen(0, '127.0.0.1')
await once(server, 'listening')
const base = 'http://127.0.0.1:' + (server.address() as AddressInfo).port
// The README's client, on the mount point:
${client.replace("'http://127.0.0.1:8080'", "base + '/identity'")}
const auth = { authorization: 'Bearer ' + KEY, 'content-type': 'application/json' }
const answer = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(base + path, init)
  // JSON bodies: application/json, and DID resolution results (application/did-resolution).
  return { status: response.status, body: /json|did-resolution/.test(response.headers.get('content-type') ?? '') ? await response.json() : null }
}
const results = {
  verified: checked.verified,
  wrongKey: await answer('/identity/vaults', { headers: { authorization: 'Bearer wrong' } }),
  page: await answer('/identity/wallets?limit=1', { headers: auth }),
  resolved: (await answer('/identity/1.0/identifiers/' + DID)).body?.didDocument?.id === DID,
  tooLarge: (await answer('/identity/vaults', { method: 'POST', headers: auth, body: JSON.stringify({ name: 'x'.repeat(2_000_000) }) })).status,
  notJson: await answer('/identity/vaults', { method: 'POST', headers: { authorization: 'Bearer ' + KEY, 'content-type': 'text/plain' }, body: 'hello' }),
  own: await answer('/own'),
  unknown: (await answer('/identity/no-such-route')).status,
}
console.log(JSON.stringify(results))
server.close()
await service.close()
`,
        'tsconfig.json': tsconfig({ module: 'node16', moduleResolution: 'node16', outDir: 'out' }, ['app.ts']),
      })
      await tsc(dir, 'tsconfig.json')
      // The client snippet prints its result first; the checks are the last line.
      const results = JSON.parse((await nodeIn(dir, ['out/app.js'])).trim().split('\n').at(-1)!)
      const errorBody = (statusCode: number) => ({ statusCode, errorType: expect.any(String), errorMessage: expect.any(String) })
      expect(results).toEqual({
        verified: true,
        wrongKey: { status: 403, body: errorBody(403) },
        page: {
          status: 200,
          body: expect.objectContaining({ wallets: [expect.objectContaining({ did: expect.stringMatching(/^did:ethr:/) })] }),
        },
        resolved: true,
        tooLarge: 413,
        notJson: { status: 422, body: errorBody(422) },
        own: { status: 200, body: { own: true } },
        unknown: 404,
      })
    },
  )
})

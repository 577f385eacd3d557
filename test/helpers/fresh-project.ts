/**
 * Fresh npm projects that install the packed package (`npm pack`) as a user would: each in its
 * own temporary directory, with only the packages it names, all sharing npm's cache (installs
 * prefer what it holds: `--prefer-offline`). The README's code blocks, read by the heading they
 * sit under, go into them verbatim.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ROOT } from './build.js'

const run = promisify(execFile)

/**
 * The environment for npm in a fresh project: the runner's without the `npm_*` variables an
 * enclosing `npm test` sets (its prefix and package would leak into the project), but with npm's
 * cache and registry, so every project shares one cache.
 */
export function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    const keep = !/^npm_/i.test(name) || /^npm_config_(cache|registry)$/i.test(name)
    if (keep && !name.startsWith('DIDVAULT_') && name !== 'NODE_OPTIONS') env[name] = value
  }
  return { ...env, ...extra }
}

/** Packs the package as `npm publish` would (dist/ as built, no `prepare`) into `dir`; returns the tarball's path. */
export async function packTarball(dir: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--json'], { cwd: ROOT, env: npmEnv() })
  const [{ filename }] = JSON.parse(stdout) as Array<{ filename: string }>
  return join(dir, filename)
}

/** A project: its directory, its `package.json` type, and what `npm install` adds to it. */
export interface ProjectSpec {
  dir: string
  type: 'module' | 'commonjs'
  /** Install specs (`didvault` is the tarball; the others registry names with a version or range). */
  install: string[]
  /** Extra environment of the install (a local prebuilt binary). */
  env?: Record<string, string>
}

/** Creates the project and installs its packages; returns the seconds the install took. */
export async function createProject(spec: ProjectSpec): Promise<number> {
  mkdirSync(spec.dir, { recursive: true })
  const manifest = { name: `didvault-user-${spec.type}`, version: '1.0.0', private: true, type: spec.type }
  writeFileSync(join(spec.dir, 'package.json'), JSON.stringify(manifest, null, 2))
  const started = Date.now()
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...spec.install], {
    cwd: spec.dir,
    env: npmEnv(spec.env),
    timeout: 150_000,
  })
  return (Date.now() - started) / 1000
}

/** Writes `files` (name → text) into `dir`. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
}

/** A tsconfig of the user's project: strict, declarations of every package checked (no `skipLibCheck`). */
export function tsconfig(compilerOptions: Record<string, unknown>, include: string[]): string {
  const base = { target: 'es2022', strict: true, skipLibCheck: false, types: ['node'] }
  return JSON.stringify({ compilerOptions: { ...base, ...compilerOptions }, include }, null, 2)
}

/** Runs the repository's TypeScript compiler on the project's `tsconfig` (its types resolve from the project). */
export async function tsc(dir: string, config: string): Promise<void> {
  const compiler = join(ROOT, 'node_modules/typescript/bin/tsc')
  try {
    await run(process.execPath, [compiler, '-p', config], { cwd: dir, timeout: 90_000 })
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string }
    throw new Error(`tsc -p ${config} in ${dir} failed:\n${stdout}${stderr}`)
  }
}

/** Runs `node <args>` in the project; resolves to its stdout, rejects with its output. */
export async function nodeIn(dir: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await run(process.execPath, args, { cwd: dir, env: npmEnv(env), timeout: 60_000 })
    return stdout
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string }
    throw new Error(`node ${args.join(' ')} in ${dir} failed:\n${stdout}${stderr}`)
  }
}

/** The README's code blocks in `lang` under the heading `heading` (up to the next heading), in order. */
export function readmeBlocks(heading: string, lang: string): string[] {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n')
  const blocks: string[] = []
  let current: string | undefined
  let block: string[] | undefined
  let fence: string | undefined
  for (const line of lines) {
    if (fence === undefined) {
      const opening = /^```(\S*)$/.exec(line)
      if (opening) {
        fence = opening[1]
        block = []
      } else if (/^#+ /.test(line)) current = line.replace(/^#+ /, '')
    } else if (line === '```') {
      if (current === heading && fence === lang) blocks.push(block!.join('\n') + '\n')
      fence = undefined
    } else block!.push(line)
  }
  if (blocks.length === 0) throw new Error(`README has no \`\`\`${lang} block under "${heading}"`)
  return blocks
}

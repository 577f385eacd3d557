/**
 * The layers of docs/architecture.md, held against the code: every import of `src/` (type-only
 * imports included) goes from a folder to one of a lower layer or to itself, and the top-level
 * folders import each other without a cycle. A back edge or a cycle fails with the importing
 * file and what it imports.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = normalize(join(import.meta.dirname, '../../src'))

/** Lowest first: a folder (or root module) may import its own layer's members only when listed on the same line as itself. */
export const LAYERS: string[][] = [
  ['errors', 'net', 'text'],
  ['storage'],
  ['keys'],
  ['custody', 'did'],
  ['one-time'],
  ['proofs'],
  ['auth'],
  ['operations'],
  ['audit'],
  ['mpc'],
  ['wallets'],
  ['vaults'],
  ['roles'],
  ['credentials'],
  ['status'],
  ['tokens'],
  ['presentations'],
  ['oid4vci'],
  ['oid4vp'],
  ['service'],
  ['http', 'client', 'testing'],
  ['console'],
  ['observability'],
  ['config'],
  ['cli'],
  ['index', 'oid4vc', 'pkcs11'],
]

const layerOf = new Map(LAYERS.flatMap((names, layer) => names.map((name) => [name, layer] as const)))

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** The top-level node of a path under src/: its first folder, or the root module's name. */
function nodeOf(path: string): string {
  const [first, ...rest] = relative(SRC, path).split('/')
  return rest.length > 0 ? first : first.replace(/\.tsx?$/, '')
}

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g

interface Edge {
  file: string
  from: string
  to: string
  specifier: string
}

function edges(): Edge[] {
  const out: Edge[] = []
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8')
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2]
      const target = normalize(join(dirname(file), specifier))
      if (!target.startsWith(SRC)) continue
      const from = nodeOf(file)
      const to = nodeOf(target)
      if (from !== to) out.push({ file: relative(SRC, file), from, to, specifier })
    }
  }
  return out
}

describe('layers of src/ (docs/architecture.md)', () => {
  const all = edges()

  it('every top-level folder and root module has a layer', () => {
    const nodes = new Set(sourceFiles(SRC).map(nodeOf))
    expect([...nodes].filter((node) => !layerOf.has(node)).sort()).toEqual([])
  })

  it('no import runs from a lower layer to a higher one, nor within a layer', () => {
    const back = all
      .filter((e) => layerOf.get(e.from)! <= layerOf.get(e.to)!)
      .map((e) => `${e.file} (${e.from}) imports ${e.specifier} (${e.to})`)
    expect(back).toEqual([])
  })

  it('the top-level folders import each other without a cycle', () => {
    const graph = new Map<string, Set<string>>()
    for (const e of all) graph.set(e.from, (graph.get(e.from) ?? new Set()).add(e.to))
    const cycles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const visit = (node: string, path: string[]) => {
      if (state.get(node) === 'done') return
      if (state.get(node) === 'open') {
        cycles.push([...path.slice(path.indexOf(node)), node].join(' → '))
        return
      }
      state.set(node, 'open')
      for (const next of graph.get(node) ?? []) visit(next, [...path, node])
      state.set(node, 'done')
    }
    for (const node of graph.keys()) visit(node, [])
    expect(cycles).toEqual([])
  })

  it("outside did/methods/, DID methods are reached through their registry or a method folder's index (or dependency-free syntax)", () => {
    const METHODS = join(SRC, 'did/methods')
    const reaching: string[] = []
    for (const file of sourceFiles(SRC).filter((f) => !f.startsWith(`${METHODS}/`))) {
      for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
        const target = normalize(join(dirname(file), match[1] ?? match[2]))
        if (target.startsWith(`${METHODS}/`) && !/^([a-z0-9]+\/)?index\.js$|^[a-z0-9]+\/syntax\.js$/.test(relative(METHODS, target)))
          reaching.push(`${relative(SRC, file)} imports ${match[1] ?? match[2]}`)
      }
    }
    expect(reaching).toEqual([])
    // The rule sees the registry's importers.
    expect(readFileSync(join(SRC, 'did/named-resolvers.ts'), 'utf8')).toContain("from './methods/index.js'")
  })

  it('outside credentials/formats/, credential formats are reached through their registry only', () => {
    const FORMATS = join(SRC, 'credentials/formats')
    const reaching: string[] = []
    for (const file of sourceFiles(SRC).filter((f) => !f.startsWith(`${FORMATS}/`))) {
      for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
        const target = normalize(join(dirname(file), match[1] ?? match[2]))
        if (target.startsWith(`${FORMATS}/`) && relative(FORMATS, target) !== 'index.js')
          reaching.push(`${relative(SRC, file)} imports ${match[1] ?? match[2]}`)
      }
    }
    expect(reaching).toEqual([])
    // The rule sees the registry's importers.
    expect(readFileSync(join(SRC, 'credentials/store.ts'), 'utf8')).toContain("from './formats/index.js'")
  })

  it('outside proofs/suites/, proof suites are reached through their registry (or the port’s types) only', () => {
    const SUITES = join(SRC, 'proofs/suites')
    const reaching: string[] = []
    for (const file of sourceFiles(SRC).filter((f) => !f.startsWith(`${SUITES}/`))) {
      for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
        const target = normalize(join(dirname(file), match[1] ?? match[2]))
        if (target.startsWith(`${SUITES}/`) && !['index.js', 'port.js'].includes(relative(SUITES, target)))
          reaching.push(`${relative(SRC, file)} imports ${match[1] ?? match[2]}`)
      }
    }
    expect(reaching).toEqual([])
    // The rule sees the registry's importers.
    expect(readFileSync(join(SRC, 'proofs/jsonld/index.ts'), 'utf8')).toContain("from '../suites/index.js'")
  })

  it('a proof suite (proofs/suites/<suite>/) imports no other suite', () => {
    const stray = importsUnder('proofs/suites')
      .filter(({ file, target }) => file.split('/').length > 3 && target.startsWith('proofs/suites/'))
      .filter(({ file, target }) => target.split('/').length > 3 && target.split('/')[2] !== file.split('/')[2])
      .map(({ file, target }) => `${file} imports ${target}`)
    expect(stray).toEqual([])
  })

  it('sees the imports it judges (the parser is not blind)', () => {
    expect(all.some((e) => e.from === 'service' && e.to === 'wallets')).toBe(true)
    expect(all.length).toBeGreaterThan(100)
  })
})

/** Every relative import of the files under `dir` (a folder of src/): importing file and resolved target, both relative to src/. */
function importsUnder(dir: string): Array<{ file: string; target: string }> {
  return sourceFiles(join(SRC, dir)).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((match) => ({
      file: relative(SRC, file),
      target: relative(SRC, normalize(join(dirname(file), match[1] ?? match[2]))),
    })),
  )
}

describe('the key port’s folders (docs/keys.md)', () => {
  it('a key type’s curve code (keys/types/<type>/) imports only the key-type vocabulary and the curve contract', () => {
    const allowed = new Set(['keys/key-types.js', 'keys/types/curve.js'])
    const stray = importsUnder('keys/types')
      .filter(({ file, target }) => file.split('/').length > 3 && !allowed.has(target))
      .map(({ file, target }) => `${file} imports ${target}`)
    expect(stray).toEqual([])
  })

  it('a backend (keys/backends/<backend>/) imports no other backend, and nothing outside keys/ reaches into one type’s folder', () => {
    // The registry (keys/backends/index.ts) is no backend: it lists them all.
    const crossing = importsUnder('keys/backends')
      .filter(({ file }) => file.split('/').length > 3)
      .filter(({ file, target }) => target.startsWith('keys/backends/') && target.split('/')[2] !== file.split('/')[2])
      .map(({ file, target }) => `${file} imports ${target}`)
    const reaching = sourceFiles(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => !file.startsWith('keys/types/'))
      .flatMap((file) => importsUnder(file.includes('/') ? dirname(file) : '.').filter((i) => i.file === file))
      .filter(({ target }) => /^keys\/types\/[^/]+\//.test(target) && target !== 'keys/types/secp256k1/index.js')
      .map(({ file, target }) => `${file} imports ${target}`)
    expect([...crossing, ...reaching]).toEqual([])
  })

  it('adding a backend is one folder and one registry line: keys/backends/index.ts lists each folder’s entry once, the service makes none itself', () => {
    const BACKENDS = join(SRC, 'keys/backends')
    const folders = readdirSync(BACKENDS).filter((name) => statSync(join(BACKENDS, name)).isDirectory())
    const registry = readFileSync(join(BACKENDS, 'index.ts'), 'utf8')
    const listed = /const BACKENDS: readonly KeyBackendEntry\[\] = \[([^\]]*)\]/
      .exec(registry)?.[1]
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)
    // Each folder: an entry.ts exporting one entry, imported once by the registry and listed once; `mpc` is made in mpc/.
    const entries = folders.map((folder) => {
      const exported = /export const (\w+): KeyBackendEntry\b/.exec(readFileSync(join(BACKENDS, folder, 'entry.ts'), 'utf8'))?.[1]
      expect(registry.match(new RegExp(`from './${folder}/`, 'g')), folder).toHaveLength(1)
      expect(registry, folder).toContain(`import { ${exported} } from './${folder}/entry.js'`)
      return exported
    })
    expect(listed?.sort()).toEqual([...entries, 'mpcBackend'].sort())
    // The service asks the registry for its key port and names no backend (a backend's records' declaration is data).
    const service = sourceFiles(join(SRC, 'service')).map((file) => [relative(SRC, file), readFileSync(file, 'utf8')] as const)
    const naming = service.filter(([, text]) =>
      /new \w*KeyBackend\(|new BackendKeyManager\(|keys\/backends\/\w+\/(?!records\.js)/.test(text),
    )
    expect(naming.map(([file]) => file)).toEqual([])
    expect(readFileSync(join(SRC, 'service/identity-service.ts'), 'utf8')).toContain(
      "import { openKeyManager } from '../keys/backends/index.js'",
    )
  })
})

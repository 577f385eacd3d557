/**
 * The did:web folder (`src/did/methods/web/`) held to its place: it reaches only the layers below
 * `did/` (the fetch helper and budget of `net/`; the error body, storage and key types its own documents
 * need), and of `did/` only what every DID method shares (the port, the derived methods' results, the `controller` rule, the key
 * bytes of a JWK, their Multikey encoding, the version parameters of DID URLs) — never another method's internals nor a domain; and
 * outside it only its entry (`index.ts`) is imported, never its internals.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = normalize(join(import.meta.dirname, '../../src'))
const WEB = join(SRC, 'did/methods/web')
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** Every relative import of `src/`: importing file and imported path (`.js` as written, resolved). */
const imports = sourceFiles(SRC).flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => ({ file, target: normalize(join(dirname(file), m[1])) })),
)
const inWeb = (path: string) => path.startsWith(`${WEB}/`)

describe('src/did/methods/web', () => {
  it('imports only its own files, the layers below did/ and what DID methods share', () => {
    const below = ['net/', 'storage/', 'keys/'].map((folder) => join(SRC, folder))
    const shared = [
      'errors.js',
      'did/methods/port.js',
      'did/methods/derived.js',
      'did/methods/controllers.js',
      'did/methods/public-key-bytes.js',
      'did/methods/multikey.js',
      'did/version.js',
    ]
    const allowed = (target: string) =>
      inWeb(target) || below.some((folder) => target.startsWith(folder)) || shared.some((file) => target === join(SRC, file))
    const outside = imports.filter((i) => inWeb(i.file) && !allowed(i.target))
    expect(outside.map((i) => `${relative(SRC, i.file)} → ${relative(SRC, i.target)}`)).toEqual([])
  })

  it('is imported from outside through its index.ts only', () => {
    const internal = imports.filter((i) => !inWeb(i.file) && inWeb(i.target) && i.target !== join(WEB, 'index.js'))
    expect(internal.map((i) => `${relative(SRC, i.file)} → ${relative(SRC, i.target)}`)).toEqual([])
    expect(imports.some((i) => !inWeb(i.file) && inWeb(i.target))).toBe(true)
  })
})

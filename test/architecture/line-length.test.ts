/**
 * Lines of `src/` are at most 140 characters (Prettier's print width, which it cannot impose on
 * strings and comments): long descriptions are concatenated, long comments wrapped.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = join(import.meta.dirname, '../../src')
const MAX = 140

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(name) ? [path] : []
  })
}

describe('line length of src/', () => {
  it(`no line is longer than ${MAX} characters`, () => {
    const long = sourceFiles(SRC).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => ([...line].length > MAX ? [`${relative(SRC, file)}:${i + 1} (${[...line].length})`] : [])),
    )
    expect(long).toEqual([])
  })
})

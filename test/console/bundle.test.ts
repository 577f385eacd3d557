/**
 * The built console (`dist/console/`, made by `npm run build`): index.html, one script and one stylesheet, within the
 * size budget (≤ 150 KB gzipped in all, reported), with no inline script or style (the CSP would refuse them) and no
 * URL of another host.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT, ensureBuilt } from '../helpers/build.js'

const DIR = join(ROOT, 'dist/console')
const BUDGET_GZIPPED = 150 * 1024

describe('the built console', () => {
  beforeAll(() => ensureBuilt(), 300_000)

  it('is index.html, main.js and main.css, within 150 KB gzipped in all', () => {
    expect(readdirSync(DIR).sort()).toEqual(['index.html', 'main.css', 'main.js'])
    const sizes = Object.fromEntries(
      ['index.html', 'main.js', 'main.css'].map((name) => {
        const bytes = readFileSync(join(DIR, name))
        return [name, { raw: bytes.byteLength, gzipped: gzipSync(bytes, { level: 9 }).byteLength }]
      }),
    )
    const total = Object.values(sizes).reduce((sum, s) => sum + s.gzipped, 0)
    const kB = (n: number) => `${(n / 1024).toFixed(1)} KB`
    console.log(
      `didvault console: ${Object.entries(sizes)
        .map(([name, s]) => `${name} ${kB(s.raw)} (${kB(s.gzipped)} gzipped)`)
        .join(', ')}; total ${kB(total)} gzipped (budget ${kB(BUDGET_GZIPPED)})`,
    )
    expect(total).toBeLessThanOrEqual(BUDGET_GZIPPED)
  })

  it('index.html has no inline script or style and loads only its own files', () => {
    const html = readFileSync(join(DIR, 'index.html'), 'utf8')
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i)
    expect([...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]).sort()).toEqual(['data:,', 'main.css', 'main.js'])
  })

  it('the script has no eval and names no other host to load from', () => {
    const js = readFileSync(join(DIR, 'main.js'), 'utf8')
    expect(js).not.toMatch(/\beval\(|new Function\(/)
    expect(js).not.toMatch(/\bimport\(\s*["']https?:/)
  })
})

/**
 * `didvault/client` bundles for browsers: esbuild (platform browser, no Node polyfills) builds
 * `src/client` without error — an import of a Node built-in would fail the build — and the bundle
 * holds no package but zod (none of the service's crypto, JSON-LD, DID, storage or HTTP server
 * code), stays within its size budget, and is the size the README quotes.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build, type Metafile } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/build.js'

/** The only packages the client may contain. */
const ALLOWED_PACKAGES = ['zod']
/**
 * Minified bundle size the client must stay within, bytes (it was about 134 kB, 40 kB gzipped; issue 29's contracts —
 * DID resolution results at every status, per-status error bodies, media types — brought it to 161.8 / 48.3 kB, and the
 * budget from 160 / 48 to 170 / 51 kB; issue 31's SD-JWT VC members, presentations and Token Status List media type
 * brought it to 171.6 kB, and the budget to 180 / 54 kB; issue 33's OID4VCI contracts — the issuing backend's seven
 * operations and the wallet-facing ones the exported table holds for the OpenAPI document — to 204.5 / 60.6 kB, and
 * the budget to 210 / 62 kB; issue 34's OID4VP contracts to 217 / 64 kB, and the budget to 220 / 64 kB). Since the
 * wallet-facing OID4VCI/OID4VP contracts left the client (`wallet-contracts.ts`), it is 201.8 / 60.1 kB, and the budget back to 210 / 62 kB;
 * issue 36's console operations — Get Overview, List Status Lists, Verify the Audit Chain, Fetch's format and status —
 * brought it to 209.0 / 62.1 kB, and the budget to 220 / 65 kB). The zod runtime is about two thirds of it.
 */
const BUDGET = { minified: 220_000, gzipped: 65_000 }
/** How far the measured sizes may be from the README's "about … kB" figures. */
const QUOTE_TOLERANCE = 0.05

/** The README's figures: "the browser bundle is about <n> kB minified, <n> kB gzipped", in bytes. */
function quotedSize(): { minified: number; gzipped: number } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ')
  const match = /browser bundle is about (\d+) kB minified, (\d+) kB gzipped/.exec(readme)
  if (match === null) throw new Error('README quotes no "browser bundle is about <n> kB minified, <n> kB gzipped"')
  return { minified: Number(match[1]) * 1000, gzipped: Number(match[2]) * 1000 }
}

/** Bundles `entry` (or `contents`) for browsers, minified. */
async function bundle(source: { entry: string } | { contents: string }) {
  return build({
    ...('entry' in source ? { entryPoints: [source.entry] } : { stdin: { contents: source.contents, resolveDir: ROOT, loader: 'ts' } }),
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
  })
}

/** The packages (under node_modules) whose files went into the bundle. */
function packagesIn(metafile: Metafile): string[] {
  const names = Object.keys(metafile.inputs).flatMap((path) => {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)
    return match ? [match[1]] : []
  })
  return [...new Set(names)].sort()
}

describe('the browser bundle of didvault/client', () => {
  it('builds for the browser, holds no package but zod, and stays within its budget', async () => {
    const result = await bundle({ entry: join(ROOT, 'src/client/index.ts') })
    expect(result.errors).toEqual([])
    expect(packagesIn(result.metafile)).toEqual(ALLOWED_PACKAGES)
    const code = result.outputFiles[0].contents
    const size = { minified: code.byteLength, gzipped: gzipSync(code).byteLength }
    const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`
    console.log(`didvault/client browser bundle: ${kB(size.minified)} minified, ${kB(size.gzipped)} gzipped`)
    expect(size.minified).toBeLessThanOrEqual(BUDGET.minified)
    expect(size.gzipped).toBeLessThanOrEqual(BUDGET.gzipped)
    const quoted = quotedSize()
    for (const kind of ['minified', 'gzipped'] as const) {
      const off = Math.abs(size[kind] - quoted[kind]) / quoted[kind]
      expect(off, `README quotes ${kB(quoted[kind])} ${kind}, measured ${kB(size[kind])}: update the README`).toBeLessThanOrEqual(
        QUOTE_TOLERANCE,
      )
    }
  })

  it('the check has teeth: a Node built-in fails the build, a heavy package shows in the list', async () => {
    await expect(bundle({ contents: "import { createHash } from 'node:crypto'; console.log(createHash)" })).rejects.toThrow(/node:crypto/)
    const heavy = await bundle({ contents: "import { getAddress } from 'ethers'; console.log(getAddress)" })
    expect(packagesIn(heavy.metafile)).toContain('ethers')
  })
})

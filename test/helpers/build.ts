/**
 * Builds `dist/` once when it is older than `src/`, under a lock, so test files running in
 * parallel never build over each other. With `DIDVAULT_PREBUILT=1` (set by `.ci/run`, whose
 * install just built it) `dist/` is taken as fresh and never rebuilt here.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** The built CLI. */
export const CLI = join(ROOT, 'dist/cli/main.js')
const LOCK = join(ROOT, 'node_modules/.didvault-build-lock')
/** A lock older than this is left over from a killed run. */
const STALE_LOCK_MS = 300_000

function newestMtime(dir: string): number {
  return Math.max(
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newestMtime(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
    ),
  )
}

function acquire(): void {
  for (;;) {
    try {
      mkdirSync(LOCK)
      return
    } catch {
      const held = statSync(LOCK, { throwIfNoEntry: false })
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmdirSync(LOCK, { recursive: false })
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250)
    }
  }
}

/** Runs `npm run build` when dist/cli/main.js is missing or older than any file in src/ (never under `DIDVAULT_PREBUILT=1`). */
export function ensureBuilt(): void {
  if (process.env.DIDVAULT_PREBUILT === '1') {
    if (!existsSync(CLI)) throw new Error(`DIDVAULT_PREBUILT=1 but ${CLI} is missing: build first (npm run build)`)
    return
  }
  acquire()
  try {
    if (!existsSync(CLI) || statSync(CLI).mtimeMs < newestMtime(join(ROOT, 'src')))
      execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe' })
  } finally {
    rmdirSync(LOCK)
  }
}

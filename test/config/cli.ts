/** The `didvault` CLI run from the sources by tsx, as a real process in `cwd` (no build needed). */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { spawnNode, type Spawned } from '../helpers/spawn.js'

const ROOT = join(import.meta.dirname, '../..')
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href
const MAIN = join(ROOT, 'src/cli/main.ts')

/** Starts `didvault <args>` in `cwd` with the test runner's environment minus `DIDVAULT_*`, plus `env`. */
export const configCli = (args: string[], cwd: string, env: Record<string, string> = {}): Spawned =>
  spawnNode(['--import', TSX, MAIN, ...args], { cwd, env })

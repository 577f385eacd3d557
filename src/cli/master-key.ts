/**
 * Where `didvault serve` (and `keys`, `master-key rotate`) get the master key (DESIGN §4, issue
 * "CLI contract") and the previous ones a rotation needs (docs/operations.md *Master-key rotation*).
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { dirname } from 'node:path'
import { randomMasterKey } from '../keys/keyring.js'
import type { MasterKeyInput } from '../custody/keyring-store.js'

/** The storage a master key is resolved for (see `--storage`). */
export type KeyedStorage = { kind: 'memory' } | { kind: 'sqlite'; path: string } | { kind: 'mongodb' } | { kind: 'postgres' }

/**
 * `DIDVAULT_MASTER_KEY` when set (64 hex = raw key, else a passphrase). Otherwise, for a
 * SQLite database, a random key kept in `<db>.key` (mode 0600), created on first start;
 * for memory storage, a random in-process key. MongoDB and PostgreSQL have no file to keep a key
 * next to (and are shared by several hosts): they require `DIDVAULT_MASTER_KEY`.
 */
export function resolveMasterKey(env: NodeJS.ProcessEnv, storage: KeyedStorage): { key: MasterKeyInput; source: string } {
  const fromEnv = env.DIDVAULT_MASTER_KEY
  if (fromEnv !== undefined && fromEnv !== '') return { key: fromEnv, source: 'DIDVAULT_MASTER_KEY' }
  if (storage.kind === 'mongodb' || storage.kind === 'postgres') {
    const [scheme, name] = storage.kind === 'mongodb' ? ['mongodb', 'MongoDB'] : ['postgres', 'PostgreSQL']
    throw new Error(
      `--storage ${scheme}://... needs the master key in DIDVAULT_MASTER_KEY (64 hex characters or a passphrase); no key ` +
        `file is kept for ${name}`,
    )
  }
  if (storage.kind === 'memory' || storage.path === ':memory:') return { key: randomMasterKey(), source: 'random (in-process)' }
  const sqlitePath = storage.path
  const keyFile = `${sqlitePath}.key`
  if (existsSync(keyFile)) return { key: readKeyFile(keyFile), source: keyFile }
  if (existsSync(sqlitePath) && statSync(sqlitePath).size > 0) {
    throw new Error(`${sqlitePath} exists but its key file ${keyFile} does not: restore the key file or set DIDVAULT_MASTER_KEY`)
  }
  // Written whole to a private temporary file, then linked into place: a process starting at
  // the same moment either wins the link or reads the complete file of the one that did.
  const temporary = `${keyFile}.${process.pid}.tmp`
  writeFileSync(temporary, Buffer.from(randomMasterKey()).toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
  try {
    linkSync(temporary, keyFile)
    return { key: readKeyFile(keyFile), source: `${keyFile} (created)` }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    return { key: readKeyFile(keyFile), source: keyFile }
  } finally {
    unlinkSync(temporary)
  }
}

/**
 * Reads a key file, refusing one that others can read or that holds no 64-hex key; errors name the
 * file (and `about`, what it was given as), never its content.
 */
export function readKeyFile(keyFile: string, about = ''): string {
  const named = about === '' ? keyFile : `${about} ${keyFile}`
  let mode: number
  let text: string
  try {
    mode = statSync(keyFile).mode & 0o777
    text = readFileSync(keyFile, 'utf8')
  } catch (err) {
    throw new Error(`${named}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`)
  }
  if (mode & 0o077) throw new Error(`${named} is readable by others (mode ${mode.toString(8)}): chmod 600 it`)
  const hex = text.trim()
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${named} does not hold a 64-hex-character master key`)
  return hex
}

/** Where a SQLite database whose key is kept in `<db>.key` keeps the key it is being rotated from. */
export const previousKeyFileOf = (sqlitePath: string) => `${sqlitePath}.previous.key`

/** Whether the master key of `storage` is the `<db>.key` file beside a SQLite database (no `DIDVAULT_MASTER_KEY`). */
export function usesKeyFile(env: NodeJS.ProcessEnv, storage: KeyedStorage): storage is { kind: 'sqlite'; path: string } {
  return !env.DIDVAULT_MASTER_KEY && storage.kind === 'sqlite' && storage.path !== ':memory:'
}

/**
 * The previous master keys, accepted for opening secrets while a rotation runs: those of
 * `DIDVAULT_PREVIOUS_MASTER_KEYS` (comma-separated; each 64 hex characters or a passphrase), of
 * `files` (`--previous-master-key-file`, config `previousMasterKeyFiles`: 64 hex characters, mode
 * 0600), and, for a SQLite database keeping its key in `<db>.key`, of `<db>.previous.key` when
 * an unfinished rotation left one.
 */
export function resolvePreviousMasterKeys(env: NodeJS.ProcessEnv, storage: KeyedStorage, files: readonly string[]): MasterKeyInput[] {
  const fromEnv = (env.DIDVAULT_PREVIOUS_MASTER_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean)
  const fromFiles = files.map((file) => readKeyFile(file, 'previous master key file'))
  const leftFile = usesKeyFile(env, storage) ? previousKeyFileOf(storage.path) : undefined
  const left = leftFile !== undefined && existsSync(leftFile) ? [readKeyFile(leftFile)] : []
  return [...fromEnv, ...fromFiles, ...left]
}

/**
 * Writes `text` to `file` (mode 0600) so that a crash leaves either the old file or the new one,
 * whole: a synced temporary file renamed over it, the directory synced.
 */
function replaceFile(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, text, { mode: 0o600, flag: 'w' })
  const fd = openSync(temporary, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temporary, file)
  const dir = openSync(dirname(file), 'r')
  try {
    fsyncSync(dir)
  } finally {
    closeSync(dir)
  }
}

/**
 * Puts `newKeyHex` in `<db>.key`, the key it held in `<db>.previous.key` first, so that at every
 * moment (a crash included) the two files hold the keys a start needs: the current key, or the
 * new one with the current one as previous. `false` when `<db>.key` already holds the new key.
 */
export function installKeyFile(sqlitePath: string, newKeyHex: string): boolean {
  const keyFile = `${sqlitePath}.key`
  const current = readKeyFile(keyFile)
  if (current.toLowerCase() === newKeyHex.toLowerCase()) return false
  replaceFile(previousKeyFileOf(sqlitePath), `${current}\n`)
  replaceFile(keyFile, `${newKeyHex}\n`)
  return true
}

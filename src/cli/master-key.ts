/** Where `didvault serve` gets its master key (DESIGN §4, issue "CLI contract"). */
import { existsSync, linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
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

/** Reads a key file, refusing one that others can read or that holds no 64-hex key. */
function readKeyFile(keyFile: string): string {
  const mode = statSync(keyFile).mode & 0o777
  if (mode & 0o077) throw new Error(`${keyFile} is readable by others (mode ${mode.toString(8)}): chmod 600 it`)
  const hex = readFileSync(keyFile, 'utf8').trim()
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${keyFile} does not hold a 64-hex-character master key`)
  return hex
}

/** Where `didvault serve` gets its master key (DESIGN §4, issue "CLI contract"). */
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { randomMasterKey } from '../keys/keyring.js'
import type { MasterKeyInput } from '../keys/keyring-store.js'

/**
 * `DIDVAULT_MASTER_KEY` when set (64 hex = raw key, else a passphrase). Otherwise, for a
 * SQLite database, a random key kept in `<db>.key` (mode 0600), created on first start;
 * for memory storage, a random in-process key.
 */
export function resolveMasterKey(env: NodeJS.ProcessEnv, sqlitePath: string | undefined): { key: MasterKeyInput; source: string } {
  const fromEnv = env.DIDVAULT_MASTER_KEY
  if (fromEnv !== undefined && fromEnv !== '') return { key: fromEnv, source: 'DIDVAULT_MASTER_KEY' }
  if (sqlitePath === undefined || sqlitePath === ':memory:') return { key: randomMasterKey(), source: 'random (in-process)' }
  const keyFile = `${sqlitePath}.key`
  if (existsSync(keyFile)) {
    const hex = readFileSync(keyFile, 'utf8').trim()
    if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${keyFile} does not hold a 64-hex-character master key`)
    return { key: hex, source: keyFile }
  }
  if (existsSync(sqlitePath) && statSync(sqlitePath).size > 0) {
    throw new Error(`${sqlitePath} exists but its key file ${keyFile} does not: restore the key file or set DIDVAULT_MASTER_KEY`)
  }
  writeFileSync(keyFile, Buffer.from(randomMasterKey()).toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
  chmodSync(keyFile, 0o600)
  return { key: readFileSync(keyFile, 'utf8').trim(), source: `${keyFile} (created)` }
}

/**
 * `didvault master-key rotate --new-key-file <path>`: reseals every secret of a storage under a new
 * master key while servers run on it (docs/operations.md *Master-key rotation*). Resumable; progress
 * on stderr. With the SQLite `<db>.key` file, it installs the new key there first (the current one
 * in `<db>.previous.key`, which `serve` reads as a previous key) and removes `<db>.previous.key`
 * once every secret is resealed.
 */
import { existsSync, unlinkSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { effectiveConfig } from '../config/effective.js'
import { KEYRING_RECORD, type KeyringMeta } from '../custody/keyring-store.js'
import { RotationBlockedError, type RotationProgress } from '../custody/rotation.js'
import { Keyring } from '../keys/keyring.js'
import type { StorageAdapter } from '../storage/port.js'
import { installKeyFile, previousKeyFileOf, readKeyFile, resolveMasterKey, usesKeyFile } from './master-key.js'
import { configFileOf } from './serve-config.js'
import { assertSetUp, openService, serviceKeysOf, storageTargetOf } from './storage-target.js'
import { USAGE, UsageError } from './usage.js'

const note = (line: string) => console.error(`didvault: ${line}`)

/** Runs a `master-key` subcommand; the outcome goes to `out` (stdout), progress to stderr. */
export async function masterKey(args: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const [sub, ...rest] = args
  if (sub === '-h' || sub === '--help') return out(USAGE.masterKey)
  if (sub === undefined) throw new UsageError('master-key needs a subcommand: rotate')
  if (sub !== 'rotate') throw new UsageError(`unknown master-key subcommand ${JSON.stringify(sub)} (rotate)`)
  const { values } = parseArgs({
    args: rest,
    options: {
      'new-key-file': { type: 'string' },
      'previous-master-key-file': { type: 'string', multiple: true },
      storage: { type: 'string' },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  })
  if (values.help) return out(USAGE.masterKey)
  const newKeyFile = values['new-key-file']
  if (newKeyFile === undefined) throw new UsageError('master-key rotate needs --new-key-file <path> (64 hex characters, mode 0600)')
  // The storage `serve` would use: --storage, else DIDVAULT_STORAGE, else the config file's (--config or DIDVAULT_CONFIG).
  const file = configFileOf(values.config, env)
  const flagged = values.storage === undefined ? {} : { storage: values.storage }
  const fromEnv = env.DIDVAULT_STORAGE ? { storage: env.DIDVAULT_STORAGE } : {}
  const target = storageTargetOf(effectiveConfig(flagged, fromEnv, file).config.storage)
  if (target.kind === 'memory')
    throw new UsageError('master-key rotate needs the storage of a server (sqlite:<path>, postgres://... or mongodb://...)')

  const newKey = readKeyFile(newKeyFile, '--new-key-file')
  await assertSetUp(target)
  const current = serviceKeysOf(target, env, values['previous-master-key-file'] ?? file?.previousMasterKeyFiles ?? [])
  const keys = { masterKey: newKey, previousMasterKeys: [current.masterKey, ...current.previousMasterKeys] }
  const { service, storage } = await openService(target, env, { keys })
  try {
    const keyFile = usesKeyFile(env, target)
    if (keyFile) {
      await assertKeyFileRotatable(storage, target.path, resolveMasterKey(env, target).key as string, newKey)
      const installed = installKeyFile(target.path, newKey)
      if (installed) note(`the new key is in ${target.path}.key, the current one in ${previousKeyFileOf(target.path)}`)
    }
    const progress = ({ collection, processed, total, resealed }: RotationProgress) =>
      note(`master-key rotate: ${collection} ${processed}/${total} records, ${resealed} secrets resealed so far`)
    let result: { resealed: number }
    try {
      const gone = (instance: string) => note(`ignoring a process not seen for 30 s (its record removed): ${instance}`)
      result = await service.rotateMasterKey(newKey, progress, gone)
    } catch (err) {
      if (!(err instanceof RotationBlockedError) || !keyFile) throw err
      throw new Error(
        `${err.message}. ${target.path}.key holds the new key and ${previousKeyFileOf(target.path)} the current one: ` +
          'restarting a server gives it both',
        { cause: err },
      )
    }
    if (keyFile && existsSync(previousKeyFileOf(target.path))) {
      unlinkSync(previousKeyFileOf(target.path))
      note(`removed ${previousKeyFileOf(target.path)} (keep the old key only with backups taken before this rotation)`)
    }
    out(`rotated the master key to key ${Keyring.idOf(Buffer.from(newKey, 'hex'))}: ${result.resealed} secrets resealed`)
  } finally {
    await service.close()
  }
}

/**
 * With the `<db>.key` file, the new key may replace the current one only when the database is on
 * the current one (no rotation unfinished): `<db>.previous.key` would otherwise lose a key some secrets still need.
 */
async function assertKeyFileRotatable(storage: StorageAdapter, path: string, currentHex: string, newHex: string): Promise<void> {
  if (currentHex.toLowerCase() === newHex.toLowerCase()) return
  const record = await storage.collection<KeyringMeta>('meta').get(KEYRING_RECORD.id)
  const currentId = Keyring.idOf(Buffer.from(currentHex, 'hex'))
  const onKey = record === undefined ? undefined : Keyring.keyIdOf(record.check)
  if (record !== undefined && record.rotatingTo === undefined && onKey === currentId) return
  throw new Error(
    `${path}.key holds key ${currentId} but the database is on key ${onKey}: the rotation to ${currentId} is unfinished; ` +
      `finish it first (didvault master-key rotate --new-key-file <a copy of ${path}.key>)`,
  )
}

/**
 * `didvault master-key rotate --new-key-file <path>`: reseals every secret of a storage under a new
 * master key while servers run on it (docs/operations.md *Master-key rotation*). Resumable; progress
 * on stderr. With the SQLite `<db>.key` file, it installs the new key there first (the current one
 * in `<db>.previous.key`, which `serve` reads as a previous key) and removes `<db>.previous.key`
 * once every secret is resealed. `--to-hsm` moves the master key into a PKCS#11 token, `--to-file`
 * out of it into a new key file (docs/keys.md *The master key in an HSM*).
 */
import { existsSync, unlinkSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { effectiveConfig } from '../config/effective.js'
import { KEYRING_RECORD, type KeyringMeta } from '../custody/keyring-store.js'
import { RotationBlockedError, type RotationProgress } from '../custody/rotation.js'
import { Keyring, randomMasterKey } from '../keys/keyring.js'
import type { HsmMasterKey } from '../custody/hsm-master-key.js'
import type { HsmSettings } from '../config/schema.js'
import type { Pkcs11Module } from '../keys/backends/pkcs11/index.js'
import { hsmModuleOf, hsmServiceKeys } from './hsm.js'
import type { StorageAdapter } from '../storage/port.js'
import { installKeyFile, previousKeyFileOf, readKeyFile, resolveMasterKey, resolvePreviousMasterKeys, usesKeyFile } from './master-key.js'
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
      'to-hsm': { type: 'boolean', default: false },
      'to-file': { type: 'string' },
      'hsm-module': { type: 'string' },
      'hsm-token-label': { type: 'string' },
      'hsm-pin-file': { type: 'string' },
      'hsm-key-label': { type: 'string' },
      'previous-master-key-file': { type: 'string', multiple: true },
      storage: { type: 'string' },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  })
  if (values.help) return out(USAGE.masterKey)
  const newKeyFile = values['new-key-file']
  const toFile = values['to-file']
  const given = [newKeyFile !== undefined, values['to-hsm'], toFile !== undefined].filter(Boolean).length
  if (given !== 1)
    throw new UsageError(
      'master-key rotate needs one of --new-key-file <path> (64 hex characters, mode 0600), --to-hsm or --to-file <path>',
    )
  // The storage `serve` would use: --storage, else DIDVAULT_STORAGE, else the config file's (--config or DIDVAULT_CONFIG).
  const file = configFileOf(values.config, env)
  const flagged = values.storage === undefined ? {} : { storage: values.storage }
  const fromEnv = env.DIDVAULT_STORAGE ? { storage: env.DIDVAULT_STORAGE } : {}
  const target = storageTargetOf(effectiveConfig(flagged, fromEnv, file).config.storage)
  if (target.kind === 'memory')
    throw new UsageError('master-key rotate needs the storage of a server (sqlite:<path>, postgres://... or mongodb://...)')
  const previousFiles = values['previous-master-key-file'] ?? file?.previousMasterKeyFiles ?? []
  if (newKeyFile === undefined) return hsmRotation(target, env, values, file?.hsm, previousFiles, out)
  if (file?.hsm?.masterKey === true)
    throw new UsageError(
      'the master key is in the HSM (hsm.masterKey of the config file): rotate out of it with --to-file <path>, or to a ' +
        'new data key with --to-hsm',
    )

  const newKey = readKeyFile(newKeyFile, '--new-key-file')
  await assertSetUp(target)
  const current = serviceKeysOf(target, env, previousFiles)
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

interface HsmFlags {
  'to-hsm'?: boolean
  'to-file'?: string
  'hsm-module'?: string
  'hsm-token-label'?: string
  'hsm-pin-file'?: string
  'hsm-key-label'?: string
}

/**
 * The token of the config file's `hsm` section with `--hsm-module`, `--hsm-token-label`, `--hsm-pin-file` over it
 * field by field, and the PIN (the pin file, else `DIDVAULT_HSM_PIN`; never an argument), logged in as `serve` does
 * ({@link hsmModuleOf}); the token key `--hsm-key-label`, else `hsm.masterKeyLabel`.
 */
async function openToken(
  hsmSettings: Partial<HsmSettings> | undefined,
  values: HsmFlags,
  env: NodeJS.ProcessEnv,
  needed: string,
): Promise<{ setting: HsmMasterKey; module: Pkcs11Module; close(): Promise<void> }> {
  const settings: Partial<HsmSettings> = {
    ...hsmSettings,
    ...(values['hsm-module'] !== undefined && { module: values['hsm-module'] }),
    ...(values['hsm-token-label'] !== undefined && { tokenLabel: values['hsm-token-label'] }),
    ...(values['hsm-pin-file'] !== undefined && { pinFile: values['hsm-pin-file'] }),
  }
  if (settings.module === undefined)
    throw new UsageError(
      `${needed} needs the token: hsm.module (--hsm-module <path>), hsm.tokenLabel (--hsm-token-label <label>) and the ` +
        'PIN (hsm.pinFile, --hsm-pin-file <path>, or DIDVAULT_HSM_PIN)',
    )
  const token = await hsmModuleOf(settings, env)
  const label = values['hsm-key-label'] ?? settings.masterKeyLabel
  return { setting: { hsm: token, ...(label !== undefined && { label }) }, module: token, close: () => token.close() }
}

/**
 * `--to-hsm`: the current master key (as `serve` finds it) becomes a previous key, a data key wrapped by a token key
 * (made in the token, or `--hsm-key-label`'s) the master key, and every secret is resealed under it; with the SQLite
 * `<db>.key` file, the file is removed at the end. `--to-file <path>`: the master key in the HSM becomes a previous
 * key, a new random key written to `<path>` (0600; an existing file is the key of a rotation begun) the master key.
 * Both resume where an interrupted run stopped.
 */
async function hsmRotation(
  target: Parameters<typeof serviceKeysOf>[0],
  env: NodeJS.ProcessEnv,
  values: HsmFlags,
  hsmSettings: Partial<HsmSettings> | undefined,
  previousFiles: readonly string[],
  out: (line: string) => void,
): Promise<void> {
  await assertSetUp(target)
  const toFile = values['to-file']
  const token = await openToken(hsmSettings, values, env, toFile === undefined ? '--to-hsm' : '--to-file')
  try {
    let keys: { masterKey: HsmMasterKey | string; previousMasterKeys: (HsmMasterKey | string | Uint8Array)[] }
    let newKeyHex: string | undefined
    if (toFile === undefined) {
      // Without <db>.key, a SQLite database's key is in the HSM already (a finished move run again, or a new data key).
      // With `hsm.masterKey` (servers on the HSM already), the file key only when there is one, as `serve` takes it.
      const inHsm = usesKeyFile(env, target) && !existsSync(`${target.path}.key`)
      const previous =
        hsmSettings?.masterKey === true
          ? hsmServiceKeys(target, env, token.module, token.setting.label, previousFiles).previousMasterKeys
          : [
              ...(inHsm ? [] : [serviceKeysOf(target, env, previousFiles).masterKey]),
              ...resolvePreviousMasterKeys(env, target, previousFiles),
            ]
      keys = { masterKey: token.setting, previousMasterKeys: previous }
    } else {
      if (!existsSync(toFile)) {
        writeFileSync(toFile, Buffer.from(randomMasterKey()).toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
        note(`wrote a new master key to ${toFile} (mode 0600)`)
      } else note(`${toFile} exists: taking its key (a rotation begun)`)
      newKeyHex = readKeyFile(toFile, '--to-file')
      keys = { masterKey: newKeyHex, previousMasterKeys: [token.setting, ...resolvePreviousMasterKeys(env, target, previousFiles)] }
    }
    const { service, storage } = await openService(target, env, { keys })
    try {
      const progress = ({ collection, processed, total, resealed }: RotationProgress) =>
        note(`master-key rotate: ${collection} ${processed}/${total} records, ${resealed} secrets resealed so far`)
      const gone = (instance: string) => note(`ignoring a process not seen for 30 s (its record removed): ${instance}`)
      const result = await service.rotateMasterKey(newKeyHex ?? token.setting, progress, gone)
      if (newKeyHex !== undefined) {
        out(
          `rotated the master key to key ${Keyring.idOf(Buffer.from(newKeyHex, 'hex'))} in ${toFile}: ${result.resealed} secrets resealed`,
        )
        return
      }
      if (usesKeyFile(env, target)) {
        for (const old of [`${target.path}.key`, previousKeyFileOf(target.path)]) {
          if (!existsSync(old)) continue
          unlinkSync(old)
          note(`removed ${old}: the master key is in the HSM now (keep the old key only with backups taken before this rotation)`)
        }
      }
      const wrapped = (await storage.collection<KeyringMeta>('meta').get(KEYRING_RECORD.id))?.hsmWrapped?.at(-1)
      out(
        `rotated the master key to the HSM (token key ${wrapped?.label}, data key ${wrapped?.keyId}): ${result.resealed} secrets resealed`,
      )
    } finally {
      await service.close()
    }
  } finally {
    await token.close()
  }
}

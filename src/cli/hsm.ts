/**
 * `serve` with an HSM (config section `hsm`, `--hsm-module`, `--hsm-token-label`, `--hsm-pin-file`): the module
 * `didvault/pkcs11` loaded only then (pkcs11js is an optional peer of the package), logged in before the storage is
 * opened. The PIN comes from the pin file (mode 0600, checked like the master key file) or `DIDVAULT_HSM_PIN` — never
 * from an argument — and appears in no message: a wrong PIN or a missing token stops the start with a usage error
 * (exit 2) naming the setting.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import type { HsmSettings } from '../config/schema.js'
import type { HsmMasterKey } from '../custody/hsm-master-key.js'
import type { MasterKeyInput } from '../custody/keyring-store.js'
import type { Pkcs11Module } from '../keys/backends/pkcs11/index.js'
import { readKeyFile, resolvePreviousMasterKeys } from './master-key.js'
import { withOptionalPeer } from './optional-peer.js'
import type { ServiceKeys, StorageTarget } from './storage-target.js'
import { UsageError } from './usage.js'

/** The environment variable of the PIN, when there is no pin file. */
export const HSM_PIN_ENV = 'DIDVAULT_HSM_PIN'

/** The PIN of `settings`: the pin file's first line, else {@link HSM_PIN_ENV}. @throws {UsageError} naming the setting */
export function hsmPinOf(settings: Partial<HsmSettings>, env: NodeJS.ProcessEnv): string {
  if (settings.pinFile !== undefined) {
    const file = settings.pinFile
    let mode: number
    try {
      mode = statSync(file).mode & 0o777
    } catch (err) {
      throw new UsageError(`hsm.pinFile (--hsm-pin-file): cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`)
    }
    if (mode & 0o077)
      throw new UsageError(`hsm.pinFile (--hsm-pin-file): ${file} is readable by others (mode ${mode.toString(8)}): chmod 600 it`)
    const pin = readFileSync(file, 'utf8').split(/\r?\n/)[0]
    if (pin === '') throw new UsageError(`hsm.pinFile (--hsm-pin-file): ${file} holds no PIN on its first line`)
    return pin
  }
  const pin = env[HSM_PIN_ENV]
  if (pin === undefined || pin === '')
    throw new UsageError(`hsm: no PIN: give hsm.pinFile (--hsm-pin-file, a file of mode 0600) or ${HSM_PIN_ENV}; never a flag`)
  return pin
}

/**
 * The HSM module of `settings`, logged in and ready.
 * @throws {UsageError} a setting missing, the PIN file open to others, a wrong PIN, no token of that label
 * @throws {Error} pkcs11js not installed (naming it)
 */
export async function hsmModuleOf(settings: Partial<HsmSettings>, env: NodeJS.ProcessEnv): Promise<Pkcs11Module> {
  const { module, tokenLabel, sessions } = settings
  if (module === undefined) throw new UsageError('hsm.module (--hsm-module): the path of the PKCS#11 library is required')
  if (tokenLabel === undefined) throw new UsageError('hsm.tokenLabel (--hsm-token-label): the label of the token is required')
  const pin = hsmPinOf(settings, env)
  const { pkcs11 } = await withOptionalPeer('pkcs11js', 'the HSM (hsm, --hsm-module)', () => import('../pkcs11.js'))
  // Whatever a failure says, the PIN is not in it.
  const scrub = (err: unknown) => (err instanceof Error ? err.message : String(err)).split(pin).join('***')
  let hsm: Pkcs11Module
  try {
    hsm = await Promise.resolve(pkcs11({ module, tokenLabel, pin, ...(sessions !== undefined && { sessions }) }))
  } catch (err) {
    throw new UsageError(`hsm: ${scrub(err)}`)
  }
  if (!(await hsm.ready().catch(() => false))) {
    await hsm.close().catch(() => undefined)
    throw new UsageError(`hsm.tokenLabel (--hsm-token-label): the token ${tokenLabel} does not answer`)
  }
  return hsm
}

/**
 * The keys of a service whose master key is in the token (`hsm.masterKey: true`): `{ hsm, label? }` as master key; as
 * previous keys, the file key a database not yet in the HSM is on — `DIDVAULT_MASTER_KEY`, else a SQLite `<db>.key`
 * when there is one (never created) — and the usual previous keys (`DIDVAULT_PREVIOUS_MASTER_KEYS`,
 * `previousMasterKeyFiles`, `<db>.previous.key`): a server restarted onto the HSM before `master-key rotate --to-hsm`
 * (docs/operations.md *Step by step: into an HSM, and back out*).
 * @throws {UsageError} memory storage (every start would make a new token key)
 */
export function hsmServiceKeys(
  target: StorageTarget,
  env: NodeJS.ProcessEnv,
  hsm: Pkcs11Module,
  label: string | undefined,
  previousKeyFiles: readonly string[] = [],
): ServiceKeys {
  assertKeepsMasterKey(target)
  const current: MasterKeyInput[] = []
  if (env.DIDVAULT_MASTER_KEY) current.push(env.DIDVAULT_MASTER_KEY)
  else if (target.kind === 'sqlite' && existsSync(`${target.path}.key`)) current.push(readKeyFile(`${target.path}.key`))
  const masterKey: HsmMasterKey = { hsm, ...(label !== undefined && { label }) }
  return { masterKey, previousMasterKeys: [...current, ...resolvePreviousMasterKeys(env, target, previousKeyFiles)] }
}

/** `hsm.masterKey` needs a storage that outlives the process. @throws {UsageError} */
function assertKeepsMasterKey(target: StorageTarget): void {
  if (target.kind === 'memory' || (target.kind === 'sqlite' && target.path === ':memory:'))
    throw new UsageError(
      'hsm.masterKey: the master key in the HSM needs the storage of a server (sqlite:<path>, postgres://... or mongodb://...)',
    )
}

/**
 * What `serve` (and a cluster's primary) open the service with for `settings` (the effective `hsm` section): the token
 * logged in (`hsm`), and with `masterKey: true` the keys of {@link hsmServiceKeys}. Nothing without a section.
 */
export async function hsmServiceOf(
  settings: Partial<HsmSettings> | undefined,
  target: StorageTarget,
  env: NodeJS.ProcessEnv,
  previousKeyFiles: readonly string[] = [],
): Promise<{ hsm?: Pkcs11Module; keys?: ServiceKeys }> {
  if (settings === undefined) return {}
  if (settings.masterKey === true) assertKeepsMasterKey(target)
  const hsm = await hsmModuleOf(settings, env)
  if (settings.masterKey !== true) return { hsm }
  try {
    return { hsm, keys: hsmServiceKeys(target, env, hsm, settings.masterKeyLabel, previousKeyFiles) }
  } catch (err) {
    await hsm.close().catch(() => undefined)
    throw err
  }
}

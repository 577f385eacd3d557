/**
 * `serve` with an HSM (config section `hsm`, `--hsm-module`, `--hsm-token-label`, `--hsm-pin-file`): the module
 * `didvault/pkcs11` loaded only then (pkcs11js is an optional peer of the package), logged in before the storage is
 * opened. The PIN comes from the pin file (mode 0600, checked like the master key file) or `DIDVAULT_HSM_PIN` — never
 * from an argument — and appears in no message: a wrong PIN or a missing token stops the start with a usage error
 * (exit 2) naming the setting.
 */
import { readFileSync, statSync } from 'node:fs'
import type { HsmSettings } from '../config/schema.js'
import type { HsmModule } from '../keys/hsm.js'
import { withOptionalPeer } from './optional-peer.js'
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
export async function hsmModuleOf(settings: Partial<HsmSettings>, env: NodeJS.ProcessEnv): Promise<HsmModule> {
  const { module, tokenLabel, sessions } = settings
  if (module === undefined) throw new UsageError('hsm.module (--hsm-module): the path of the PKCS#11 library is required')
  if (tokenLabel === undefined) throw new UsageError('hsm.tokenLabel (--hsm-token-label): the label of the token is required')
  const pin = hsmPinOf(settings, env)
  const { pkcs11 } = await withOptionalPeer('pkcs11js', 'the HSM (hsm, --hsm-module)', () => import('../pkcs11.js'))
  // Whatever a failure says, the PIN is not in it.
  const scrub = (err: unknown) => (err instanceof Error ? err.message : String(err)).split(pin).join('***')
  let hsm: HsmModule
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

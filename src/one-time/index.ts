/**
 * Single-use, expiring values shared by every process on one database (`OneTimeStore`), kept as
 * keyed hashes only. The service builds one over its storage and keyring: `ctx.oneTime`.
 */
import type { Keyring } from '../keys/keyring.js'
import type { StorageAdapter } from '../storage/port.js'
import { oneTimeKeys } from './hashing.js'
import { OneTimeStore, type OneTimeStoreOptions } from './store.js'

export type { OneTimeSealer } from './sealing.js'
export { ONE_TIME, type OneTimeData, type OneTimeKind, type OneTimeRecord } from './records.js'
export {
  DEFAULT_MAX_ATTEMPTS,
  isOneTimeTaken,
  OneTimeConflictError,
  OneTimeStore,
  type AttemptResult,
  type OneTimeSeen,
  type OneTimeStoreOptions,
} from './store.js'

/** The one-time store of `storage`, its values hashed under the key the keyring seals in `meta` (created on first use). */
export async function openOneTimeStore(
  storage: StorageAdapter,
  keyring: Keyring,
  options: OneTimeStoreOptions = {},
): Promise<OneTimeStore> {
  const { hash, sealer } = await oneTimeKeys(storage, keyring)
  return new OneTimeStore(storage, hash, { ...options, sealer })
}

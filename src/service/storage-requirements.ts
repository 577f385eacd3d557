/**
 * What the service needs of its storage, checked before it is opened: an adapter lacking a
 * capability the service relies on is refused with an error naming it, never discovered later
 * as a lost write or a duplicate.
 */
import type { StorageAdapter, StorageCapabilities } from '../storage/port.js'

/** A capability the service relies on, and what relies on it. */
export interface StorageRequirement {
  capability: keyof StorageCapabilities
  because: string
}

/** The capabilities every storage given to `IdentityService.create` must declare `true`. `multiProcess` is not among them. */
export const SERVICE_STORAGE_REQUIREMENTS: readonly StorageRequirement[] = [
  {
    capability: 'transactions',
    because:
      'operations write several records all or nothing (a vault and its first wallet, an HD index and its wallet, ' +
      'a DID event and its head, a role and its wallet, a batch of stored credentials)',
  },
  {
    capability: 'uniqueIndexes',
    because:
      'uniqueness is kept by the declared unique indexes (one wallet per DID and per alias, one HD index per vault, ' +
      'one event per DID and sequence number, one stored copy per content and storer)',
  },
]

/** The capabilities of {@link SERVICE_STORAGE_REQUIREMENTS} that `capabilities` lacks. */
export function missingCapabilities(capabilities: Partial<StorageCapabilities> | undefined): StorageRequirement[] {
  return SERVICE_STORAGE_REQUIREMENTS.filter(({ capability }) => capabilities?.[capability] !== true)
}

/**
 * Throws a TypeError naming every capability the service needs that `storage` does not declare
 * (`storage.capabilities.<name>` must be `true`), and why the service needs it.
 */
export function assertStorageSupports(storage: StorageAdapter): void {
  const missing = missingCapabilities(storage.capabilities)
  if (missing.length === 0) return
  const names = missing.map(({ capability }) => `capabilities.${capability}`)
  const reasons = missing.map(({ capability, because }) => `capabilities.${capability} (${because})`)
  throw new TypeError(
    `IdentityService.create: the storage ${JSON.stringify(storage.name)} does not declare ${names.join(' and ')}, ` +
      `which the service needs: ${reasons.join('; ')}. See docs/storage.md, "Adding a backend".`,
  )
}

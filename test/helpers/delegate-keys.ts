/**
 * Where a generated delegate's key is stored, for tests that check what the secrets are: the key
 * port's `keys` record its `keyRef` names, or — for delegates made before the key port — the
 * delegate record's own envelope.
 */
import { SEALED_KEYS, sealedKeyId, type SealedKeyRecord } from '../../src/keys/backends/sealed/index.js'
import type { Keyring } from '../../src/keys/keyring.js'
import { secretContext } from '../../src/keys/secret-context.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import type { DelegateKeyRecord } from '../../src/wallets/records.js'

/** The envelope of a delegate's key and the context it opens under. */
export async function delegateEnvelope(storage: StorageAdapter, row: DelegateKeyRecord): Promise<{ envelope: string; context: string }> {
  if (row.keyRef === undefined) return { envelope: row.privateKey!, context: secretContext('delegateKeys', row, 'privateKey') }
  const key = await storage.collection<SealedKeyRecord>(SEALED_KEYS.name).get(sealedKeyId(row.tenantId, row.keyRef.slice('sealed:'.length)))
  if (!key) throw new Error(`no keys record for ${row.keyRef}`)
  return { envelope: key.privateKey, context: secretContext(SEALED_KEYS.name, key, 'privateKey') }
}

/** The plaintext private key of a delegate (the caller wipes it). */
export async function openDelegateKey(storage: StorageAdapter, keyring: Keyring, row: DelegateKeyRecord): Promise<Uint8Array> {
  const { envelope, context } = await delegateEnvelope(storage, row)
  return keyring.open(envelope, context)
}

/** What a service wrote to a SQLite file, read back after the service closed: its wallet records and the sealed backend's key records. */
import { SEALED_KEYS, type SealedKeyRecord } from '../../src/keys/backends/sealed/index.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import type { WalletRecord } from '../../src/wallets/records.js'

/** The wallet and key records of the closed service's database at `path`. */
export async function storedRecords(path: string): Promise<{ wallets: WalletRecord[]; keys: SealedKeyRecord[] }> {
  const storage = createSqliteStorage({ path })
  await storage.init(COLLECTIONS)
  try {
    return {
      wallets: (await storage.collection<WalletRecord>('wallets').find({ and: [] })).items,
      keys: (await storage.collection<SealedKeyRecord>(SEALED_KEYS.name).find({ and: [] })).items,
    }
  } finally {
    await storage.close()
  }
}

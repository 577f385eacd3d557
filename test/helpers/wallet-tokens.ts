/**
 * DID-auth tokens signed by a wallet's own key, as its holder would make them: the wallet's sealed key, read from the
 * service's storage and signed by the sealed key backend over the same storage (tenant `tenant-a`).
 */
import { openKeyring } from '../../src/custody/keyring-store.js'
import { SealedKeyBackend } from '../../src/keys/backends/sealed/index.js'
import { ALGORITHMS_OF } from '../../src/keys/key-types.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import type { WalletRecord } from '../../src/wallets/records.js'

/** Makes a token naming `did`, signed by the sealed key of wallet record `id` (aud `didvault`, ten minutes). */
export type WalletTokenSigner = (id: string, did: string) => Promise<string>

/** The {@link WalletTokenSigner} over `storage`, whose keyring `masterKey` opens. */
export async function ownKeyTokens(storage: StorageAdapter, masterKey: Parameters<typeof openKeyring>[1]): Promise<WalletTokenSigner> {
  const sealed = new SealedKeyBackend(storage, await openKeyring(storage, masterKey))
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
  return async (id, did) => {
    const record = (await storage.collection<WalletRecord>('wallets').get(id))!
    const alg = ALGORITHMS_OF[record.keyType!][0]
    const now = Math.floor(Date.now() / 1000)
    const data = `${b64({ alg, typ: 'JWT' })}.${b64({ iss: did, iat: now, exp: now + 600, aud: 'didvault' })}`
    const keyRef = record.keyRef!
    const key = await sealed.find('tenant-a', keyRef.slice('sealed:'.length))
    if (!key || !('sign' in key)) throw new Error(`no JOSE-signing key ${keyRef}`)
    const signature = await key.sign({ tenantId: 'tenant-a', keyRef, alg, data: new TextEncoder().encode(data) })
    return `${data}.${Buffer.from(signature).toString('base64url')}`
  }
}

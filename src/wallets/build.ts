/** Making wallet records from keys, and the wallet shapes the spec's responses show. */
import { randomUUID } from 'node:crypto'
import { ethereumKeyOf, type EthereumKey, type EthrNetwork } from '../did/methods/ethr/index.js'
import type { CreatedKey } from '../keys/port.js'
import { keyIdOfJwk } from '../keys/key-ids.js'
import { hexToBytes } from '../keys/secp256k1.js'
import { keyTypeOfJwk, type PublicJwk } from '../keys/key-types.js'
import { ecJwk } from '../keys/types/curve.js'
import type { WalletRecord } from './records.js'
import type { WalletConfig } from './config-schemas.js'
import type { RegistryReport } from './did-updates.js'
import type { WalletView } from './schemas.js'
import type { WalletsContext } from './context.js'
import { didMethodOfConfig } from './config.js'
import { walletDid } from './wallet-did.js'

export interface NewWallet {
  tenantId: string
  /** The wallet's key, created through the key port (`ctx.keyManager.createKey`): its reference and public JWK. */
  key: CreatedKey
  vaultId?: string
  index?: number
  /** The BIP44 / SLIP-0010 path the key was derived at (HD vault wallets). */
  path?: string
  alias?: string
  /** The wallet's config: its DID method (`didMethod`, default `ethr`), checked by `checkWalletConfig`. */
  walletConfig?: WalletConfig
  /** The network of a did:ethr DID (default: the service's). */
  network?: EthrNetwork
  /** The wallet backs a role (its DID is the role DID). */
  role?: boolean
  /** `HSM`: the key is the `hsm` backend's (in the PKCS#11 token). */
  keyManagement?: 'HSM'
}

/**
 * A wallet record for a key of the key port: its DID by the config's method, the key's reference, type and public
 * JWK, and for a secp256k1 key its Ethereum address and uncompressed public key (the spec's fields).
 * @throws {IdentityError} 422 for a method that cannot be made (did:web without `publicUrl`)
 * @throws {RangeError} for a key its method cannot take (checked before by `checkWalletConfig`)
 */
export async function buildWallet(ctx: Pick<WalletsContext, 'config' | 'now'>, input: NewWallet): Promise<WalletRecord> {
  const { keyRef, publicJwk } = input.key
  const keyType = keyTypeOfJwk(publicJwk)
  if (keyType === undefined) throw new RangeError(`not a key type of didvault: ${publicJwk.kty} ${publicJwk.crv}`)
  const method = didMethodOfConfig(input.walletConfig)
  if (method === 'ethr' && keyType !== 'secp256k1') throw new RangeError(`a did:ethr wallet needs a secp256k1 key, not ${keyType}`)
  const id = randomUUID()
  // The Ethereum view of a secp256k1 key (one keccak for the address, one for its checksum): the record's and did:ethr's.
  const ethereum = keyType === 'secp256k1' ? ethereumKeyOf(publicJwk) : undefined
  const did = await walletDid(ctx.config, {
    method,
    publicJwk,
    walletId: id,
    network: input.network,
    ethereumAddress: ethereum?.ethereumAddress,
  })
  const record = recordOf(ctx, id, did, method, input, publicJwk, ethereum)
  Object.assign(record, { keyRef, keyType })
  if (input.path !== undefined) record.path = input.path
  return record
}

function recordOf(
  ctx: Pick<WalletsContext, 'now'>,
  id: string,
  did: string,
  didMethod: string,
  input: Omit<NewWallet, 'key'>,
  publicJwk: PublicJwk,
  ethereum: EthereumKey | undefined,
): WalletRecord {
  const now = ctx.now()
  const record: WalletRecord = {
    id,
    tenantId: input.tenantId,
    isHDWallet: input.index !== undefined,
    ...ethereum,
    publicKeyJwk: publicJwk,
    // A secp256k1 key's id is its address (keys/key-ids.ts), computed once above.
    keyId: ethereum?.ethereumAddress ?? keyIdOfJwk(publicJwk),
    did,
    didMethod,
    alias: input.alias ?? did,
    created: new Date(now).toISOString(),
    createdAt: now,
  }
  if (input.vaultId !== undefined) record.vaultId = input.vaultId
  if (input.index !== undefined) record.index = input.index
  if (input.walletConfig !== undefined) record.walletConfig = input.walletConfig
  if (input.role) record.role = true
  if (input.keyManagement === 'HSM') record.keyManagement = 'HSM'
  return record
}

/** A wallet's public JWK: the record's, or for a wallet made before the key port its secp256k1 key's. */
export function publicJwkOfWallet(w: Pick<WalletRecord, 'publicKeyJwk' | 'publicKeyHex'>): PublicJwk {
  if (w.publicKeyJwk !== undefined) return w.publicKeyJwk
  if (w.publicKeyHex === undefined) throw new RangeError('a wallet record without a public key')
  return ecJwk('secp256k1', hexToBytes(w.publicKeyHex))
}

/** The view with the registry's report attached, when there is one. */
export function withReport<V extends Omit<WalletView, 'isHDWallet'>>(view: V, report: RegistryReport | undefined): V {
  return report ? { ...view, registry: report } : view
}

/**
 * The response shape of a wallet. With `keyEnvelope`, `privateKeyHex` carries the sealed
 * envelope of the key (never the plaintext), where the spec shows it: vault create, fetch
 * and delete (`vaults/views.ts` reads it).
 */
export function presentWallet(w: WalletRecord, options: { keyEnvelope?: string } = {}): WalletView {
  const view: WalletView = {
    _id: w.id,
    isHDWallet: w.isHDWallet,
    ...(w.publicKeyHex !== undefined && { publicKeyHex: w.publicKeyHex }),
    ...(w.ethereumAddress !== undefined && { ethereumAddress: w.ethereumAddress }),
    publicKeyJwk: publicJwkOfWallet(w),
    did: w.did,
    didMethod: w.didMethod,
    alias: w.alias,
    created: w.created,
  }
  if (w.vaultId !== undefined) view.vaultId = w.vaultId
  if (w.index !== undefined) view.index = w.index
  if (options.keyEnvelope !== undefined) view.privateKeyHex = options.keyEnvelope
  if (w.publicKeyDER !== undefined) view.publicKeyDER = w.publicKeyDER
  if (w.role) view.role = true
  if (w.keyManagement === 'HSM') view.keyManagement = 'HSM'
  return view
}

/** Making wallet records from keys, and the wallet shapes the spec's responses show. */
import { randomUUID } from 'node:crypto'
import { didOfChecksummed, type EthrNetwork } from '../did/methods/ethr/index.js'
import type { CreatedKey } from '../keys/port.js'
import { addressOf, bytesToHex, uncompressedOf } from '../keys/secp256k1.js'
import { publicKeyDerHex } from '../keys/spki.js'
import { ecPoint } from '../keys/types/curve.js'
import type { WalletRecord } from './records.js'
import type { WalletConfig } from './config-schemas.js'
import type { RegistryReport } from './did-updates.js'
import type { WalletView } from './schemas.js'
import type { WalletsContext } from './context.js'

export interface NewWallet {
  tenantId: string
  /** The wallet's key, created through the key port (`ctx.keyManager.createKey`): its reference and public JWK. */
  key: CreatedKey
  vaultId?: string
  index?: number
  alias?: string
  walletConfig?: WalletConfig
  /** The network of the DID (default: the service's). */
  network?: EthrNetwork
  /** The wallet backs a role (its DID is the role DID). */
  role?: boolean
}

/** A wallet record for a key of the key port: address, DID on its network, the key's reference and public JWK. */
export function buildWallet(ctx: Pick<WalletsContext, 'config' | 'now'>, input: NewWallet): WalletRecord {
  const { keyRef, publicJwk } = input.key
  if (publicJwk.crv !== 'secp256k1') throw new RangeError(`a did:ethr wallet needs a secp256k1 key, not ${publicJwk.crv}`)
  const { key: _key, ...rest } = input
  const record = publicRecord(ctx, rest, ecPoint(publicJwk))
  Object.assign(record, { keyRef, keyType: 'secp256k1', publicKeyJwk: publicJwk })
  return record
}

/** A wallet record for a key an MPC provider holds: address, DID, `publicKeyDER`, and no private key. */
export function buildMpcWallet(
  ctx: Pick<WalletsContext, 'config' | 'now'>,
  input: Omit<NewWallet, 'key'> & { publicKey: Uint8Array },
): WalletRecord {
  const record = publicRecord(ctx, input, input.publicKey)
  record.keyManagement = 'MPC'
  record.publicKeyDER = publicKeyDerHex(input.publicKey)
  return record
}

function publicRecord(ctx: Pick<WalletsContext, 'config' | 'now'>, input: Omit<NewWallet, 'key'>, publicKey: Uint8Array): WalletRecord {
  const uncompressed = publicKey.length === 65 ? publicKey : uncompressedOf(publicKey)
  const address = addressOf(uncompressed)
  const did = didOfChecksummed(input.network ?? ctx.config.network, address)
  const now = ctx.now()
  const record: WalletRecord = {
    id: randomUUID(),
    tenantId: input.tenantId,
    isHDWallet: input.index !== undefined,
    publicKeyHex: bytesToHex(uncompressed),
    ethereumAddress: address,
    did,
    didMethod: 'ethr',
    alias: input.alias ?? did,
    created: new Date(now).toISOString(),
    createdAt: now,
  }
  if (input.vaultId !== undefined) record.vaultId = input.vaultId
  if (input.index !== undefined) record.index = input.index
  if (input.walletConfig !== undefined) record.walletConfig = input.walletConfig
  if (input.role) record.role = true
  return record
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
    publicKeyHex: w.publicKeyHex,
    ethereumAddress: w.ethereumAddress,
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
  return view
}

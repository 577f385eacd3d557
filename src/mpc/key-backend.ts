/**
 * The `mpc` key backend: keys held by an {@link MpcProvider}, reached through the key port. A
 * key's id is `<vaultId>` (a `NONE` vault's key, path `m`), `<vaultId>/<index>` (secp256k1 wallet `index` of a `BIP44`
 * vault, BIP32 `m/44'/60'/0'/0/<index>`) or `<vaultId>/<index>'` (its P-256 or Ed25519 wallet `index`, SLIP-0010
 * `m/44'/60'/0'/0'/<index>'`, whose public key only the quorum derives: the directory keeps it).
 * Keys are made by initializing their vault under its quorum, not by `createKey`; a signature carries the approving
 * members (`SignRequest.approvals`) to the provider, and is checked against the key's public JWK before it is returned.
 *
 * It lives in `mpc/`, not `keys/backends/`, because the layers put the MPC port above `keys/`.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { IdentityError } from '../errors.js'
import { ACCOUNT_PATH, deriveChildPublicKey } from '../keys/hd.js'
import { keyTypeOfJwk, type KeyType, type PublicJwk } from '../keys/key-types.js'
import { slip10WalletPath } from '../keys/slip10.js'
import type { BackendKey, KeyBackend, SignRequest } from '../keys/port.js'
import { CURVES } from '../keys/types/index.js'
import { verifyJose } from '../keys/verify-jose.js'
import { isLowS, recoverPublicKey } from '../keys/secp256k1.js'
import { pendingError } from './pending.js'
import type { MpcProvider, MpcVaultRef } from './port.js'

/** Where the backend finds the vault of a key (the vaults domain implements it over its records). */
export interface MpcVaultDirectory {
  /** The provider's view of the tenant's initialized MPC vault `vaultId`; undefined when the tenant has none. */
  vaultRef(tenantId: string, vaultId: string): Promise<MpcVaultRef | undefined>
  /** The public JWK recorded for the P-256 or Ed25519 wallet `index` of the tenant's `BIP44` vault `vaultId`; undefined when none. */
  hardenedWalletKey?(tenantId: string, vaultId: string, index: number): Promise<PublicJwk | undefined>
}

/** A key of the provider as {@link MpcKeyBackend} found it: its vault, path, public JWK and type. */
interface LocatedKey {
  vault: MpcVaultRef
  path: string
  publicJwk: PublicJwk
  type: KeyType
}

/**
 * The key id of a `NONE` vault's key, of a `BIP44` vault's secp256k1 wallet `index`, or (`hardened`) of its P-256 or
 * Ed25519 wallet `index`.
 */
export const mpcKeyId = (vaultId: string, index?: number, hardened = false): string =>
  index === undefined ? vaultId : `${vaultId}/${index}${hardened ? "'" : ''}`

export class MpcKeyBackend implements KeyBackend {
  constructor(
    private readonly provider: MpcProvider,
    private readonly vaults: MpcVaultDirectory,
  ) {}

  createKey(): Promise<never> {
    return Promise.reject(
      new IdentityError('VALIDATION_ERROR', 'MPC keys are made by initializing an MPC vault under its quorum, not by createKey'),
    )
  }

  /** The tenant's key: its vault and the provider's public key, fetched once, serve the algorithm check and the signature. */
  async find(tenantId: string, id: string): Promise<BackendKey | undefined> {
    const located = await this.#locate(tenantId, id)
    return located && { publicJwk: located.publicJwk, sign: (request) => this.#sign(located, request) }
  }

  async #sign(located: LocatedKey, request: SignRequest): Promise<Uint8Array> {
    const { vault, path, publicJwk, type } = located
    const approvals = request.approvals ?? []
    if (type === 'secp256k1') {
      const digest = request.digest ?? sha256(request.data)
      const outcome = await this.provider.requestSignature({ vault, path, digest, approvals })
      if (outcome.status !== 'signed') throw pendingError(outcome)
      const { r, s, recovery } = outcome.signature
      if (!isLowS(outcome.signature)) throw new Error('the MPC provider returned a high-S signature')
      const recovered = CURVES.secp256k1.publicJwkOfBytes(recoverPublicKey(outcome.signature, digest))
      if (recovered.x !== publicJwk.x || recovered.y !== publicJwk.y) throw new Error('the MPC provider signed with another key')
      return Uint8Array.from(request.alg === 'ES256K-R' ? [...r, ...s, recovery] : [...r, ...s])
    }
    if (!this.provider.requestDataSignature) throw new Error(`the MPC provider cannot sign with ${type} keys (no requestDataSignature)`)
    const alg = request.alg as 'ES256' | 'EdDSA'
    const outcome = await this.provider.requestDataSignature({ vault, path, alg, data: request.data!, approvals })
    if (outcome.status !== 'signed') throw pendingError(outcome)
    if (!verifyJose(publicJwk, alg, request.data!, outcome.joseSignature)) throw new Error('the MPC provider signed with another key')
    return outcome.joseSignature
  }

  async #locate(tenantId: string, id: string): Promise<LocatedKey | undefined> {
    const [vaultId, step, ...rest] = id.split('/')
    const hardened = step?.endsWith("'") ?? false
    const indexText = hardened ? step.slice(0, -1) : step
    const index = indexText === undefined ? undefined : Number(indexText)
    if (rest.length > 0 || (index !== undefined && !(Number.isInteger(index) && String(index) === indexText))) return undefined
    const vault = await this.vaults.vaultRef(tenantId, vaultId)
    if (!vault || (vault.hierarchy === 'BIP44') !== (index !== undefined)) return undefined
    if (hardened) {
      const publicJwk = await this.vaults.hardenedWalletKey?.(tenantId, vaultId, index!)
      const type = publicJwk && keyTypeOfJwk(publicJwk)
      if (!publicJwk || (type !== 'P-256' && type !== 'Ed25519')) return undefined
      return { vault, path: slip10WalletPath(index!), publicJwk, type }
    }
    const type: KeyType = vault.keyType ?? 'secp256k1'
    const node = await this.provider.getPublicKey(vault, vault.hierarchy === 'BIP44' ? ACCOUNT_PATH : 'm')
    const publicKey =
      index === undefined ? node.publicKey : deriveChildPublicKey({ publicKey: node.publicKey, chainCode: node.chainCode! }, index)
    const publicJwk = CURVES[type].publicJwkOfBytes(publicKey)
    if (keyTypeOfJwk(publicJwk) !== type) return undefined
    return { vault, path: index === undefined ? 'm' : `${ACCOUNT_PATH}/${index}`, publicJwk, type }
  }
}

/**
 * MPC vaults (DESIGN §4 *MPC vault lifecycle*, *MPC approvals*, *MPC wallets*): created
 * `NOT_INITIALIZED` with no wallet; initialized by the provider under the vault's quorum
 * policy; their wallets derived from the account public key kept in the vault record, so
 * deriving needs no quorum, but governing the vault (initialize, create wallets, delete) and
 * every signature take the quorum of one of its groups.
 */
import { createPublicKey, randomUUID } from 'node:crypto'
import type { z } from 'zod'
import { conflict, IdentityError, invalid, notFound } from '../errors.js'
import { principalOf } from '../did/methods/ethr/index.js'
import { ACCOUNT_PATH, deriveChildPublicKey, hdWalletPath } from '../keys/hd.js'
import type { KeyType, PublicJwk } from '../keys/key-types.js'
import { bytesToHex, hexToBytes } from '../keys/secp256k1.js'
import { slip10WalletPath, type Slip10KeyType } from '../keys/slip10.js'
import { publicKeyDerHex } from '../keys/spki.js'
import { CURVES } from '../keys/types/index.js'
import { ecPoint } from '../keys/types/curve.js'
import { mpcKeyId } from '../mpc/key-backend.js'
import { mpcKeyTypeOf, pendingError } from './mpc-vaults.js'
import type { MpcPublicKey, QuorumGroup } from '../mpc/port.js'
import { groupsOf, type VaultView } from './schemas.js'
import type * as schemas from './schemas.js'
import type { WalletView } from '../wallets/schemas.js'
import type { VaultRecord } from './records.js'
import type { Caller } from '../auth/context.js'
import { checkWalletConfig, keyTypeOfConfig, mergeWalletConfig, networkForNewWallet, walletConfigApplier } from '../wallets/config.js'
import type { WalletConfig } from '../wallets/config-schemas.js'
import { buildWallet, presentWallet, withReport, type NewWallet } from '../wallets/build.js'
import { aliasConflict, uniqueOr } from '../operations/unique.js'
import { presentVault } from './views.js'
import { WALLETS, type WalletRecord } from '../wallets/records.js'
import { VAULTS } from './records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { VaultsContext } from './context.js'

/**
 * {@link checkWalletConfig} (did:ethr takes secp256k1 only: 422), and what the provider can hold: a P-256 or Ed25519
 * key needs its `requestDataSignature`, in a `BIP44` vault its `derivePublicKey` too (422 without).
 */
function checkMpcWalletConfig(
  config: WalletConfig | undefined,
  ctx: Pick<VaultsContext, 'config' | 'mpc'>,
  hierarchy: VaultRecord['hierarchy'],
): KeyType {
  checkWalletConfig(config, ctx.config)
  const keyType = keyTypeOfConfig(config)
  const { provider } = ctx.mpc
  if (keyType !== 'secp256k1' && (!provider.requestDataSignature || (hierarchy === 'BIP44' && !provider.derivePublicKey)))
    throw invalid(`walletConfig.keyType: this service's MPC provider holds secp256k1 keys only, not ${keyType}`)
  return keyType
}

/** Create Identity Vault for `keyManagement: "MPC"`: registered with the provider, `NOT_INITIALIZED`, no wallet. */
export async function createMpcVault(
  ctx: Pick<VaultsContext, 'audit' | 'config' | 'mpc' | 'now' | 'registries' | 'storage'>,
  caller: Caller,
  input: z.output<typeof schemas.createVault>,
): Promise<{ vault: VaultView }> {
  checkMpcWalletConfig(input.walletConfig, ctx, input.hierarchy)
  networkForNewWallet(ctx, input.walletConfig)
  const { vaults } = tenantCollections(ctx.storage, caller.tenantId, { vaults: VAULTS })
  if (input.parentID !== undefined && !(await vaults.get(input.parentID))) throw notFound('parentID: no such vault')

  const groups = groupsOf(input.mpcGroups)
  // Members are principals: either spelling of a member's key approves for it.
  const members = (g: (typeof groups)[number]) => g.members.map((m) => principalOf(m.id))
  const policy = { groups: groups.map((g): QuorumGroup => ({ name: g.name, requiredApprovals: g.requiredApprovals, members: members(g) })) }
  const id = randomUUID()
  const mpcAccountID = input.mpcAccountID!
  const requested = input.mpcVaultID ?? groups.find((g) => g.mpcVaultID !== undefined)?.mpcVaultID
  const { mpcVaultID } = await ctx.mpc.provider.createVault({
    tenantId: caller.tenantId,
    vaultId: id,
    mpcAccountID,
    mpcVaultID: requested,
    hierarchy: input.hierarchy,
    policy,
    ...mpcKeyTypeOf(input),
  })
  const vault: VaultRecord = {
    id,
    tenantId: caller.tenantId,
    name: input.name,
    description: input.description,
    hierarchy: input.hierarchy,
    keyManagement: 'MPC',
    status: 'NOT_INITIALIZED',
    mpcAccountID,
    mpcVaultID,
    mpcGroups: policy.groups,
    createdAt: ctx.now(),
  }
  if (input.parentID !== undefined) vault.parentID = input.parentID
  if (input.walletConfig !== undefined) vault.walletConfig = input.walletConfig
  await ctx.storage.transaction(async (tx) => {
    await tenantCollections(tx, caller.tenantId, { vaults: VAULTS }).vaults.insert(vault)
    await ctx.audit.append(tx, caller, [{ action: 'vault.create', target: { type: 'vault', id } }])
  })
  return { vault: presentVault(vault, []) }
}

/**
 * Initialize Identity Vault (`POST /vaults/:vaultID/initialize`): with a quorum of member
 * approvals, the provider creates the vault's key and the vault keeps its public part →
 * `INITIALIZED`. Idempotent: initializing an initialized vault (with a quorum) returns it
 * unchanged. ECS vaults are initialized at creation: 422.
 */
export async function initializeVault(
  ctx: Pick<VaultsContext, 'audit' | 'mpc' | 'storage'>,
  caller: Caller,
  input: z.output<typeof schemas.initializeVaultParams>,
): Promise<{ vault: VaultView }> {
  const { vaults, wallets } = tenantCollections(ctx.storage, caller.tenantId, { vaults: VAULTS, wallets: WALLETS })
  const vault = await vaults.get(input.vaultID)
  if (!vault) throw notFound('vaultID: no such vault')
  if (vault.keyManagement !== 'MPC') throw invalid('only MPC vaults are initialized: an ECS vault is INITIALIZED at its creation')
  const approvals = await ctx.mpc.approvalsFor(vault, 'initialize', caller)
  if (vault.status !== 'INITIALIZED') {
    const ref = ctx.mpc.refOf(vault)
    const outcome = await ctx.mpc.provider.initialize(ref, approvals)
    if (outcome.status !== 'initialized') throw pendingError(outcome)
    const key = checkedPublicKey(
      await ctx.mpc.provider.getPublicKey(ref, vault.hierarchy === 'BIP44' ? ACCOUNT_PATH : 'm'),
      vault.hierarchy,
      ref.keyType ?? 'secp256k1',
    )
    // hdIndex is the last index handed out: the first wallet takes 0.
    const patch: Partial<VaultRecord> = { status: 'INITIALIZED', mpcPublicKey: bytesToHex(key.publicKey), hdIndex: -1 }
    if (key.chainCode !== undefined) patch.mpcChainCode = bytesToHex(key.chainCode)
    await ctx.storage.transaction(async (tx) => {
      const c = tenantCollections(tx, caller.tenantId, { vaults: VAULTS, wallets: WALLETS })
      const current = await c.vaults.get(vault.id)
      if (!current) throw notFound('vaultID: no such vault')
      // A concurrent initialize got there first: its record stands (the provider kept one key).
      if (current.status === 'INITIALIZED') return
      await c.vaults.update(vault.id, patch)
      await ctx.audit.append(tx, caller, [{ action: 'mpc.initialize', target: { type: 'vault', id: vault.id }, approvals }])
    })
  }
  const initialized = await vaults.get(vault.id)
  if (!initialized) throw notFound('vaultID: no such vault')
  const members = await wallets.all({ field: 'vaultId', op: 'eq', value: vault.id }, { orderBy: { field: 'createdAt' } })
  return { vault: presentVault(initialized, members) }
}

/**
 * Create Identity Vault's Wallet in an MPC vault: with a quorum of member approvals, the vault's one key (`NONE`,
 * once, of the vault's key type) or the next index's key (`BIP44`): a secp256k1 key's public key derived from the
 * vault's account public key (BIP32, no provider call), a P-256 or Ed25519 key's derived by the provider with the
 * quorum (hardened SLIP-0010 at `m/44'/60'/0'/0'/<index>'`; one index counter for all key types). The record holds
 * the key's `mpc:` reference, type, path and public JWK, never a private key. 409 `VAULT_NOT_INITIALIZED` before
 * initialization; short of a quorum, 403 and nothing written.
 */
export async function createMpcVaultWallet(
  ctx: Pick<
    VaultsContext,
    'audit' | 'config' | 'keyManager' | 'mpc' | 'now' | 'onError' | 'onItemFailure' | 'registries' | 'signers' | 'storage'
  >,
  caller: Caller,
  vault: VaultRecord,
  input: z.output<typeof schemas.createVaultWallet>,
): Promise<{ wallet: WalletView }> {
  const approvals = await ctx.mpc.approvalsFor(vault, 'createWallet', caller)
  if (vault.status !== 'INITIALIZED')
    throw new IdentityError('VAULT_NOT_INITIALIZED', 'this MPC vault is not initialized yet: POST /vaults/:vaultID/initialize first')
  const walletConfig = mergeWalletConfig(vault.walletConfig, input.walletConfig)
  const keyType = checkMpcWalletConfig(walletConfig, ctx, vault.hierarchy)
  const vaultKeyType = ctx.mpc.refOf(vault).keyType ?? 'secp256k1'
  if (vault.hierarchy === 'NONE' && keyType !== vaultKeyType)
    throw invalid(`walletConfig.keyType: this NONE vault's one key is ${vaultKeyType}, not ${keyType}`)
  const network = networkForNewWallet(ctx, walletConfig)
  const newWallet = { tenantId: caller.tenantId, vaultId: vault.id, alias: input.wallet?.alias, walletConfig, network }
  const insert = (index: number, key: MpcWalletKey) =>
    insertMpcWallet(ctx, caller, vault, index, (allocated) => mpcWalletRecord(ctx, { ...newWallet, ...key, index: allocated }))

  let wallet: WalletRecord
  if (vault.hierarchy === 'NONE') {
    const publicJwk = CURVES[keyType].publicJwkOfBytes(hexToBytes(vault.mpcPublicKey!))
    wallet = await uniqueOr(() => insert(0, { keyRef: `mpc:${mpcKeyId(vault.id)}`, publicJwk }), aliasConflict)
  } else if (keyType === 'secp256k1') {
    const account = { publicKey: hexToBytes(vault.mpcPublicKey!), chainCode: hexToBytes(vault.mpcChainCode!) }
    wallet = await uniqueOr(
      () =>
        insert(NEXT_INDEX, {
          keyRef: (index) => `mpc:${mpcKeyId(vault.id, index)}`,
          publicJwk: (index) => CURVES.secp256k1.publicJwkOfBytes(deriveChildPublicKey(account, index)),
          path: (index) => hdWalletPath('secp256k1', index),
        }),
      aliasConflict,
    )
  } else {
    wallet = await uniqueOr(() => createHardenedWallet(ctx, vault, keyType, approvals, insert), aliasConflict)
  }
  const apply = walletConfigApplier(ctx, wallet, walletConfig, caller)
  return { wallet: withReport(presentWallet(wallet), await apply(wallet)) }
}

/** Allocate the next index in the transaction that inserts the wallet. */
const NEXT_INDEX = -1
/** Tries at a P-256 or Ed25519 wallet of a BIP44 vault when concurrent creations keep taking the index derived for. */
const HARDENED_TRIES = 8

/** A wallet's key: fixed, or (`BIP44` secp256k1) a function of the index the transaction allocates. */
interface MpcWalletKey {
  keyRef: string | ((index: number) => string)
  publicJwk: PublicJwk | ((index: number) => PublicJwk)
  path?: string | ((index: number) => string)
}

/** Raised inside the insert transaction when another creation took the index a hardened key was derived for. */
class IndexTaken extends Error {}

/**
 * A P-256 or Ed25519 wallet of a `BIP44` vault: the provider derives the key at the next index with the quorum —
 * outside any transaction, as a provider may take its time — then the insert takes that index only if it is still
 * the next one (else derives again at the new next index: indexes stay unique and gap-free).
 */
async function createHardenedWallet(
  ctx: Pick<VaultsContext, 'mpc' | 'storage'>,
  vault: VaultRecord,
  keyType: Slip10KeyType,
  approvals: readonly string[],
  insert: (index: number, key: MpcWalletKey) => Promise<WalletRecord>,
): Promise<WalletRecord> {
  const { vaults } = tenantCollections(ctx.storage, vault.tenantId, { vaults: VAULTS })
  for (let attempt = 1; ; attempt++) {
    const current = await vaults.get(vault.id)
    if (!current) throw notFound('vaultID: no such vault')
    const index = (current.hdIndex ?? -1) + 1
    const path = slip10WalletPath(index)
    const outcome = await ctx.mpc.provider.derivePublicKey!({ vault: ctx.mpc.refOf(current), path, keyType, approvals })
    if (outcome.status !== 'derived') throw pendingError(outcome)
    const publicJwk = CURVES[keyType].publicJwkOfBytes(checkedKeyBytes(outcome.publicKey, keyType))
    try {
      return await insert(index, { keyRef: `mpc:${mpcKeyId(vault.id, index, true)}`, publicJwk, path })
    } catch (err) {
      if (!(err instanceof IndexTaken)) throw err
      if (attempt === HARDENED_TRIES) throw conflict('concurrent wallet creations in this vault kept taking the next index: try again')
    }
  }
}

/**
 * Inserts the wallet `build` makes at `index` (or the next index, {@link NEXT_INDEX}) with its audit record, in one
 * transaction that allocates the index: indexes stay unique and gap-free, several processes included.
 */
async function insertMpcWallet(
  ctx: Pick<VaultsContext, 'audit' | 'storage'>,
  caller: Caller,
  vault: VaultRecord,
  index: number,
  build: (index: number) => Promise<WalletRecord>,
): Promise<WalletRecord> {
  return ctx.storage.transaction(async (tx) => {
    const c = tenantCollections(tx, caller.tenantId, { vaults: VAULTS, wallets: WALLETS })
    if (!(await c.vaults.get(vault.id))) throw notFound('vaultID: no such vault')
    const allocated = await c.vaults.increment(vault.id, 'hdIndex')
    if (vault.hierarchy === 'NONE' && allocated > 0) throw invalid('this vault has hierarchy NONE: it holds only its one wallet')
    if (index !== NEXT_INDEX && allocated !== index) throw new IndexTaken()
    const record = await build(allocated)
    await c.wallets.insert(record)
    await ctx.audit.append(tx, caller, [{ action: 'wallet.create', target: { type: 'wallet', id: record.did } }])
    return record
  })
}

/** An MPC wallet's record: its DID by the config's method, its key's `mpc:` reference, type, path and public JWK, `publicKeyDER`. */
async function mpcWalletRecord(
  ctx: Pick<VaultsContext, 'config' | 'now'>,
  input: Omit<NewWallet, 'key' | 'index' | 'path'> & MpcWalletKey & { index: number },
): Promise<WalletRecord> {
  const at = <T>(value: T | ((index: number) => T)): T => (typeof value === 'function' ? (value as (i: number) => T)(input.index) : value)
  const { keyRef, publicJwk, path, ...rest } = input
  const hd = input.vaultId !== undefined && path !== undefined
  const record = await buildWallet(ctx, {
    ...rest,
    index: hd ? input.index : undefined,
    path: path === undefined ? undefined : at(path),
    key: { keyRef: at(keyRef), publicJwk: at(publicJwk) },
  })
  record.keyManagement = 'MPC'
  record.publicKeyDER = publicKeyDerOf(record.publicKeyJwk!)
  return record
}

/** Hex of the DER SubjectPublicKeyInfo of a public JWK (the spec's `publicKeyDER` of MPC wallets). */
function publicKeyDerOf(jwk: PublicJwk): string {
  if (jwk.crv === 'secp256k1') return publicKeyDerHex(ecPoint(jwk))
  return createPublicKey({ key: { ...jwk }, format: 'jwk' })
    .export({ type: 'spki', format: 'der' })
    .toString('hex')
}

/** Bytes of a public key of `type` as a provider answers them: 32 for Ed25519, a 33-byte compressed point otherwise. */
function checkedKeyBytes(publicKey: Uint8Array, type: KeyType): Uint8Array {
  const length = type === 'Ed25519' ? 32 : 33
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== length)
    throw new Error(`the MPC provider returned no ${type} public key (${length} bytes)`)
  return publicKey
}

/** A provider's public key of a vault, checked: its key type's bytes, with a 32-byte chain code for a BIP44 vault. */
function checkedPublicKey(key: MpcPublicKey, hierarchy: VaultRecord['hierarchy'], type: KeyType): MpcPublicKey {
  checkedKeyBytes(key.publicKey, hierarchy === 'BIP44' ? 'secp256k1' : type)
  if (hierarchy === 'BIP44' && key.chainCode?.length !== 32) throw new Error('the MPC provider returned no chain code for a BIP44 vault')
  return key
}

/**
 * MPC vaults (DESIGN §4 *MPC vault lifecycle*, *MPC approvals*, *MPC wallets*): created
 * `NOT_INITIALIZED` with no wallet; initialized by the provider under the vault's quorum
 * policy; their wallets derived from the account public key kept in the vault record, so
 * deriving needs no quorum, but governing the vault (initialize, create wallets, delete) and
 * every signature take the quorum of one of its groups.
 */
import { randomUUID } from 'node:crypto'
import type { z } from 'zod'
import { IdentityError, invalid, notFound } from '../errors.js'
import { principalOf } from '../did/methods/ethr/index.js'
import { ACCOUNT_PATH, deriveChildPublicKey } from '../keys/hd.js'
import { bytesToHex, hexToBytes } from '../keys/secp256k1.js'
import { pendingError } from './mpc-vaults.js'
import type { MpcPublicKey, QuorumGroup } from '../mpc/port.js'
import { groupsOf, type VaultView } from './schemas.js'
import type * as schemas from './schemas.js'
import type { WalletView } from '../wallets/schemas.js'
import type { VaultRecord } from './records.js'
import type { Caller } from '../auth/context.js'
import {
  checkWalletConfig,
  didMethodOfConfig,
  keyTypeOfConfig,
  mergeWalletConfig,
  networkForNewWallet,
  walletConfigApplier,
} from '../wallets/config.js'
import type { WalletConfig } from '../wallets/config-schemas.js'
import { buildMpcWallet, presentWallet, withReport } from '../wallets/build.js'
import { aliasConflict, uniqueOr } from '../operations/unique.js'
import { presentVault } from './views.js'
import { WALLETS } from '../wallets/records.js'
import { VAULTS } from './records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { VaultsContext } from './context.js'

/**
 * {@link checkWalletConfig}, and the MPC vaults' limit: their wallets are did:ethr wallets of the vault's secp256k1 key
 * (422 for another method or key type).
 */
function checkMpcWalletConfig(config: WalletConfig | undefined, service: VaultsContext['config']): void {
  checkWalletConfig(config, service)
  const method = didMethodOfConfig(config)
  const keyType = keyTypeOfConfig(config)
  if (method !== 'ethr' || keyType !== 'secp256k1')
    throw invalid(`walletConfig: MPC vaults make did:ethr wallets of secp256k1 keys, not did:${method} with ${keyType}`)
}

/** Create Identity Vault for `keyManagement: "MPC"`: registered with the provider, `NOT_INITIALIZED`, no wallet. */
export async function createMpcVault(
  ctx: Pick<VaultsContext, 'audit' | 'config' | 'mpc' | 'now' | 'registries' | 'storage'>,
  caller: Caller,
  input: z.output<typeof schemas.createVault>,
): Promise<{ vault: VaultView }> {
  checkMpcWalletConfig(input.walletConfig, ctx.config)
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
 * Create Identity Vault's Wallet in an MPC vault: with a quorum of member approvals, the next
 * index's public key derived from the vault's account public key (BIP44), or the vault's one
 * key (NONE, once). 409 `VAULT_NOT_INITIALIZED` before initialization.
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
  await ctx.mpc.approvalsFor(vault, 'createWallet', caller)
  if (vault.status !== 'INITIALIZED')
    throw new IdentityError('VAULT_NOT_INITIALIZED', 'this MPC vault is not initialized yet: POST /vaults/:vaultID/initialize first')
  const walletConfig = mergeWalletConfig(vault.walletConfig, input.walletConfig)
  checkMpcWalletConfig(walletConfig, ctx.config)
  const network = networkForNewWallet(ctx, walletConfig)
  const key = {
    publicKey: hexToBytes(vault.mpcPublicKey!),
    chainCode: vault.mpcChainCode === undefined ? undefined : hexToBytes(vault.mpcChainCode),
  }

  // Index allocation and insert commit together, so indexes stay unique and gap-free.
  const wallet = await uniqueOr(
    () =>
      ctx.storage.transaction(async (tx) => {
        const c = tenantCollections(tx, caller.tenantId, { vaults: VAULTS, wallets: WALLETS })
        if (!(await c.vaults.get(vault.id))) throw notFound('vaultID: no such vault')
        const index = await c.vaults.increment(vault.id, 'hdIndex')
        if (vault.hierarchy === 'NONE' && index > 0) throw invalid('this vault has hierarchy NONE: it holds only its one wallet')
        const hd = vault.hierarchy === 'BIP44'
        const publicKey = hd ? deriveChildPublicKey({ publicKey: key.publicKey, chainCode: key.chainCode! }, index, false) : key.publicKey
        const record = await buildMpcWallet(ctx, {
          tenantId: caller.tenantId,
          publicKey,
          vaultId: vault.id,
          index: hd ? index : undefined,
          alias: input.wallet?.alias,
          walletConfig,
          network,
        })
        await c.wallets.insert(record)
        await ctx.audit.append(tx, caller, [{ action: 'wallet.create', target: { type: 'wallet', id: record.did } }])
        return record
      }),
    aliasConflict,
  )
  const apply = walletConfigApplier(ctx, wallet.did, walletConfig, caller)
  return { wallet: withReport(presentWallet(wallet), await apply(wallet)) }
}

/** A provider's public key, checked: 33 bytes (a point), with a 32-byte chain code for a BIP44 vault. */
function checkedPublicKey(key: MpcPublicKey, hierarchy: VaultRecord['hierarchy']): MpcPublicKey {
  if (!(key.publicKey instanceof Uint8Array) || key.publicKey.length !== 33)
    throw new Error('the MPC provider returned no compressed public key')
  if (hierarchy === 'BIP44' && key.chainCode?.length !== 32) throw new Error('the MPC provider returned no chain code for a BIP44 vault')
  return key
}

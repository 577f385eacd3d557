/**
 * The service's side of MPC vaults: turns vault records into provider calls, gathers the
 * quorum of approvals each call needs, and gives MPC wallets their {@link KeySigner}, which
 * signs through the `mpc` key backend ({@link MpcVaults.keyBackend}, the one the service's key
 * port routes `mpc:` references to).
 */
import { IdentityError, notFound } from '../errors.js'
import { bytesToHex, recoverPublicKey } from '../keys/secp256k1.js'
import { BackendKeyManager, type KeyManager } from '../keys/port.js'
import { MpcKeyBackend, mpcKeyId } from '../mpc/key-backend.js'
import type { DigestSigner, KeySigner, RecoverableSignature } from '../keys/signer.js'
import { digestKeySigner } from '../keys/port-signers.js'
import type { StorageAdapter } from '../storage/port.js'
import type { VaultRecord } from './records.js'
import { WALLETS, type WalletRecord } from '../wallets/records.js'
import { keyTypeOfConfig } from '../wallets/config.js'
import { keyTypeOfJwk, type KeyType, type PublicJwk } from '../keys/key-types.js'
import { slip10WalletPath } from '../keys/slip10.js'
import { type QuorumApprovals, type ApprovalAction, type ApprovalEvidence, type ApprovalRequest } from '../mpc/approvals.js'
import type { MpcProvider, MpcVaultRef } from '../mpc/port.js'

export { pendingError } from '../mpc/pending.js'
import { VAULTS } from './records.js'
import { tenantCollectionOf } from '../storage/declaration.js'
import type { AuditTrail } from '../audit/trail.js'

/** The fields of an MPC wallet record its signer needs. */
export type MpcWallet = Pick<WalletRecord, 'tenantId' | 'vaultId' | 'index' | 'did' | 'publicKeyHex' | 'ethereumAddress'> &
  Partial<Pick<WalletRecord, 'keyRef' | 'publicKeyJwk'>>

export class MpcVaults {
  /** The `mpc` key backend over this service's MPC vaults: the key port's backend for `mpc:` references. */
  readonly keyBackend: MpcKeyBackend
  /** @internal The key port over {@link keyBackend} alone, through which MPC wallets sign. */
  readonly keys: KeyManager

  constructor(
    readonly provider: MpcProvider,
    private readonly approvals: QuorumApprovals,
    private readonly storage: StorageAdapter,
    /** Each quorum-approved signature is recorded there (`mpc.sign`, with the approving members). */
    readonly audit: AuditTrail,
  ) {
    this.keyBackend = new MpcKeyBackend(provider, this)
    this.keys = new BackendKeyManager({ mpc: this.keyBackend }, 'mpc')
  }

  /** What the provider is told about `vault` (an MPC vault record). */
  refOf(vault: VaultRecord): MpcVaultRef {
    return {
      tenantId: vault.tenantId,
      vaultId: vault.id,
      mpcAccountID: vault.mpcAccountID!,
      mpcVaultID: vault.mpcVaultID!,
      hierarchy: vault.hierarchy,
      policy: { groups: vault.mpcGroups! },
      ...mpcKeyTypeOf(vault),
    }
  }

  /** The members approving `action` on `vault`; 403 `FORBIDDEN` naming what is missing when they fall short of a quorum. */
  approvalsFor(
    vault: VaultRecord,
    action: ApprovalAction,
    evidence: ApprovalEvidence | undefined,
    subject?: { wallet: MpcWallet; digest?: Uint8Array; data?: { alg: 'ES256' | 'EdDSA'; data: Uint8Array } },
  ): Promise<string[]> {
    const request: Omit<ApprovalRequest, 'approvedBy'> = {
      action,
      tenantId: vault.tenantId,
      vaultId: vault.id,
      mpcVaultID: vault.mpcVaultID!,
      policy: { groups: vault.mpcGroups! },
    }
    if (subject)
      request.wallet = { did: subject.wallet.did, ...(subject.wallet.ethereumAddress && { address: subject.wallet.ethereumAddress }) }
    if (subject?.digest) request.digestHex = bytesToHex(subject.digest)
    if (subject?.data) request.data = { alg: subject.data.alg, hex: bytesToHex(subject.data.data) }
    return this.approvals.gather(request, evidence)
  }

  /**
   * Checks that `evidence` (with the approval callback) meets the quorum of an MPC wallet's
   * vault for `action` on that wallet, where no signature is made to check it: the embedded DID
   * registry records an owner's changes without one.
   */
  async authorize(wallet: MpcWallet, action: ApprovalAction, evidence: ApprovalEvidence | undefined): Promise<void> {
    await this.approvalsFor(await this.vaultOf(wallet), action, evidence, { wallet })
  }

  /**
   * The signer of an MPC wallet, counting `evidence`'s DIDs as approvals of each signature it makes: a secp256k1 wallet's
   * each approved over the digest it signs (SHA-256 of a JWT's signing input); a P-256 or Ed25519 wallet's over the data
   * it signs under `ES256` / `EdDSA` ({@link MpcVaults.signData}).
   */
  signerFor(wallet: MpcWallet, evidence?: ApprovalEvidence): KeySigner {
    if (wallet.publicKeyHex !== undefined) return digestKeySigner(new MpcWalletSigner(this, wallet, evidence))
    const publicJwk = wallet.publicKeyJwk
    const keyType = publicJwk === undefined ? undefined : keyTypeOfJwk(publicJwk)
    if (publicJwk === undefined || keyType === undefined) throw new RangeError(`${wallet.did} holds no key didvault signs with`)
    return {
      keyType,
      publicJwk,
      sign: async (alg, data) => {
        if (alg !== 'ES256' && alg !== 'EdDSA')
          throw new IdentityError('VALIDATION_ERROR', `a ${keyType} key signs under ES256 or EdDSA, not ${alg}`)
        return this.signData(wallet, evidence, alg, data)
      },
    }
  }

  /** The provider's view of the tenant's initialized MPC vault `vaultId` (the mpc key backend's directory); undefined otherwise. */
  async vaultRef(tenantId: string, vaultId: string): Promise<MpcVaultRef | undefined> {
    const vault = await tenantCollectionOf(this.storage, VAULTS, tenantId).get(vaultId)
    return vault?.keyManagement === 'MPC' && vault.status === 'INITIALIZED' ? this.refOf(vault) : undefined
  }

  /**
   * The JOSE signature (`ES256`, `EdDSA`) of `data` by a P-256 or Ed25519 MPC wallet, with a quorum of approvals
   * gathered from `evidence` (and the approval callback) for this signature: 403 `FORBIDDEN` naming what is missing
   * short of one. Checked by the key backend against the wallet's public JWK; recorded as `mpc.sign`.
   */
  async signData(wallet: MpcWallet, evidence: ApprovalEvidence | undefined, alg: 'ES256' | 'EdDSA', data: Uint8Array): Promise<Uint8Array> {
    if (wallet.keyRef === undefined) throw new RangeError(`${wallet.did} is not a P-256 or Ed25519 MPC wallet`)
    const vault = await this.vaultOf(wallet)
    const approvals = await this.approvalsFor(vault, 'sign', evidence, { wallet, data: { alg, data } })
    const signature = await this.keys.sign({ tenantId: wallet.tenantId, keyRef: wallet.keyRef, alg, data, approvals })
    await this.audit.record(actorOf(wallet, evidence), [{ action: 'mpc.sign', target: { type: 'wallet', id: wallet.did }, approvals }])
    return signature
  }

  /** The public JWK of the P-256 or Ed25519 wallet `index` of the tenant's vault `vaultId` (the mpc key backend's directory). */
  async hardenedWalletKey(tenantId: string, vaultId: string, index: number): Promise<PublicJwk | undefined> {
    const wallet = await tenantCollectionOf(this.storage, WALLETS, tenantId).findOne({
      and: [
        { field: 'vaultId', op: 'eq', value: vaultId },
        { field: 'index', op: 'eq', value: index },
      ],
    })
    return wallet?.keyManagement === 'MPC' && wallet.path === slip10WalletPath(index) ? wallet.publicKeyJwk : undefined
  }

  /** @internal The vault of an MPC wallet. */
  async vaultOf(wallet: MpcWallet): Promise<VaultRecord> {
    const vault =
      wallet.vaultId === undefined ? undefined : await tenantCollectionOf(this.storage, VAULTS, wallet.tenantId).get(wallet.vaultId)
    if (!vault || vault.keyManagement !== 'MPC') throw notFound(`the MPC vault of ${wallet.did} no longer exists`)
    return vault
  }
}

/**
 * Signs through the `mpc` key backend (`ES256K-R` over the digest), with the approvals of the
 * request that signs, gathered here against the vault's quorum. The backend checks the
 * signature is low-S and made by the provider's key; here it is also checked to recover to the
 * wallet's recorded key before it is used: a provider signing with another key fails here, not
 * later at a verifier or on chain.
 */
class MpcWalletSigner implements DigestSigner {
  readonly publicKeyHex: string
  readonly address: string

  constructor(
    private readonly vaults: MpcVaults,
    private readonly wallet: MpcWallet,
    private readonly evidence: ApprovalEvidence | undefined,
  ) {
    // MPC wallets are did:ethr wallets of secp256k1 keys: both fields are always there.
    this.publicKeyHex = wallet.publicKeyHex!
    this.address = wallet.ethereumAddress!
  }

  async sign(digest: Uint8Array): Promise<RecoverableSignature> {
    const vault = await this.vaults.vaultOf(this.wallet)
    const approvals = await this.vaults.approvalsFor(vault, 'sign', this.evidence, { wallet: this.wallet, digest })
    const keyRef = `mpc:${mpcKeyId(vault.id, vault.hierarchy === 'BIP44' ? this.wallet.index : undefined)}`
    const sig = await this.vaults.keys.sign({ tenantId: this.wallet.tenantId, keyRef, alg: 'ES256K-R', digest, approvals })
    const signature: RecoverableSignature = { r: sig.slice(0, 32), s: sig.slice(32, 64), recovery: sig[64] as 0 | 1 }
    if (bytesToHex(recoverPublicKey(signature, digest)) !== this.publicKeyHex)
      throw new Error(`the MPC provider signed with a key other than ${this.address}'s`)
    // A signature writes nothing of the tenant's: its record is a transaction of its own.
    const actor = actorOf(this.wallet, this.evidence)
    await this.vaults.audit.record(actor, [{ action: 'mpc.sign', target: { type: 'wallet', id: this.wallet.did }, approvals }])
    return signature
  }
}

/** Who an `mpc.sign` record names: the request's DIDs, API key and request id. */
const actorOf = (wallet: MpcWallet, e: ApprovalEvidence | undefined) => ({
  tenantId: wallet.tenantId,
  dids: e?.dids ?? [],
  apiKeyId: e?.apiKeyId,
  requestId: e?.requestId,
})

/**
 * The key type a provider is told for a `NONE` vault — its template's (`walletConfig.keyType`), fixed at creation —
 * when it is not secp256k1 (absent means secp256k1, as for a provider written before issue 30). A `BIP44` vault's
 * seed derives every key type: none.
 */
export function mpcKeyTypeOf(vault: Pick<VaultRecord, 'hierarchy' | 'walletConfig'>): { keyType?: KeyType } {
  const keyType = keyTypeOfConfig(vault.walletConfig)
  return vault.hierarchy === 'NONE' && keyType !== 'secp256k1' ? { keyType } : {}
}

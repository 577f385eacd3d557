/**
 * The per-wallet signer seam: {@link WalletSigners.signerFor} gives the {@link KeySigner} of a
 * wallet, whatever holds its key and whatever its key type. Operations sign through it and never
 * see key material; an MPC provider plugs in here.
 */
import { IdentityError } from '../errors.js'
import type { WalletRecord } from './records.js'
import type { ApprovalAction, ApprovalEvidence } from '../mpc/approvals.js'
import type { KeyCustody } from '../custody/key-custody.js'
import type { KeyManager } from '../keys/port.js'
import { hexToBytes, signDigest } from '../keys/secp256k1.js'
import type { DigestSigner, KeySigner, RecoverableSignature } from '../keys/signer.js'
import { digestKeySigner, portKeySigner } from '../keys/port-signers.js'
import { CURVES } from '../keys/types/index.js'

/** The fields of a wallet record a signer needs. */
export type SignableWallet = Pick<
  WalletRecord,
  | 'tenantId'
  | 'id'
  | 'did'
  | 'vaultId'
  | 'index'
  | 'publicKeyHex'
  | 'publicKeyJwk'
  | 'ethereumAddress'
  | 'privateKey'
  | 'keyRef'
  | 'keyManagement'
>

/**
 * The keys of MPC wallets: their vault's quorum signs and approves (implemented by
 * `vaults/mpc-vaults.ts`, which knows the vaults' policies; wallets only ask).
 */
export interface MpcWalletKeys {
  /** The signer of an MPC wallet, counting `approvals` as approvals of each signature it makes. */
  signerFor(wallet: SignableWallet, approvals?: ApprovalEvidence): KeySigner
  /** Resolves when `approvals` (with the approval callback) meet the wallet's vault's quorum for `action`; 403 otherwise. */
  authorize(wallet: SignableWallet, action: ApprovalAction, approvals?: ApprovalEvidence): Promise<void>
}

export class WalletSigners {
  constructor(
    private readonly custody: KeyCustody,
    private readonly keys: KeyManager,
    private readonly mpc: MpcWalletKeys,
  ) {}

  /** Whether the service can sign with this wallet's key: the key port holds it, its record seals it, or its MPC provider holds it. */
  canSign(wallet: SignableWallet): boolean {
    return wallet.keyRef !== undefined || wallet.privateKey !== undefined || wallet.keyManagement === 'MPC'
  }

  /**
   * The signer of `wallet`. Fails (403) for a wallet whose key the service does not hold. An
   * MPC wallet's signer signs only with a quorum of member approvals: the members among
   * `approvals.owners` (DIDs whose owner key signed one of the request's tokens), then those the service's
   * `mpc.approve` callback names; short of a quorum, its `sign` rejects with 403 FORBIDDEN.
   */
  signerFor(wallet: SignableWallet, approvals?: ApprovalEvidence): KeySigner {
    if (wallet.keyManagement === 'MPC') return this.mpc.signerFor(wallet, approvals)
    if (wallet.keyRef !== undefined) {
      // Wallets of 0.2.0 have no publicKeyJwk; their keys are secp256k1.
      const publicJwk = wallet.publicKeyJwk ?? CURVES.secp256k1.publicJwkOfBytes(hexToBytes(wallet.publicKeyHex!))
      return portKeySigner(this.keys, { tenantId: wallet.tenantId, keyRef: wallet.keyRef, publicJwk })
    }
    if (wallet.privateKey === undefined) throw new IdentityError('FORBIDDEN', `the service holds no signing key for ${wallet.did}`)
    return digestKeySigner(new SealedKeySigner(this.custody, wallet as SignableWallet & { privateKey: string }))
  }

  /**
   * Resolves when the wallet's key may be used for `action` by this request: always for a key
   * the service holds sealed (the caller's control was checked); for an MPC wallet, when
   * `approvals` meet its vault's quorum (403 FORBIDDEN naming what is missing otherwise).
   */
  async authorize(wallet: SignableWallet, action: ApprovalAction, approvals?: ApprovalEvidence): Promise<void> {
    if (wallet.keyManagement === 'MPC') await this.mpc.authorize(wallet, action, approvals)
  }
}

/**
 * Signs with a secp256k1 key kept sealed in its wallet record (wallets made by 0.1.0): each signature opens the envelope, signs
 * and wipes the key, so no plaintext key stays in memory between signatures.
 */
class SealedKeySigner implements DigestSigner {
  readonly publicKeyHex: string
  readonly address: string

  constructor(
    private readonly custody: KeyCustody,
    private readonly wallet: SignableWallet & { privateKey: string },
  ) {
    // Keys sealed in their record are from before the key port: secp256k1, with both fields.
    this.publicKeyHex = wallet.publicKeyHex!
    this.address = wallet.ethereumAddress!
  }

  async sign(digest: Uint8Array): Promise<RecoverableSignature> {
    const key = this.custody.open('wallets', this.wallet, 'privateKey', this.wallet.privateKey)
    try {
      return signDigest(key, digest)
    } finally {
      key.fill(0)
    }
  }
}

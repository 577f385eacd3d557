/**
 * `ShamirQuorumCustody`, the shipped {@link MpcProvider}: **quorum custody with Shamir secret
 * sharing — not threshold ECDSA.** The vault's key material (a 32-byte seed for `BIP44` vaults — BIP32 for its
 * secp256k1 wallets, SLIP-0010 for its P-256 and Ed25519 ones — a private key for `NONE` ones) is split with
 * Shamir's scheme (`shamir-secret-sharing`) into one share per member of each quorum group, with threshold `requiredApprovals`; each
 * share is sealed separately by the keyring, bound to its vault and member. A signature opens
 * the shares of approving members only once they meet a group's quorum, reconstructs the key
 * in memory, signs, and wipes every plaintext buffer it made.
 *
 * What this is not: the key does exist, briefly, in this process's memory while it signs, and
 * the master key opens every share. It guarantees that the service signs with an MPC vault's
 * key only with a quorum of member approvals, and that no single record at rest holds the key.
 * For a key that never exists in one place, plug a custodian or a threshold-ECDSA library into
 * the same port (docs/mpc.md).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { HDKey } from '@scure/bip32'
import { split, combine } from 'shamir-secret-sharing'
import type { KeyCustody } from '../custody/key-custody.js'
import { ACCOUNT_PATH, privateKeyAtPath } from '../keys/hd.js'
import type { KeyType } from '../keys/key-types.js'
import { slip10Derive, slip10PublicKey, wipeSlip10Node, type Slip10KeyType } from '../keys/slip10.js'
import { bytesToHex, hexToBytes, signDigest } from '../keys/secp256k1.js'
import { CURVES } from '../keys/types/index.js'
import { UniqueConstraintError, type StorageAdapter } from '../storage/port.js'
import type { MpcKeyRecord, MpcShareRecord } from './records.js'
import type {
  CreateMpcVaultRequest,
  DataSignatureOutcome,
  DataSignatureRequest,
  DerivationOutcome,
  DerivationRequest,
  InitializeOutcome,
  MpcPending,
  MpcProvider,
  MpcPublicKey,
  MpcVaultRef,
  SignatureOutcome,
  SignatureRequest,
} from './port.js'
import { standingOf } from './quorum.js'
import { MPC_KEYS, MPC_SHARES } from './records.js'
import { tenantCollectionOf } from '../storage/declaration.js'

/** Bytes of the secret: a BIP32 seed (`BIP44`) or a private key (`NONE`). */
const SECRET_BYTES = 32

export class ShamirQuorumCustody implements MpcProvider {
  constructor(
    private readonly storage: StorageAdapter,
    private readonly custody: KeyCustody,
    private readonly now: () => number = Date.now,
  ) {}

  /** Nothing is stored until {@link initialize}: the vault id is the one asked for, or a new UUID. */
  async createVault(request: CreateMpcVaultRequest): Promise<{ mpcVaultID: string }> {
    return { mpcVaultID: request.mpcVaultID ?? randomUUID() }
  }

  async initialize(vault: MpcVaultRef, approvals: readonly string[]): Promise<InitializeOutcome> {
    const standing = standingOf(vault.policy, approvals)
    if (!standing.met)
      return { status: 'pending', reason: 'insufficient-approvals', missingApprovals: standing.missing, group: standing.group.name }
    const { keys } = this.#collections(vault.tenantId)
    if (await keys.get(vault.vaultId)) return { status: 'initialized' }

    // A BIP44 vault's seed derives every key type: only a NONE vault's key has one.
    const keyType = vault.hierarchy === 'NONE' ? (vault.keyType ?? 'secp256k1') : 'secp256k1'
    const secret = generateSecret(vault.hierarchy, keyType)
    const shares: MpcShareRecord[] = []
    let key: MpcKeyRecord
    try {
      key = {
        id: vault.vaultId,
        tenantId: vault.tenantId,
        hierarchy: vault.hierarchy,
        ...(keyType !== 'secp256k1' && { keyType }),
        groups: vault.policy.groups,
        ...publicPart(secret, vault.hierarchy, keyType),
        createdAt: this.now(),
      }
      for (const [group, { requiredApprovals, members }] of vault.policy.groups.entries()) {
        const pieces = await splitSecret(secret, members.length, requiredApprovals)
        members.forEach((member, i) => {
          const id = shareId(vault.vaultId, group, member)
          const share = this.custody.seal('mpcShares', { tenantId: vault.tenantId, id }, 'share', pieces[i])
          shares.push({ id, tenantId: vault.tenantId, vaultId: vault.vaultId, group, member, share, createdAt: key.createdAt })
        })
        for (const piece of pieces) piece.fill(0)
      }
    } finally {
      secret.fill(0)
    }
    try {
      await this.storage.transaction(async (tx) => {
        const c = this.#collections(vault.tenantId, tx)
        await c.keys.insert(key)
        await c.shares.insertMany(shares)
      })
    } catch (err) {
      // Another initializer won the race: its key stands, this one is dropped.
      if (!(err instanceof UniqueConstraintError)) throw err
    }
    return { status: 'initialized' }
  }

  async getPublicKey(vault: MpcVaultRef, path: string): Promise<MpcPublicKey> {
    const key = await this.#key(vault)
    const expected = key.hierarchy === 'BIP44' ? ACCOUNT_PATH : 'm'
    if (path !== expected) throw new Error(`ShamirQuorumCustody: the public key of ${path} needs the private key; ask for ${expected}`)
    return key.chainCode === undefined
      ? { publicKey: hexToBytes(key.publicKey) }
      : { publicKey: hexToBytes(key.publicKey), chainCode: hexToBytes(key.chainCode) }
  }

  async requestSignature(request: SignatureRequest): Promise<SignatureOutcome> {
    if (request.digest.length !== 32) throw new RangeError('the digest must be 32 bytes')
    return this.#withSecret(request, 'secp256k1', (secret, key) => ({
      status: 'signed',
      signature: signAt(secret, key.hierarchy, request.path, request.digest),
    }))
  }

  async requestDataSignature(request: DataSignatureRequest): Promise<DataSignatureOutcome> {
    const type: Slip10KeyType = request.alg === 'ES256' ? 'P-256' : 'Ed25519'
    return this.#withSecret(request, type, (secret, key) =>
      withKeyAt(secret, key.hierarchy, type, request.path, (privateKey) => ({
        status: 'signed',
        joseSignature: CURVES[type].sign(privateKey, request.alg, request.data),
      })),
    )
  }

  /** The public key of a `BIP44` vault's P-256 or Ed25519 wallet: derived (hardened SLIP-0010) from the seed the quorum rebuilds. */
  async derivePublicKey(request: DerivationRequest): Promise<DerivationOutcome> {
    const { keyType, path } = request
    if (request.vault.hierarchy !== 'BIP44') throw new Error('ShamirQuorumCustody: only a BIP44 vault derives keys')
    return this.#withSecret(request, keyType, (secret, key) =>
      withKeyAt(secret, key.hierarchy, keyType, path, (privateKey) => ({
        status: 'derived',
        publicKey: slip10PublicKey(keyType, privateKey),
      })),
    )
  }

  /**
   * Runs `sign` with the vault's secret reconstructed from the shares of approving members, once
   * they meet a group's quorum (a pending outcome otherwise), and wipes every plaintext after.
   */
  async #withSecret<R>(
    request: Omit<SignatureRequest, 'digest'>,
    type: KeyType,
    sign: (secret: Uint8Array, key: MpcKeyRecord) => R,
  ): Promise<R | MpcPending> {
    const key = await this.#key(request.vault)
    if (key.hierarchy === 'NONE' && (key.keyType ?? 'secp256k1') !== type)
      throw new Error(`ShamirQuorumCustody: vault ${key.id} holds a ${key.keyType ?? 'secp256k1'} key, not ${type}`)
    if (key.hierarchy === 'NONE' && request.path !== 'm')
      throw new Error(`ShamirQuorumCustody: a NONE vault has only the key m, not ${request.path}`)
    // The policy the shares were split under, not the one the caller passes.
    const standing = standingOf({ groups: key.groups }, request.approvals)
    if (!standing.met)
      return { status: 'pending', reason: 'insufficient-approvals', missingApprovals: standing.missing, group: standing.group.name }

    const group = key.groups.indexOf(standing.group)
    const { shares } = this.#collections(request.vault.tenantId)
    const records = await Promise.all(standing.approvers.map((member) => shares.get(shareId(key.id, group, member))))
    const pieces: Uint8Array[] = []
    try {
      for (const record of records) {
        if (!record) throw new Error('ShamirQuorumCustody: a share of this vault is missing')
        pieces.push(this.custody.open('mpcShares', record, 'share', record.share))
      }
      const secret = pieces.length === 1 ? Uint8Array.from(pieces[0]) : await combine(pieces)
      try {
        return sign(secret, key)
      } finally {
        secret.fill(0)
      }
    } finally {
      for (const piece of pieces) piece.fill(0)
    }
  }

  async deleteVault(vault: MpcVaultRef): Promise<void> {
    await this.storage.transaction(async (tx) => {
      const c = this.#collections(vault.tenantId, tx)
      await c.shares.deleteMany({ field: 'vaultId', op: 'eq', value: vault.vaultId })
      if (await c.keys.get(vault.vaultId)) await c.keys.delete(vault.vaultId)
    })
  }

  async #key(vault: MpcVaultRef): Promise<MpcKeyRecord> {
    const key = await this.#collections(vault.tenantId).keys.get(vault.vaultId)
    if (!key) throw new Error(`ShamirQuorumCustody: vault ${vault.vaultId} is not initialized`)
    return key
  }

  #collections(tenantId: string, storage: StorageAdapter = this.storage) {
    return { keys: tenantCollectionOf(storage, MPC_KEYS, tenantId), shares: tenantCollectionOf(storage, MPC_SHARES, tenantId) }
  }
}

/** A share's record id: its vault, group and member, so its envelope opens for that vault and member only. */
const shareId = (vaultId: string, group: number, member: string) => `${vaultId}/${group}/${member}`

function generateSecret(hierarchy: MpcVaultRef['hierarchy'], keyType: KeyType): Uint8Array {
  if (hierarchy === 'NONE') return CURVES[keyType].generate()
  return new Uint8Array(randomBytes(SECRET_BYTES))
}

/** `n` shares of which `threshold` reconstruct `secret`. A threshold of 1 is a copy per member (Shamir needs 2). */
async function splitSecret(secret: Uint8Array, n: number, threshold: number): Promise<Uint8Array[]> {
  if (threshold === 1) return Array.from({ length: n }, () => Uint8Array.from(secret))
  return split(secret, n, threshold)
}

/** The public key the vault shows: the key of a `NONE` vault, the account node of a `BIP44` one. */
function publicPart(secret: Uint8Array, hierarchy: MpcVaultRef['hierarchy'], keyType: KeyType): { publicKey: string; chainCode?: string } {
  if (hierarchy === 'NONE') return { publicKey: bytesToHex(CURVES[keyType].publicBytes(secret)) }
  const root = HDKey.fromMasterSeed(secret)
  const account = root.derive(ACCOUNT_PATH)
  try {
    return { publicKey: bytesToHex(account.publicKey!), chainCode: bytesToHex(account.chainCode!) }
  } finally {
    root.wipePrivateData()
    account.wipePrivateData()
  }
}

/**
 * Runs `use` with the P-256 or Ed25519 private key at `path` — the vault's key itself (`NONE`, path `m`), or the
 * SLIP-0010 key derived from its seed (`BIP44`, hardened path) — and wipes the derived key after.
 */
function withKeyAt<R>(
  secret: Uint8Array,
  hierarchy: MpcVaultRef['hierarchy'],
  type: Slip10KeyType,
  path: string,
  use: (key: Uint8Array) => R,
): R {
  if (hierarchy === 'NONE') return use(secret)
  const node = slip10Derive(type, secret, path)
  try {
    return use(node.privateKey)
  } finally {
    wipeSlip10Node(node)
  }
}

function signAt(secret: Uint8Array, hierarchy: MpcVaultRef['hierarchy'], path: string, digest: Uint8Array) {
  if (hierarchy === 'NONE') return signDigest(secret, digest)
  const key = privateKeyAtPath(secret, path)
  try {
    return signDigest(key, digest)
  } finally {
    key.fill(0)
  }
}

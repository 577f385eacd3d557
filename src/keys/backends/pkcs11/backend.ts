/**
 * The `hsm` key backend: keys generated in a PKCS#11 token (C_GenerateKeyPair: CKA_TOKEN, CKA_PRIVATE, CKA_SENSITIVE,
 * CKA_EXTRACTABLE=false, CKA_SIGN; a random 16-byte CKA_ID and the label `didvault:<tenant hash>:<id>`), the public
 * key read from the token (CKA_EC_POINT), signatures made by the token (CKM_ECDSA over the SHA-256 digest for
 * ES256K/ES256/ES256K-R — the token's r‖s made low-S for secp256k1, the recovery id found by recovering; CKM_EDDSA
 * over the data for EdDSA) through C_SignAsync on the token's session pool. The service's storage keeps one
 * `hsm_keys` record per key: its CKA_ID, label, type and public JWK, and the tenant holding it — nothing secret.
 *
 * Destroying keys: {@link Pkcs11KeyBackend.destroyKeys} deletes the records in the caller's transaction and queues the
 * token objects; {@link Pkcs11KeyBackend.afterCommit} (call it after each committed transaction of the service's
 * storage — the service does, through `afterCommits`) destroys (C_DestroyObject) each queued key whose record is no
 * longer in the committed storage. A key whose record is still there (its transaction not committed yet, or rolled
 * back) stays queued, and is dropped from the queue — kept in the token — after `pendingMs` (a rolled-back delete).
 */
import { createHash, randomBytes } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { IdentityError } from '../../../errors.js'
import { tenantCollectionOf } from '../../../storage/declaration.js'
import type { StorageAdapter } from '../../../storage/port.js'
import { lowS } from '../../secp256k1.js'
import { ALGORITHMS_OF, type KeyType, type PublicJwk } from '../../key-types.js'
import type { BackendKey, HdDerivation, KeyBackend, SignRequest } from '../../port.js'
import { HSM_KEY_ID, HSM_KEYS, hsmKeyLabel, hsmKeyRecordId, type HsmKeyRecord } from './records.js'
import pkcs11 from 'pkcs11js'
import { pkcs11Code, pkcs11ErrorName, type Pkcs11Token } from './token.js'

/** PKCS#11 3.0 values pkcs11js 2 does not name. */
const CKK_EC_EDWARDS = 0x40
const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055
const CKM_EDDSA = 0x1057

/** CKA_EC_PARAMS: the DER OID of each curve (secp256k1 1.3.132.0.10, prime256v1 1.2.840.10045.3.1.7, Ed25519 1.3.101.112). */
const EC_PARAMS: Readonly<Record<KeyType, Buffer>> = {
  secp256k1: Buffer.from('06052b8104000a', 'hex'),
  'P-256': Buffer.from('06082a8648ce3d030107', 'hex'),
  Ed25519: Buffer.from('06032b6570', 'hex'),
}

/** What a destroyed (or not destroyed) token key is told as. */
export interface HsmKeyDestruction {
  tenantId: string
  keyRef: string
  /** `destroyed`: C_DestroyObject removed the private and public objects; `failed`: the token refused or was away (`error` says why). */
  outcome: 'destroyed' | 'failed'
  error?: string
}

export interface Pkcs11KeyBackendOptions {
  now?: () => number
  /** Told of each token key destroyed after its records' deletion committed (the service audits it). */
  onDestroyed?: (destruction: HsmKeyDestruction) => void
  /** How long a queued destruction waits for its transaction to commit (default 60 s): then the key is kept. */
  pendingMs?: number
}

interface PendingDestruction {
  tenantId: string
  keyId: string
  queuedAt: number
}

const sha256 = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest())

/** The point inside a CKA_EC_POINT: a DER OCTET STRING (what PKCS#11 says), or the bare point (what some tokens give). */
function ecPoint(value: Buffer, type: KeyType): Buffer {
  const size = type === 'Ed25519' ? 32 : 65
  if (value.length === size) return value
  if (value[0] === 0x04) {
    const long = value[1] === 0x81
    const length = long ? value[2] : value[1]
    const start = long ? 3 : 2
    if (length === size && value.length === start + size) return value.subarray(start)
  }
  throw new IdentityError('INTERNAL_ERROR', `the HSM returned a ${type} public key of an unexpected form`)
}

function publicJwkOf(point: Buffer, type: KeyType): PublicJwk {
  if (type === 'Ed25519') return { kty: 'OKP', crv: 'Ed25519', x: point.toString('base64url') }
  if (point[0] !== 0x04) throw new IdentityError('INTERNAL_ERROR', `the HSM returned a compressed ${type} point`)
  return { kty: 'EC', crv: type, x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') }
}

export class Pkcs11KeyBackend implements KeyBackend {
  readonly #now: () => number
  readonly #onDestroyed: (destruction: HsmKeyDestruction) => void
  readonly #pendingMs: number
  /** Private-key handles by CKA_ID hex, found under the token's epoch `epoch`. */
  readonly #handles = new Map<string, { handle: Buffer; epoch: number }>()
  #pending: PendingDestruction[] = []
  #sweeping: Promise<void> | undefined

  constructor(
    private readonly token: Pkcs11Token,
    private readonly storage: StorageAdapter,
    options: Pkcs11KeyBackendOptions = {},
  ) {
    this.#now = options.now ?? Date.now
    this.#onDestroyed = options.onDestroyed ?? (() => undefined)
    this.#pendingMs = options.pendingMs ?? 60_000
  }

  async createKey(tenantId: string, type: KeyType, derive?: HdDerivation): Promise<{ id: string; publicJwk: PublicJwk }> {
    const { store, ...key } = await this.stageKey(tenantId, type, derive)
    await store(this.storage)
    return key
  }

  /**
   * A key pair generated in the token at once (the private key never leaves it); its record is written by `store`
   * through the caller's transaction. A key whose record never commits stays in the token, unreachable: its label
   * names it (`didvault:<tenant hash>:<id>`) for an operator's clean-up.
   */
  async stageKey(
    tenantId: string,
    type: KeyType,
    derive?: HdDerivation,
  ): Promise<{ id: string; publicJwk: PublicJwk; store: (tx: StorageAdapter) => Promise<void> }> {
    if (derive) throw new IdentityError('VALIDATION_ERROR', 'HSM keys are generated in the token, not derived from an HD seed')
    if (!Object.hasOwn(EC_PARAMS, type)) throw new IdentityError('VALIDATION_ERROR', `unknown key type ${String(type)}`)
    const keyId = randomBytes(16).toString('hex')
    const label = hsmKeyLabel(tenantId, keyId)
    const point = await this.token.withSession('generate key', async (p, session) => {
      const id = Buffer.from(keyId, 'hex')
      const common = [
        { type: pkcs11.CKA_TOKEN, value: true },
        { type: pkcs11.CKA_ID, value: id },
        { type: pkcs11.CKA_LABEL, value: label },
        { type: pkcs11.CKA_EC_PARAMS, value: EC_PARAMS[type] },
      ]
      const { publicKey } = await p.C_GenerateKeyPairAsync(
        session,
        { mechanism: type === 'Ed25519' ? CKM_EC_EDWARDS_KEY_PAIR_GEN : pkcs11.CKM_EC_KEY_PAIR_GEN },
        [
          ...common,
          { type: pkcs11.CKA_PRIVATE, value: false },
          { type: pkcs11.CKA_VERIFY, value: true },
          { type: pkcs11.CKA_ENCRYPT, value: false },
          { type: pkcs11.CKA_WRAP, value: false },
        ],
        [
          { type: pkcs11.CKA_TOKEN, value: true },
          { type: pkcs11.CKA_ID, value: id },
          { type: pkcs11.CKA_LABEL, value: label },
          { type: pkcs11.CKA_PRIVATE, value: true },
          { type: pkcs11.CKA_SENSITIVE, value: true },
          { type: pkcs11.CKA_EXTRACTABLE, value: false },
          { type: pkcs11.CKA_SIGN, value: true },
          // Signing only: no other use the token would grant by default (SoftHSM2 allows decrypt and unwrap).
          { type: pkcs11.CKA_DECRYPT, value: false },
          { type: pkcs11.CKA_UNWRAP, value: false },
          { type: pkcs11.CKA_DERIVE, value: false },
        ],
      )
      const [attribute] = p.C_GetAttributeValue(session, publicKey, [{ type: pkcs11.CKA_EC_POINT }])
      return attribute.value
    })
    const publicJwk = publicJwkOf(ecPoint(point, type), type)
    const record: HsmKeyRecord = { id: hsmKeyRecordId(tenantId, keyId), tenantId, keyId, type, publicJwk, label, createdAt: this.#now() }
    return { id: keyId, publicJwk, store: async (tx) => tenantCollectionOf(tx, HSM_KEYS, tenantId).insert(record) }
  }

  /**
   * Records for `tenantId` a key pair already in the token under CKA_ID `keyId` (hex) — made by the HSM's own tools
   * (`pkcs11-tool --keypairgen`, a key ceremony): its private key must be sensitive, not extractable, and sign. The
   * objects keep their label. Resolves to the key's id and public JWK, as {@link createKey}.
   */
  async adoptKey(tenantId: string, keyId: string): Promise<{ id: string; publicJwk: PublicJwk }> {
    if (!HSM_KEY_ID.test(keyId)) throw new IdentityError('VALIDATION_ERROR', 'an HSM key id is 16 bytes in lowercase hex')
    const { type, point, label } = await this.token.withSession('adopt key', (p, session) => {
      const id = Buffer.from(keyId, 'hex')
      const privateKey = findObject(p, session, pkcs11.CKO_PRIVATE_KEY, id)
      const publicKey = findObject(p, session, pkcs11.CKO_PUBLIC_KEY, id)
      if (!privateKey || !publicKey) throw new IdentityError('NOT_FOUND', `no key pair with CKA_ID ${keyId} in the HSM token`)
      const [sensitive, extractable, sign, keyType, params, labelValue] = p.C_GetAttributeValue(session, privateKey, [
        { type: pkcs11.CKA_SENSITIVE },
        { type: pkcs11.CKA_EXTRACTABLE },
        { type: pkcs11.CKA_SIGN },
        { type: pkcs11.CKA_KEY_TYPE },
        { type: pkcs11.CKA_EC_PARAMS },
        { type: pkcs11.CKA_LABEL },
      ])
      if (!isTrue(sensitive.value) || isTrue(extractable.value) || !isTrue(sign.value))
        throw new IdentityError('VALIDATION_ERROR', `the private key ${keyId} must be CKA_SENSITIVE, not CKA_EXTRACTABLE, and CKA_SIGN`)
      const kind = ulong(keyType.value)
      const type = (Object.keys(EC_PARAMS) as KeyType[]).find((t) => EC_PARAMS[t].equals(params.value))
      if (!type || (kind === CKK_EC_EDWARDS) !== (type === 'Ed25519'))
        throw new IdentityError('VALIDATION_ERROR', `the key ${keyId} is of no type didvault signs with (secp256k1, P-256, Ed25519)`)
      const [point] = p.C_GetAttributeValue(session, publicKey, [{ type: pkcs11.CKA_EC_POINT }])
      return { type, point: point.value, label: labelValue.value.toString('utf8') }
    })
    const publicJwk = publicJwkOf(ecPoint(point, type), type)
    const record: HsmKeyRecord = { id: hsmKeyRecordId(tenantId, keyId), tenantId, keyId, type, publicJwk, label, createdAt: this.#now() }
    await tenantCollectionOf(this.storage, HSM_KEYS, tenantId).insert(record)
    return { id: keyId, publicJwk }
  }

  async find(tenantId: string, keyId: string): Promise<BackendKey | undefined> {
    if (!HSM_KEY_ID.test(keyId)) return undefined
    const record = await tenantCollectionOf(this.storage, HSM_KEYS, tenantId).get(hsmKeyRecordId(tenantId, keyId))
    if (!record) return undefined
    return { publicJwk: record.publicJwk, sign: (request) => this.#sign(record, request) }
  }

  async #sign(record: HsmKeyRecord, request: SignRequest): Promise<Uint8Array> {
    if (!ALGORITHMS_OF[record.type].includes(request.alg))
      throw new IdentityError(
        'VALIDATION_ERROR',
        `a ${record.type} key signs under ${ALGORITHMS_OF[record.type].join(' or ')}, not ${request.alg}`,
      )
    if (record.type === 'Ed25519') return this.signRaw(record.keyId, CKM_EDDSA, request.data!)
    const digest = request.digest ?? sha256(request.data)
    const raw = await this.signRaw(record.keyId, pkcs11.CKM_ECDSA, digest)
    if (raw.length !== 64) throw new IdentityError('INTERNAL_ERROR', `the HSM returned an ECDSA signature of ${raw.length} bytes`)
    if (record.type !== 'secp256k1') return raw
    const compact = Uint8Array.from([...raw.subarray(0, 32), ...lowS(raw.subarray(32)).s])
    const signature = secp256k1.Signature.fromBytes(compact, 'compact')
    if (request.alg !== 'ES256K-R') return compact
    const point = Buffer.concat([
      Buffer.from([4]),
      Buffer.from(record.publicJwk.x, 'base64url'),
      Buffer.from(record.publicJwk.y ?? '', 'base64url'),
    ])
    for (const recovery of [0, 1]) {
      const recovered = signature.addRecoveryBit(recovery).recoverPublicKey(digest).toBytes(false)
      if (point.equals(recovered)) return Uint8Array.from([...compact, recovery])
    }
    throw new IdentityError('INTERNAL_ERROR', 'the HSM signature recovers no key of the wallet')
  }

  /**
   * The token's signature of `input` by the private key `keyId` under `mechanism` (CKM_ECDSA: `input` is the digest;
   * CKM_EDDSA: the message), as the token returns it (r‖s for ECDSA). C_SignAsync on a pooled session: what the
   * backend's signatures are made of, and what a bench compares them with.
   */
  async signRaw(keyId: string, mechanism: number, input: Uint8Array): Promise<Uint8Array> {
    return this.token.withSession('sign', async (p, session) => {
      const sign = async (handle: Buffer) => {
        p.C_SignInit(session, { mechanism }, handle)
        return new Uint8Array(await p.C_SignAsync(session, Buffer.from(input), Buffer.alloc(132)))
      }
      try {
        return await sign(this.#privateKey(p, session, keyId, false))
      } catch (err) {
        const code = pkcs11Code(err)
        // A handle of before a re-initialization, or of an object the token re-created: find it again, once.
        if ((code !== pkcs11.CKR_OBJECT_HANDLE_INVALID && code !== pkcs11.CKR_KEY_HANDLE_INVALID) || !this.token.answers()) throw err
        return sign(this.#privateKey(p, session, keyId, true))
      }
    })
  }

  /** The private key's handle (cached for the token's epoch). */
  #privateKey(p: pkcs11.PKCS11, session: Buffer, keyId: string, fresh: boolean): Buffer {
    const cached = this.#handles.get(keyId)
    if (!fresh && cached?.epoch === this.token.epoch) return cached.handle
    const handle = findObject(p, session, pkcs11.CKO_PRIVATE_KEY, Buffer.from(keyId, 'hex'))
    if (!handle) {
      this.#handles.delete(keyId)
      throw new IdentityError('SERVICE_UNAVAILABLE', `the key hsm:${keyId} is not in the HSM token`)
    }
    this.#handles.set(keyId, { handle, epoch: this.token.epoch })
    return handle
  }

  /** Deletes the tenant's records of `keyIds` in `tx`, and queues their token objects for {@link afterCommit}. */
  async destroyKeys(tx: StorageAdapter, tenantId: string, keyIds: readonly string[]): Promise<void> {
    const keys = tenantCollectionOf(tx, HSM_KEYS, tenantId)
    for (const keyId of keyIds) {
      if (!HSM_KEY_ID.test(keyId)) continue
      if (!(await keys.delete(hsmKeyRecordId(tenantId, keyId)))) continue
      const queued = this.#pending.find((p) => p.tenantId === tenantId && p.keyId === keyId)
      if (queued) queued.queuedAt = this.#now()
      else this.#pending.push({ tenantId, keyId, queuedAt: this.#now() })
    }
  }

  /** Keys queued for destruction whose records are not yet gone from the committed storage. */
  get pendingDestructions(): number {
    return this.#pending.length
  }

  /**
   * Call after each committed transaction of the service's storage: destroys the queued token keys whose records are
   * gone (committed). Resolves when this round is done; failures are told to `onDestroyed` (`failed`), not thrown.
   */
  afterCommit(): Promise<void> {
    if (this.#pending.length === 0) return this.#sweeping ?? Promise.resolve()
    const previous = this.#sweeping ?? Promise.resolve()
    const round = previous.then(() => this.#destroyCommitted())
    this.#sweeping = round.finally(() => {
      if (this.#sweeping === round) this.#sweeping = undefined
    })
    return round
  }

  async #destroyCommitted(): Promise<void> {
    const queued = this.#pending.splice(0)
    const keep: PendingDestruction[] = []
    for (const entry of queued) {
      const { tenantId, keyId } = entry
      const keyRef = `hsm:${keyId}`
      try {
        const record = await tenantCollectionOf(this.storage, HSM_KEYS, tenantId).get(hsmKeyRecordId(tenantId, keyId))
        if (record) {
          // Not committed yet, or rolled back: wait, within bounds.
          if (this.#now() - entry.queuedAt < this.#pendingMs) keep.push(entry)
          continue
        }
        await this.token.withSession('destroy key', (p, session) => {
          const id = Buffer.from(keyId, 'hex')
          for (const kind of [pkcs11.CKO_PRIVATE_KEY, pkcs11.CKO_PUBLIC_KEY]) {
            const handle = findObject(p, session, kind, id)
            if (handle) p.C_DestroyObject(session, handle)
          }
        })
        this.#handles.delete(keyId)
        this.#onDestroyed({ tenantId, keyRef, outcome: 'destroyed' })
      } catch (err) {
        // The token is away: tried again after a later commit.
        if (err instanceof IdentityError && err.errorType === 'SERVICE_UNAVAILABLE') {
          keep.push(entry)
          continue
        }
        this.#onDestroyed({ tenantId, keyRef, outcome: 'failed', error: err instanceof IdentityError ? err.message : pkcs11ErrorName(err) })
      }
    }
    this.#pending.push(...keep)
  }
}

/** A CK_ULONG attribute (4 or 8 bytes, the platform's order: little-endian here). */
const ulong = (value: Buffer) => (value.length === 8 ? Number(value.readBigUInt64LE()) : value.readUInt32LE())

const isTrue = (value: unknown) => (Buffer.isBuffer(value) ? value.some((b) => b !== 0) : value === true)

/** The one object of class `kind` with CKA_ID `id`; undefined when there is none. */
function findObject(p: pkcs11.PKCS11, session: Buffer, kind: number, id: Buffer): Buffer | undefined {
  p.C_FindObjectsInit(session, [
    { type: pkcs11.CKA_CLASS, value: kind },
    { type: pkcs11.CKA_ID, value: id },
  ])
  try {
    return p.C_FindObjects(session, 1)[0]
  } finally {
    p.C_FindObjectsFinal(session)
  }
}

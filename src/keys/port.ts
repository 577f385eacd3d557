/**
 * The key port: every key didvault creates and every signature it makes goes through a
 * {@link KeyManager}. A key is named by its JWK thumbprint (RFC 7638) and reached by a
 * {@link KeyRef} `<backend>:<id>`; callers hold the reference and the public JWK, never private
 * key bytes. Backends (`keys/backends/<name>/`) implement {@link KeyBackend}; the
 * {@link BackendKeyManager} routes each call to the backend the reference names.
 */
import { IdentityError } from '../errors.js'
import type { StorageAdapter } from '../storage/port.js'
import { ALGORITHMS_OF, keyTypeOfJwk, type BbsPublicJwk, type KeyType, type PublicJwk, type SignatureAlgorithm } from './key-types.js'

/** A key's reference: `<backend>:<id within the backend>` (for the sealed backend, the id is the thumbprint). */
export type KeyRef = string

/** A key the port created: its reference and public JWK. */
export interface CreatedKey {
  keyRef: KeyRef
  publicJwk: PublicJwk
}

/**
 * A key made but not yet stored: {@link StagedKey.store} writes it through the caller's
 * transaction, so the key exists only if the caller's other writes commit (a wallet that fails to
 * insert leaves no key behind). The private key is already sealed; nothing plaintext is kept.
 */
export interface StagedKey extends CreatedKey {
  store(tx: StorageAdapter): Promise<void>
}

/** A secret sealed by the service's keyring, and the context it is bound to (`keys/secret-context.ts`). */
export interface SealedSecret {
  envelope: string
  context: string
}

/**
 * A key derived from a BIP44 vault's sealed secrets rather than generated: wallet `index` of the
 * vault, secp256k1 by BIP32 at `m/44'/60'/0'/0/<index>` from the packed account node, Ed25519 and
 * P-256 by SLIP-0010 at `m/44'/60'/0'/0'/<index>'` from the key type's packed SLIP-0010 account node
 * (or, for vaults made before it was kept, from the mnemonic's seed). The backend opens the
 * secret, derives, seals the key and wipes the rest: the caller never holds the private key.
 */
export interface HdDerivation {
  /** The vault's packed BIP32 account node `m/44'/60'/0'/0` (`keys/hd.ts`), sealed: what secp256k1 keys derive from. */
  accountNode?: SealedSecret
  /**
   * The vault's packed SLIP-0010 account node `m/44'/60'/0'/0'` of the requested key type (`keys/slip10.ts`), sealed:
   * what Ed25519 and P-256 keys derive from in one step.
   */
  slip10AccountNode?: SealedSecret
  /** The vault's BIP39 mnemonic, sealed: what Ed25519 and P-256 keys derive from when the vault has no SLIP-0010 node. */
  mnemonic?: SealedSecret
  index: number
}

/** A request for a new key of one tenant. */
export interface CreateKeyRequest {
  tenantId: string
  type: KeyType
  /** The backend to hold it (default: the manager's default backend). */
  backend?: string
  /** Derive the key from a BIP44 vault's secrets instead of generating it (backends that can: `sealed`); 422 elsewhere. */
  derive?: HdDerivation
}

/** What every signature request names: the tenant, the key and the algorithm. */
interface SignRequestBase {
  /** The tenant signing: a key of another tenant signs nothing (404). */
  tenantId: string
  keyRef: KeyRef
  /** Member DIDs (canonical) that approved this signature, for backends that sign only with a quorum (`mpc`). */
  approvals?: readonly string[]
}

/**
 * A signature request: `data` is signed under `alg` (hashed as the algorithm says), or — for
 * `ES256K-R` only, what the did:ethr registries need — a 32-byte `digest` the caller computed
 * is signed as it is.
 */
export type SignRequest =
  | (SignRequestBase & { alg: SignatureAlgorithm; data: Uint8Array; digest?: undefined })
  | (SignRequestBase & { alg: 'ES256K-R'; digest: Uint8Array; data?: undefined })

/**
 * A BBS signature request (`BBS-BLS12-381-SHA-256`, what bbs-2023 signs): the `messages` under the `header`, by a
 * Bls12381G2 key.
 */
export interface BbsSignRequest extends SignRequestBase {
  header: Uint8Array
  messages: readonly Uint8Array[]
}

/** Most messages one BBS signature covers (a bbs-2023 base proof signs one per non-mandatory N-Quad). */
export const MAX_BBS_MESSAGES = 100_000
/** Most bytes of a BBS header (bbs-2023's is 64: the proof and mandatory hashes). */
export const MAX_BBS_HEADER_BYTES = 1024

/** A Bls12381G2 key the port created: its reference and public JWK. */
export interface CreatedBbsKey {
  keyRef: KeyRef
  publicJwk: BbsPublicJwk
}

/**
 * Creates keys and signs with them. Signatures are in JOSE form: r‖s (64 bytes) for ES256K and
 * ES256, r‖s‖v (65 bytes, v ∈ {0, 1}, low-S) for ES256K-R, 64 bytes for EdDSA.
 */
export interface KeyManager {
  /** Creates a key; resolves to its reference and public JWK. */
  createKey(request: CreateKeyRequest): Promise<CreatedKey>
  /**
   * Makes a key to be stored in the caller's transaction ({@link StagedKey}); a backend that
   * stores nothing in the service's storage creates it at once.
   */
  stageKey(request: CreateKeyRequest): Promise<StagedKey>
  /** The signature of a request; 404 for a reference the tenant does not hold, 422 for an algorithm the key cannot sign under. */
  sign(request: SignRequest): Promise<Uint8Array>
  /** The public JWK of a key of the tenant; 404 when it holds none under `keyRef`, 422 for a Bls12381G2 key. */
  publicKey(tenantId: string, keyRef: KeyRef): Promise<PublicJwk>
  /** Creates a Bls12381G2 key (BBS signatures); 422 in a backend that holds none (`mpc`). */
  createBbsKey(request: { tenantId: string; backend?: string }): Promise<CreatedBbsKey>
  /**
   * The BBS signature (80 bytes) of a request; `NOT_FOUND` as {@link KeyManager.sign}, 422 for a key that is not
   * Bls12381G2 or inputs over the bounds.
   */
  signBbs(request: BbsSignRequest): Promise<Uint8Array>
  /**
   * Destroys keys of the tenant inside the caller's transaction `tx`, with the records that own them (a deleted
   * wallet's key, its delegates' keys). References of backends whose keys belong to something else (`mpc`: the vault,
   * destroyed with it by its provider) and references the tenant does not hold are passed over.
   */
  destroyKeys(tx: StorageAdapter, tenantId: string, keyRefs: readonly KeyRef[]): Promise<void>
  /**
   * Once the transaction that destroyed `keyRefs` ({@link KeyManager.destroyKeys}) committed: destroys what those keys
   * had outside the storage (`hsm`: the token objects, C_DestroyObject), one outcome per reference of a backend that
   * keeps such material (others are passed over). Never rejects: a failure is that reference's outcome.
   */
  destroyMaterial(tenantId: string, keyRefs: readonly KeyRef[]): Promise<MaterialDestruction[]>
}

/** What {@link KeyManager.destroyMaterial} did for one key: destroyed, or the error (no secret in it) that stopped it. */
export interface MaterialDestruction {
  keyRef: KeyRef
  error?: IdentityError
}

/**
 * A key a backend found for a tenant: its public JWK, and its signer, which signs with what finding the key read (one
 * read of the key per signature: the manager's algorithm check and the signature share it).
 */
export type BackendKey = JoseBackendKey | BbsBackendKey

/** A key signing JOSE algorithms (secp256k1, P-256, Ed25519). */
export interface JoseBackendKey {
  readonly publicJwk: PublicJwk
  /** Signs a request whose algorithm and input {@link BackendKeyManager} has checked against {@link JoseBackendKey.publicJwk}. */
  sign(request: SignRequest): Promise<Uint8Array>
}

/** A Bls12381G2 key: BBS signatures only. */
export interface BbsBackendKey {
  readonly bbsPublicJwk: BbsPublicJwk
  /** The BBS signature of `messages` under `header` ({@link BackendKeyManager} has bounded both). */
  signBbs(header: Uint8Array, messages: readonly Uint8Array[]): Promise<Uint8Array>
}

/** A backend behind the port: the same calls, with the reference's id part (after `<backend>:`). */
export interface KeyBackend {
  /** Creates a key; resolves to its id within the backend and its public JWK. */
  createKey(tenantId: string, type: KeyType, derive?: HdDerivation): Promise<{ id: string; publicJwk: PublicJwk }>
  /** Optional: a key whose record `store` writes through the caller's transaction (backends keeping keys in the service's storage). */
  stageKey?(
    tenantId: string,
    type: KeyType,
    derive?: HdDerivation,
  ): Promise<{ id: string; publicJwk: PublicJwk; store: (tx: StorageAdapter) => Promise<void> }>
  /** Optional: creates a Bls12381G2 key; without it a BBS key request is 422. */
  createBbsKey?(tenantId: string): Promise<{ id: string; publicJwk: BbsPublicJwk }>
  /** Whether the backend derives keys from {@link HdDerivation}s; without it a `derive` request is 422. */
  readonly derivesKeys?: boolean
  /** The tenant's key `id` (its public JWK and signer), or undefined when the tenant holds none. */
  find(tenantId: string, id: string): Promise<BackendKey | undefined>
  /** Optional: destroys the tenant's keys `ids` inside `tx` (backends keeping keys in the service's storage). */
  destroyKeys?(tx: StorageAdapter, tenantId: string, ids: readonly string[]): Promise<void>
  /**
   * Optional (backends keeping key material outside the service's storage, `hsm`): destroys key `id`'s material, after
   * the transaction of {@link KeyBackend.destroyKeys} committed (its record is gone by then). Rejects with an
   * {@link IdentityError} when it could not (`SERVICE_UNAVAILABLE`: the token is away).
   */
  destroyMaterial?(tenantId: string, id: string): Promise<void>
}

/** The backend's name and the id within it of a reference; undefined when it is not `<backend>:<id>`. */
export function parseKeyRef(keyRef: string): { backend: string; id: string } | undefined {
  const colon = keyRef.indexOf(':')
  if (colon <= 0 || colon === keyRef.length - 1) return undefined
  return { backend: keyRef.slice(0, colon), id: keyRef.slice(colon + 1) }
}

/** A {@link KeyManager} over named backends: adding a backend is one entry in `backends`. */
export class BackendKeyManager implements KeyManager {
  constructor(
    private readonly backends: Readonly<Record<string, KeyBackend>>,
    private readonly defaultBackend: string,
  ) {
    if (!backends[defaultBackend]) throw new RangeError(`no key backend named ${defaultBackend}`)
  }

  async createKey(request: CreateKeyRequest): Promise<CreatedKey> {
    const { name, backend } = this.#backendFor(request)
    const { id, publicJwk } = await backend.createKey(request.tenantId, request.type, request.derive)
    return { keyRef: `${name}:${id}`, publicJwk }
  }

  async stageKey(request: CreateKeyRequest): Promise<StagedKey> {
    const { name, backend } = this.#backendFor(request)
    if (!backend.stageKey) return { ...(await this.createKey(request)), store: async () => {} }
    const staged = await backend.stageKey(request.tenantId, request.type, request.derive)
    return { keyRef: `${name}:${staged.id}`, publicJwk: staged.publicJwk, store: (tx) => staged.store(tx) }
  }

  #backendFor(request: CreateKeyRequest): { name: string; backend: KeyBackend } {
    if (!Object.hasOwn(ALGORITHMS_OF, request.type)) throw new IdentityError('VALIDATION_ERROR', `unknown key type ${String(request.type)}`)
    const name = request.backend ?? this.defaultBackend
    const backend = Object.hasOwn(this.backends, name) ? this.backends[name] : undefined
    if (!backend) throw new IdentityError('VALIDATION_ERROR', `unknown key backend ${name}`)
    if (request.derive && !backend.derivesKeys) throw new IdentityError('VALIDATION_ERROR', `the ${name} key backend derives no HD keys`)
    return { name, backend }
  }

  async sign(request: SignRequest): Promise<Uint8Array> {
    const key = await this.#joseKey(request.tenantId, request.keyRef)
    const type = keyTypeOfJwk(key.publicJwk)!
    if (!ALGORITHMS_OF[type].includes(request.alg))
      throw new IdentityError('VALIDATION_ERROR', `a ${type} key signs under ${ALGORITHMS_OF[type].join(' or ')}, not ${request.alg}`)
    if (request.digest !== undefined && request.digest.length !== 32)
      throw new IdentityError('VALIDATION_ERROR', 'a prehashed ES256K-R digest must be 32 bytes')
    return key.sign(request)
  }

  async publicKey(tenantId: string, keyRef: KeyRef): Promise<PublicJwk> {
    return (await this.#joseKey(tenantId, keyRef)).publicJwk
  }

  async createBbsKey(request: { tenantId: string; backend?: string }): Promise<CreatedBbsKey> {
    const name = request.backend ?? this.defaultBackend
    const backend = Object.hasOwn(this.backends, name) ? this.backends[name] : undefined
    if (!backend) throw new IdentityError('VALIDATION_ERROR', `unknown key backend ${name}`)
    if (!backend.createBbsKey) throw new IdentityError('VALIDATION_ERROR', `the ${name} key backend holds no Bls12381G2 keys`)
    const { id, publicJwk } = await backend.createBbsKey(request.tenantId)
    return { keyRef: `${name}:${id}`, publicJwk }
  }

  async signBbs(request: BbsSignRequest): Promise<Uint8Array> {
    const { header, messages } = request
    if (!(header instanceof Uint8Array) || header.length > MAX_BBS_HEADER_BYTES)
      throw new IdentityError('VALIDATION_ERROR', `a BBS header is at most ${MAX_BBS_HEADER_BYTES} bytes`)
    if (!Array.isArray(messages) || messages.length > MAX_BBS_MESSAGES || !messages.every((m) => m instanceof Uint8Array))
      throw new IdentityError('VALIDATION_ERROR', `BBS messages are at most ${MAX_BBS_MESSAGES} byte strings`)
    const key = await this.#find(request.tenantId, request.keyRef)
    if (!('signBbs' in key)) throw new IdentityError('VALIDATION_ERROR', `a ${key.publicJwk.crv} key signs no BBS signatures`)
    return key.signBbs(header, messages)
  }

  async #find(tenantId: string, keyRef: KeyRef): Promise<BackendKey> {
    const { backend, id } = this.#locate(keyRef)
    const key = await backend.find(tenantId, id)
    if (!key) throw unknownKey(keyRef)
    return key
  }

  async #joseKey(tenantId: string, keyRef: KeyRef): Promise<JoseBackendKey> {
    const key = await this.#find(tenantId, keyRef)
    if ('signBbs' in key) throw new IdentityError('VALIDATION_ERROR', 'a Bls12381G2 key signs BBS signatures only, under no JOSE algorithm')
    return key
  }

  async destroyKeys(tx: StorageAdapter, tenantId: string, keyRefs: readonly KeyRef[]): Promise<void> {
    const idsByBackend = new Map<string, string[]>()
    for (const keyRef of keyRefs) {
      const parsed = parseKeyRef(keyRef)
      if (parsed && Object.hasOwn(this.backends, parsed.backend))
        idsByBackend.set(parsed.backend, [...(idsByBackend.get(parsed.backend) ?? []), parsed.id])
    }
    for (const [name, ids] of idsByBackend) await this.backends[name].destroyKeys?.(tx, tenantId, ids)
  }

  async destroyMaterial(tenantId: string, keyRefs: readonly KeyRef[]): Promise<MaterialDestruction[]> {
    const outcomes: MaterialDestruction[] = []
    for (const keyRef of keyRefs) {
      const parsed = parseKeyRef(keyRef)
      const backend = parsed && Object.hasOwn(this.backends, parsed.backend) ? this.backends[parsed.backend] : undefined
      if (!parsed || !backend?.destroyMaterial) continue
      try {
        await backend.destroyMaterial(tenantId, parsed.id)
        outcomes.push({ keyRef })
      } catch (err) {
        const error = err instanceof IdentityError ? err : new IdentityError('INTERNAL_ERROR', 'the key material could not be destroyed')
        outcomes.push({ keyRef, error })
      }
    }
    return outcomes
  }

  #locate(keyRef: KeyRef): { backend: KeyBackend; id: string } {
    const parsed = parseKeyRef(keyRef)
    const backend = parsed && Object.hasOwn(this.backends, parsed.backend) ? this.backends[parsed.backend] : undefined
    if (!parsed || !backend) throw unknownKey(keyRef)
    return { backend, id: parsed.id }
  }
}

/** The same answer for a malformed reference, an unknown backend and another tenant's key: nothing tells them apart. */
const unknownKey = (keyRef: string) => new IdentityError('NOT_FOUND', `no key ${keyRef.slice(0, 120)}`)

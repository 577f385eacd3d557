/**
 * What the SD-JWT VC codec tests share: real keys behind the key port (the sealed backend on a real SQLite file), DIDs
 * made by the method registry (did:key, did:jwk), a resolver over that registry, and node:crypto signers and verifiers
 * for the `@sd-jwt` libraries' side (keys held outside didvault).
 */
import { generateKeyPairSync, sign, verify, createPublicKey, type KeyObject } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Resolver } from 'did-resolver'
import { didMethodNamed, didMethodNames } from '../../../src/did/methods/index.js'
import { SEALED_KEYS, SealedKeyBackend } from '../../../src/keys/backends/sealed/index.js'
import type { KeyType, PublicJwk } from '../../../src/keys/key-types.js'
import { Keyring, randomMasterKey } from '../../../src/keys/keyring.js'
import { BackendKeyManager } from '../../../src/keys/port.js'
import { portKeySigner } from '../../../src/keys/port-signers.js'
import type { KeySigner } from '../../../src/keys/signer.js'
import { createSqliteStorage } from '../../../src/storage/sqlite/index.js'
import type { StorageAdapter } from '../../../src/storage/port.js'

export const KEY_TYPES: KeyType[] = ['Ed25519', 'P-256', 'secp256k1']
export const ALG_OF: Record<KeyType, 'EdDSA' | 'ES256' | 'ES256K'> = { Ed25519: 'EdDSA', 'P-256': 'ES256', secp256k1: 'ES256K' }

/** A resolver over the method registry: every method it lists, by name. */
export const resolver = new Resolver(
  Object.fromEntries(didMethodNames().map((name) => [name, (did: string) => didMethodNamed(name)!.resolve(did)])),
  { cache: false },
)

/** The key port over a sealed backend on a fresh SQLite file. */
export async function openKeyPort(): Promise<{ keys: BackendKeyManager; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'didvault-sdjwt-'))
  const storage: StorageAdapter = createSqliteStorage({ path: join(dir, 'db.sqlite') })
  await storage.init([SEALED_KEYS])
  const keys = new BackendKeyManager({ sealed: new SealedKeyBackend(storage, new Keyring(randomMasterKey())) }, 'sealed')
  return {
    keys,
    close: async () => {
      await storage.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A wallet-like key: its signer through the port and its DID of `method`. */
export async function portIdentity(
  keys: BackendKeyManager,
  type: KeyType,
  method = 'key',
): Promise<{ signer: KeySigner; did: string; kid: string }> {
  const { keyRef, publicJwk } = await keys.createKey({ tenantId: 't', type })
  const { did } = await didMethodNamed(method)!.create({ publicJwk })
  const document = (await didMethodNamed(method)!.resolve(did)).didDocument!
  return { signer: portKeySigner(keys, { tenantId: 't', keyRef, publicJwk }), did, kid: document.assertionMethod![0] as string }
}

/** A key held outside didvault, in node:crypto: the library's side. */
export interface OutsideKey {
  publicJwk: PublicJwk
  alg: 'EdDSA' | 'ES256' | 'ES256K'
  /** The `@sd-jwt` signer: the JOSE signature, base64url. */
  signer: (data: string) => Promise<string>
}

export function outsideKey(type: KeyType): OutsideKey {
  const { privateKey, publicKey } =
    type === 'Ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: type === 'P-256' ? 'prime256v1' : 'secp256k1' })
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as PublicJwk
  const publicJwk = (y === undefined ? { kty, crv, x } : { kty, crv, x, y }) as PublicJwk
  return { publicJwk, alg: ALG_OF[type], signer: async (data) => nodeSign(privateKey, type, data) }
}

function nodeSign(key: KeyObject, type: KeyType, data: string): string {
  const input = Buffer.from(data, 'utf8')
  const sig = type === 'Ed25519' ? sign(null, input, key) : sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' })
  return sig.toString('base64url')
}

/** The `@sd-jwt` verifier of a public JWK in node:crypto (the library's side). */
export function nodeVerifier(jwk: object): (data: string, sig: string) => boolean {
  const key = createPublicKey({ key: jwk as never, format: 'jwk' })
  const ed = key.asymmetricKeyType === 'ed25519'
  return (data, sig) => {
    const input = Buffer.from(data, 'utf8')
    const bytes = Buffer.from(sig, 'base64url')
    return ed ? verify(null, input, key, bytes) : verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, bytes)
  }
}

/** The did:jwk DID of a public JWK and its one verification method. */
export async function didJwkOf(publicJwk: PublicJwk): Promise<{ did: string; kid: string }> {
  const { did } = await didMethodNamed('jwk')!.create({ publicJwk })
  return { did, kid: `${did}#0` }
}

/** Now, seconds. */
export const nowSeconds = () => Math.floor(Date.now() / 1000)

/** The parts of a compact SD-JWT: the issuer-signed JWT, the disclosures, the KB-JWT ('' for none). */
export function partsOf(compact: string): { jwt: string; disclosures: string[]; kb: string } {
  const parts = compact.split('~')
  return { jwt: parts[0], disclosures: parts.slice(1, -1), kb: parts[parts.length - 1] }
}

/** A disclosure's decoded array. */
export const decodeDisclosure = (d: string): unknown[] => JSON.parse(Buffer.from(d, 'base64url').toString('utf8')) as unknown[]

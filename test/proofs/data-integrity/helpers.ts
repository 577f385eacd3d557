/**
 * What the Data Integrity suite tests share: the key port over the sealed backend on a real SQLite file (with a
 * test-only import of a private JWK, for the W3C vector keys), a resolver over didvault's DID method registry, and
 * a resolver over fixed DID documents.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JsonWebKey } from 'node:crypto'
import { base64urlnopad } from '@scure/base'
import type { DIDDocument, Resolvable } from 'did-resolver'
import { SEALED_KEYS, SealedKeyBackend } from '../../../src/keys/backends/sealed/index.js'
import type { KeyType } from '../../../src/keys/key-types.js'
import { Keyring, randomMasterKey } from '../../../src/keys/keyring.js'
import { BackendKeyManager } from '../../../src/keys/port.js'
import { portBbsSigner, portKeySigner } from '../../../src/keys/port-signers.js'
import type { BbsSigner, KeySigner } from '../../../src/keys/signer.js'
import { encodeMultikey } from '../../../src/did/methods/multikey.js'
import { createSqliteStorage } from '../../../src/storage/sqlite/index.js'
import { didMethodNamed } from '../../../src/did/methods/index.js'

export { resolver } from '../../credentials/sd-jwt/helpers.js'

/** The key port over a sealed backend on a fresh SQLite file, with a test-only import of private JWKs. */
export async function openSealedKeys(): Promise<{
  keys: BackendKeyManager
  importJwk(jwk: JsonWebKey): Promise<KeySigner>
  close(): Promise<void>
}> {
  const dir = mkdtempSync(join(tmpdir(), 'didvault-di-'))
  const storage = createSqliteStorage({ path: join(dir, 'db.sqlite') })
  await storage.init([SEALED_KEYS])
  const sealed = new SealedKeyBackend(storage, new Keyring(randomMasterKey()))
  const keys = new BackendKeyManager({ sealed }, 'sealed')
  return {
    keys,
    async importJwk(jwk) {
      const type = jwk.crv as KeyType
      const { id, publicJwk } = await sealed.importKey('t', type, base64urlnopad.decode(jwk.d!))
      return portKeySigner(keys, { tenantId: 't', keyRef: `sealed:${id}`, publicJwk })
    },
    async close() {
      await storage.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A key made in the port and its DID of `method`, with the verification method its document lists under `assertionMethod`. */
export async function portIdentity(
  keys: BackendKeyManager,
  type: KeyType,
  method: 'key' | 'jwk' = 'key',
): Promise<{ signer: KeySigner; did: string; verificationMethod: string; document: DIDDocument }> {
  const { keyRef, publicJwk } = await keys.createKey({ tenantId: 't', type })
  const { did } = await didMethodNamed(method)!.create({ publicJwk })
  const document = (await didMethodNamed(method)!.resolve(did)).didDocument!
  return {
    signer: portKeySigner(keys, { tenantId: 't', keyRef, publicJwk }),
    did,
    verificationMethod: document.assertionMethod![0] as string,
    document,
  }
}

/** A resolver answering with fixed documents (by DID), `notFound` for any other. */
export function fixedResolver(documents: Iterable<DIDDocument>): Resolvable {
  const byDid = new Map([...documents].map((document) => [document.id, document]))
  return {
    resolve: async (did: string) => {
      const didDocument = byDid.get(did.split('#')[0]) ?? null
      return {
        didResolutionMetadata: didDocument ? {} : { error: 'notFound' },
        didDocument: didDocument && structuredClone(didDocument),
        didDocumentMetadata: {},
      }
    },
  }
}

/** A BLS12-381 G2 key made in the port (`createBbsKey`), its did:key (`zUC7…`) and its one verification method. */
export async function bbsPortIdentity(keys: BackendKeyManager): Promise<{ signer: BbsSigner; did: string; verificationMethod: string }> {
  const { keyRef, publicJwk } = await keys.createBbsKey({ tenantId: 't' })
  const fingerprint = encodeMultikey('Bls12381G2', base64urlnopad.decode(publicJwk.x))
  const did = `did:key:${fingerprint}`
  return { signer: portBbsSigner(keys, { tenantId: 't', keyRef, publicJwk }), did, verificationMethod: `${did}#${fingerprint}` }
}

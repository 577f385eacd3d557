/**
 * did:key behind the DID-method port: the DID is the key (Multikey: multicodec + base58btc;
 * Ed25519, P-256 and secp256k1, compressed points), resolved offline, never updated. A BLS12-381 G2 key (`zUC7…`,
 * bbs-2023's) resolves too, as an assertion key only ({@link didKeyDocument}): it controls nothing.
 */
import type { DIDDocument } from 'did-resolver'
import { invalid } from '../../../errors.js'
import { KEY_TYPES, keyTypeOfJwk, type KeyType, type PublicJwk } from '../../../keys/key-types.js'
import { authenticationKeys, didOf, immutable, jwkOfMethod, resolved, unresolved } from '../derived.js'
import type { DidMethod } from '../port.js'
import { bbsDidKeyDocument, didKeyDocument } from './document.js'
import { decodeMultikey, encodeMultikey, MAX_MULTIBASE } from '../multikey.js'
import { keyBytesToCreate, publicJwkOf } from '../public-key-bytes.js'

const PREFIX = 'did:key:'
const SIGNING = new Set<string>(KEY_TYPES)

/** The key of a did:key identifier; undefined for a malformed one or a key type didvault does not sign with. */
function keyOfIdentifier(identifier: string): { type: KeyType; bytes: Uint8Array; jwk: PublicJwk } | undefined {
  const decoded = decodeMultikey(identifier)
  if (decoded === undefined || !SIGNING.has(decoded.type)) return undefined
  const type = decoded.type as KeyType
  try {
    return { type, bytes: decoded.bytes, jwk: publicJwkOf(type, decoded.bytes) }
  } catch {
    return undefined
  }
}

/**
 * The 96 bytes of a did:key identifier of a BLS12-381 G2 key (a compressed point, not checked on the curve here: the
 * suite's library does); else undefined.
 */
function bbsKeyOfIdentifier(identifier: string): Uint8Array | undefined {
  const decoded = decodeMultikey(identifier)
  return decoded?.type === 'Bls12381G2' && decoded.bytes.length === 96 ? decoded.bytes : undefined
}

/** The document a did:key identifier stands for; undefined for a malformed one. */
function decodedDocument(identifier: string): DIDDocument | undefined {
  const bbs = bbsKeyOfIdentifier(identifier)
  if (bbs !== undefined) return bbsDidKeyDocument(bbs)
  const key = keyOfIdentifier(identifier)
  return key === undefined ? undefined : didKeyDocument(key.type, key.bytes)
}

/** Documents of did:key DIDs resolved lately: a did:key document is a pure function of its DID (decoding costs more than a copy). */
const DOCUMENTS = new Map<string, DIDDocument>()
const MAX_DOCUMENTS = 1_000

/** The document of a well-formed did:key DID (a copy is handed out); undefined for a malformed one. */
function documentOf(did: string): DIDDocument | undefined {
  const known = DOCUMENTS.get(did)
  if (known !== undefined) {
    DOCUMENTS.delete(did)
    DOCUMENTS.set(did, known)
    return known
  }
  const document = decodedDocument(did.slice(PREFIX.length))
  if (document === undefined) return undefined
  DOCUMENTS.set(did, document)
  if (DOCUMENTS.size > MAX_DOCUMENTS) DOCUMENTS.delete(DOCUMENTS.keys().next().value as string)
  return document
}

export const didKey: DidMethod = {
  name: 'key',
  keyTypes: KEY_TYPES,
  versioned: false,

  async create({ publicJwk }) {
    const type = keyTypeOfJwk(publicJwk)
    if (type === undefined) throw invalid('did:key takes a secp256k1, P-256 or Ed25519 key')
    return { did: `${PREFIX}${encodeMultikey(type, keyBytesToCreate('key', publicJwk))}` }
  },

  async resolve(didUrl) {
    const did = didOf(didUrl)
    if (!did.startsWith(PREFIX) || did.length > PREFIX.length + MAX_MULTIBASE)
      return unresolved('invalidDid', 'not a did:key DID of a supported length')
    const document = documentOf(did)
    if (document === undefined)
      return unresolved(
        'invalidDid',
        'did:key: not a base58btc Ed25519, P-256 (compressed), secp256k1 (compressed) or BLS12-381 G2 (compressed) public key',
      )
    return resolved(structuredClone(document))
  },

  async update() {
    throw immutable('key')
  },

  async controllingKeys(did) {
    const { didDocument } = await this.resolve(did)
    return didDocument ? authenticationKeys(didDocument, jwkOfMethod) : []
  },
}

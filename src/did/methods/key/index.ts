/**
 * did:key behind the DID-method port: the DID is the key (Multikey: multicodec + base58btc;
 * Ed25519, P-256 and secp256k1, compressed points), resolved offline, never updated.
 */
import { invalid } from '../../../errors.js'
import { KEY_TYPES, keyTypeOfJwk, type KeyType, type PublicJwk } from '../../../keys/key-types.js'
import { authenticationKeys, didOf, immutable, jwkOfMethod, resolved, unresolved } from '../derived.js'
import type { DidMethod } from '../port.js'
import { didKeyDocument } from './document.js'
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
    const key = keyOfIdentifier(did.slice(PREFIX.length))
    if (key === undefined)
      return unresolved('invalidDid', 'did:key: not a base58btc Ed25519, P-256 (compressed) or secp256k1 (compressed) public key')
    return resolved(didKeyDocument(key.type, key.bytes))
  },

  async update() {
    throw immutable('key')
  },

  async controllingKeys(did) {
    const { didDocument } = await this.resolve(did)
    return didDocument ? authenticationKeys(didDocument, jwkOfMethod) : []
  },
}

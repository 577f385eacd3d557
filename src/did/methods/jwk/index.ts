/**
 * did:jwk behind the DID-method port: derived from the JWK, resolved offline, never updated. A
 * DID is made from the JWK's required members in lexicographic order (as RFC 7638 and JCS have
 * them: `crv`, `kty`, `x`, `y`), so one key makes one DID; resolution takes any public EC or OKP
 * JWK and refuses private keys, unknown curves and keys off their curve.
 */
import type { VerificationMethod } from 'did-resolver'
import { base64urlnopad as base64url } from '@scure/base'
import { invalid } from '../../../errors.js'
import { KEY_TYPES, keyTypeOfJwk } from '../../../keys/key-types.js'
import { authenticationKeys, didOf, immutable, jwkOfMethod, resolved, unresolved } from '../derived.js'
import type { DidMethod } from '../port.js'
import { keyBytesToCreate, publicKeyBytes } from '../public-key-bytes.js'
import { didJwkDocument } from './document.js'

const PREFIX = 'did:jwk:'
/** Longest did:jwk DID resolved (a P-256 key with a few members is under 250 characters). */
export const MAX_DID_JWK = 2048
/** Private members of EC / OKP / RSA / oct JWKs: a JWK carrying one is refused. */
const PRIVATE = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']

/** The JWK of a did:jwk identifier, or why it is not one. */
function jwkOfIdentifier(identifier: string): Record<string, unknown> | string {
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(base64url.decode(identifier)))
  } catch {
    return 'not the base64url of a JSON object'
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not the base64url of a JSON object'
  const jwk = value as Record<string, unknown>
  if (PRIVATE.some((member) => member in jwk)) return 'the JWK carries private key material'
  if (jwk.use !== undefined && jwk.use !== 'sig' && jwk.use !== 'enc') return 'the JWK’s use is neither sig nor enc'
  if (jwk.kty === 'OKP' && jwk.crv === 'X25519') return isX25519Key(jwk.x) ? jwk : 'not a valid X25519 public key'
  if (keyTypeOfJwk(jwk) === undefined) return 'not a public secp256k1, P-256, Ed25519 or X25519 JWK'
  try {
    publicKeyBytes(jwk as never)
  } catch {
    return 'the JWK is not a valid public key of its curve'
  }
  return jwk
}

function isX25519Key(x: unknown): boolean {
  try {
    return typeof x === 'string' && base64url.decode(x).length === 32
  } catch {
    return false
  }
}

export const didJwk: DidMethod = {
  name: 'jwk',
  keyTypes: KEY_TYPES,
  versioned: false,

  async create({ publicJwk }) {
    if (keyTypeOfJwk(publicJwk) === undefined) throw invalid('did:jwk takes a secp256k1, P-256 or Ed25519 key')
    keyBytesToCreate('jwk', publicJwk)
    const { crv, kty, x, y } = publicJwk
    const jwk = y === undefined ? { crv, kty, x } : { crv, kty, x, y }
    return { did: `${PREFIX}${base64url.encode(new TextEncoder().encode(JSON.stringify(jwk)))}` }
  },

  async resolve(didUrl) {
    const did = didOf(didUrl)
    if (!did.startsWith(PREFIX) || did.length > MAX_DID_JWK) return unresolved('invalidDid', 'not a did:jwk DID of a supported length')
    const identifier = did.slice(PREFIX.length)
    if (!/^[A-Za-z0-9_-]+$/.test(identifier)) return unresolved('invalidDid', 'did:jwk: the identifier is not base64url')
    const jwk = jwkOfIdentifier(identifier)
    return typeof jwk === 'string' ? unresolved('invalidDid', `did:jwk: ${jwk}`) : resolved(didJwkDocument(did, jwk))
  },

  async update() {
    throw immutable('jwk')
  },

  async controllingKeys(did) {
    const { didDocument } = await this.resolve(did)
    return didDocument ? authenticationKeys(didDocument, (vm: VerificationMethod) => jwkOfMethod(vm)) : []
  },
}

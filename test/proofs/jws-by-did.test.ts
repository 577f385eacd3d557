/**
 * The shared JWS-by-DID verifier (src/proofs/jws-by-did.ts): a JWS signed with node:crypto keys, checked against the
 * documents the method registry makes (did:key, did:jwk), the embedded did:ethr registry's (an address-only
 * `#controller`) and a did:web document; each refusal named, nothing thrown.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import type { DIDDocument, Resolvable } from 'did-resolver'
import { beforeAll, describe, expect, it } from 'vitest'
import { createMemoryStorage } from '../../src/index.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { didMethodNamed } from '../../src/did/methods/index.js'
import { DEV_NETWORK } from '../../src/did/methods/ethr/ethr.js'
import { EmbeddedRegistry } from '../../src/did/methods/ethr/registry/embedded.js'
import type { KeyType, PublicJwk } from '../../src/keys/key-types.js'
import { addressOf } from '../../src/keys/secp256k1.js'
import { verifyJwsByDid, type JwsByDidOptions } from '../../src/proofs/jws-by-did.js'

const ALG: Record<KeyType, 'EdDSA' | 'ES256' | 'ES256K'> = { Ed25519: 'EdDSA', 'P-256': 'ES256', secp256k1: 'ES256K' }

interface Key {
  type: KeyType
  privateKey: KeyObject
  publicJwk: PublicJwk
}

function newKey(type: KeyType): Key {
  const { privateKey, publicKey } =
    type === 'Ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: type === 'P-256' ? 'prime256v1' : 'secp256k1' })
  return { type, privateKey, publicJwk: publicKey.export({ format: 'jwk' }) as PublicJwk }
}

/** A compact JWS's parts signed by `key` (JOSE form), with header `alg` and `kid`. */
function jwsOf(key: Key, kid: string | undefined, alg: string = ALG[key.type]) {
  const header = Buffer.from(JSON.stringify({ alg, ...(kid !== undefined && { kid }) })).toString('base64url')
  const data = `${header}.${Buffer.from('{"iss":"x"}').toString('base64url')}`
  const input = Buffer.from(data)
  const signature =
    key.type === 'Ed25519' ? sign(null, input, key.privateKey) : sign('sha256', input, { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
  return { alg, kid, data, signature: new Uint8Array(signature) }
}

const documents = new Map<string, DIDDocument>()
let ethr: EmbeddedRegistry
const resolver: Resolvable = {
  resolve: async (did) => {
    if (did.startsWith('did:ethr:')) return ethr.resolve(did, undefined)
    const method = did.split(':')[1]
    const document = documents.get(did) ?? (method === 'web' ? undefined : (await didMethodNamed(method)!.resolve(did)).didDocument)
    return { didResolutionMetadata: {}, didDocument: document ?? null, didDocumentMetadata: {} }
  },
}
const options: JwsByDidOptions = { resolver }

beforeAll(async () => {
  const storage = createMemoryStorage()
  await storage.init(COLLECTIONS)
  ethr = new EmbeddedRegistry(storage, DEV_NETWORK)
})

/** A DID of `method` for `key` and the verification method it signs credentials with. */
async function didOf(method: 'key' | 'jwk' | 'ethr' | 'web', key: Key): Promise<{ did: string; kid: string }> {
  if (method === 'ethr') {
    const { x, y } = key.publicJwk as { x: string; y: string }
    const address = addressOf(Buffer.concat([Buffer.from([4]), Buffer.from(x, 'base64url'), Buffer.from(y, 'base64url')]))
    const did = `did:ethr:dev:${address}`
    return { did, kid: `${did}#controller` }
  }
  if (method === 'web') {
    const did = `did:web:issuer.example:${key.type.toLowerCase()}`
    const kid = `${did}#key-1`
    documents.set(did, {
      id: did,
      verificationMethod: [{ id: kid, type: 'JsonWebKey2020', controller: did, publicKeyJwk: key.publicJwk }],
      assertionMethod: [kid],
      authentication: [],
    })
    return { did, kid }
  }
  const { did } = await didMethodNamed(method)!.create({ publicJwk: key.publicJwk })
  const document = (await didMethodNamed(method)!.resolve(did)).didDocument!
  const kid = document.assertionMethod![0] as string
  return { did, kid: kid.startsWith('#') ? `${did}${kid}` : kid }
}

describe('verifyJwsByDid', () => {
  const cases: [KeyType, 'key' | 'jwk' | 'ethr' | 'web'][] = [
    ['Ed25519', 'key'],
    ['P-256', 'key'],
    ['secp256k1', 'key'],
    ['Ed25519', 'jwk'],
    ['P-256', 'jwk'],
    ['secp256k1', 'jwk'],
    ['secp256k1', 'ethr'],
    ['P-256', 'web'],
    ['Ed25519', 'web'],
  ]
  for (const [type, method] of cases) {
    it(`${type} on did:${method}: verified by the method kid names, with or without kid; another key's signature refused`, async () => {
      const key = newKey(type)
      const { did, kid } = await didOf(method, key)
      expect(await verifyJwsByDid({ ...jwsOf(key, kid), issuer: did }, options)).toEqual({ verified: true, did, method: kid })
      expect(await verifyJwsByDid({ ...jwsOf(key, undefined), issuer: did }, options)).toEqual({ verified: true, did, method: kid })
      // the DID taken from kid (a Status List Token names no issuer)
      expect(await verifyJwsByDid(jwsOf(key, kid), options)).toEqual({ verified: true, did, method: kid })
      const other = jwsOf(newKey(type), kid)
      expect(await verifyJwsByDid({ ...other, issuer: did }, options)).toMatchObject({ verified: false, reason: 'signature', did })
    })
  }

  it('refuses alg none, a MAC, ES256K-R and an alg that does not match the key', async () => {
    const key = newKey('P-256')
    const { did, kid } = await didOf('jwk', key)
    for (const alg of ['none', 'HS256', 'ES256K-R', 'RS256']) {
      expect(await verifyJwsByDid({ ...jwsOf(key, kid, alg), issuer: did }, options)).toMatchObject({ verified: false, reason: 'alg' })
    }
    // EdDSA over a P-256 method: no key of the DID signs with it
    expect(await verifyJwsByDid({ ...jwsOf(key, kid, 'EdDSA'), issuer: did }, options)).toMatchObject({
      verified: false,
      reason: 'kid',
      did,
    })
    // ES256K over a P-256 key: refused before OpenSSL
    expect(await verifyJwsByDid({ ...jwsOf(key, kid, 'ES256K'), issuer: did }, options)).toMatchObject({ verified: false, reason: 'kid' })
    // the allow-list narrowed by the caller
    const narrowed = { ...options, algorithms: ['EdDSA'] as const }
    expect(await verifyJwsByDid({ ...jwsOf(key, kid), issuer: did }, narrowed)).toMatchObject({ verified: false, reason: 'alg' })
  })

  it('refuses a key listed under another purpose than the one asked for', async () => {
    const key = newKey('Ed25519')
    const did = 'did:web:issuer.example:auth-only'
    const kid = `${did}#auth`
    documents.set(did, {
      id: did,
      verificationMethod: [{ id: kid, type: 'JsonWebKey2020', controller: did, publicKeyJwk: key.publicJwk }],
      authentication: [kid],
    })
    expect(await verifyJwsByDid({ ...jwsOf(key, kid), issuer: did }, options)).toMatchObject({ verified: false, reason: 'kid' })
    expect(await verifyJwsByDid({ ...jwsOf(key, kid), issuer: did }, { ...options, purpose: 'authentication' })).toEqual({
      verified: true,
      did,
      method: kid,
    })
  })

  it("refuses a kid not in the document, another DID's kid, an issuer that is not a plain DID, and an unresolved DID", async () => {
    const key = newKey('Ed25519')
    const { did } = await didOf('key', key)
    const { did: otherDid, kid: otherKid } = await didOf('jwk', newKey('Ed25519'))
    const refusal = (jws: Parameters<typeof verifyJwsByDid>[0]) => verifyJwsByDid(jws, options)
    expect(await refusal({ ...jwsOf(key, `${did}#nope`), issuer: did })).toMatchObject({ verified: false, reason: 'kid', did })
    expect(await refusal({ ...jwsOf(key, otherKid), issuer: did })).toMatchObject({ verified: false, reason: 'kid' })
    expect(await refusal({ ...jwsOf(key, undefined), issuer: `${did}#frag` })).toMatchObject({ verified: false, reason: 'issuer' })
    expect(await refusal({ ...jwsOf(key, undefined), issuer: 'https://issuer.example' })).toMatchObject({
      verified: false,
      reason: 'issuer',
    })
    expect(await refusal({ ...jwsOf(key, undefined), issuer: null })).toMatchObject({ verified: false, reason: 'issuer' })
    expect(await refusal(jwsOf(key, did))).toMatchObject({ verified: false, reason: 'kid' }) // no fragment, no issuer
    expect(await refusal({ ...jwsOf(key, undefined), issuer: 'did:web:nowhere.example' })).toMatchObject({
      verified: false,
      reason: 'unresolved',
    })
    const throwing: Resolvable = { resolve: () => Promise.reject(new Error('network down')) }
    expect(await verifyJwsByDid({ ...jwsOf(key, undefined), issuer: otherDid }, { resolver: throwing })).toMatchObject({
      verified: false,
      reason: 'unresolved',
    })
  })
})

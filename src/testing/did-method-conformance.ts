/**
 * The DID-method conformance suite of `didvault/testing`: what every method behind the DID-method port (`DidMethod`,
 * docs/did-registries.md) must do, asserted through the port. Keys are made here by @noble/curves, and documents are
 * read by did-jwt's `extractPublicKeyBytes`, not by didvault's code. did:key and did:jwk run it; a new method runs it
 * with one call.
 */
import { randomInt } from 'node:crypto'
import { extractPublicKeyBytes } from 'did-jwt'
import type { DIDDocument, VerificationMethod } from 'did-resolver'
import { ed25519 } from '@noble/curves/ed25519.js'
import { p256 } from '@noble/curves/nist.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { describe, expect, it } from 'vitest'
import { fixturePerTest } from './fixture-per-test.js'
import type { DidCreateInput, DidMethod } from '../did/methods/index.js'
import { KEY_TYPES, type KeyType, type PublicJwk } from '../keys/key-types.js'

/** What the factory given to {@link runDidMethodConformance} returns. */
export interface DidMethodFixture {
  /** The method under test. */
  method: DidMethod
  /** What `create` needs besides the key (did:web: a `walletId`; did:ethr: a `network`); called once per DID. */
  createInput?: () => Omit<DidCreateInput, 'publicJwk'>
  /** Whether the method refuses every `txsInput` (derived methods: did:key, did:jwk). Default: `!method.versioned`. */
  immutable?: boolean
  /** Called after each test. */
  cleanup?: () => Promise<void>
}

/** A fresh key of `type` made by @noble/curves: its public JWK and its bytes (EC points compressed). */
function freshKey(type: KeyType): { jwk: PublicJwk; bytes: Uint8Array } {
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')
  if (type === 'Ed25519') {
    const bytes = ed25519.getPublicKey(ed25519.utils.randomSecretKey())
    return { jwk: { kty: 'OKP', crv: 'Ed25519', x: b64(bytes) }, bytes }
  }
  const curve = type === 'P-256' ? p256 : secp256k1
  const point = curve.getPublicKey(curve.utils.randomSecretKey(), false)
  const jwk: PublicJwk = { kty: 'EC', crv: type, x: b64(point.subarray(1, 33)), y: b64(point.subarray(33)) }
  return { jwk, bytes: curve.Point.fromBytes(point).toBytes(true) }
}

/** The EIP-55-insensitive Ethereum address of a secp256k1 key (lowercase hex), computed here. */
function addressOf(bytes: Uint8Array): string {
  const uncompressed = secp256k1.Point.fromBytes(bytes).toBytes(false)
  return `0x${bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12))}`
}

/** What a verification method names, read by did-jwt: `type:hex` of its key (EC compressed), or `address:0x…`. */
function keyOfMethod(vm: VerificationMethod): string {
  const account = vm.blockchainAccountId ?? vm.ethereumAddress
  if (account !== undefined) return `address:${account.split(':').pop()!.toLowerCase()}`
  const { keyBytes, keyType } = extractPublicKeyBytes(vm)
  if (keyType === 'P-256') return `P-256:${bytesToHex(p256.Point.fromBytes(keyBytes).toBytes(true))}`
  if (keyType === 'Secp256k1') return `secp256k1:${bytesToHex(secp256k1.Point.fromBytes(keyBytes).toBytes(true))}`
  return `${keyType}:${bytesToHex(keyBytes)}`
}

/** How a key of `type` with `bytes` may be named by a verification method: its bytes, or (secp256k1) its address. */
function namesOf(type: KeyType, bytes: Uint8Array): string[] {
  const key = `${type}:${bytesToHex(bytes)}`
  return type === 'secp256k1' ? [key, `address:${addressOf(bytes)}`] : [key]
}

/** The verification methods a document lists under `authentication` (by reference or embedded). */
function authenticationMethods(document: DIDDocument): VerificationMethod[] {
  const methods = document.verificationMethod ?? []
  return (document.authentication ?? []).map((entry) => {
    const vm = typeof entry === 'string' ? methods.find((m) => m.id === entry) : entry
    if (vm === undefined) throw new Error(`authentication entry ${JSON.stringify(entry)} names no verification method`)
    return vm
  })
}

/** Strings of a small seeded generator (no dependency beyond vitest): printable ASCII, `%`-escapes, non-ASCII. */
function* randomTails(seed: number, count: number): Generator<string> {
  let state = seed >>> 0
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:%#/?=;~!$&'()*+,@ zé😀\u0000"
  for (let i = 0; i < count; i++) {
    const length = Math.floor(next() * 120)
    yield Array.from({ length }, () => [...alphabet][Math.floor(next() * [...alphabet].length)]).join('')
  }
}

/**
 * Declares the DID-method conformance suite for one method as a vitest `describe` block:
 * - create, for each key type the method takes: a `did:<name>:` DID that resolves to a document of that id, its
 *   `authentication` keys exactly the key (or, secp256k1, its address), a DID URL with a fragment resolving to the same
 *   document, and `controllingKeys` naming those methods and that key;
 * - create refuses (422 VALIDATION_ERROR) a key type it does not take, a JWK of no didvault key type, a key off its curve;
 * - malformed, foreign and oversized DIDs resolve to `invalidDid` and never throw (random tails, seeded);
 *   `controllingKeys` of a DID that does not resolve is empty;
 * - an immutable method refuses `txsInput` (422 VALIDATION_ERROR).
 *
 * @param name Shown in the suite title.
 * @param factory Called before each test.
 *
 * @example
 * runDidMethodConformance('did:example', async () => ({ method: didExample, createInput: () => ({ walletId: 'w1' }) }))
 */
export function runDidMethodConformance(name: string, factory: () => Promise<DidMethodFixture>): void {
  describe(`DID method conformance: ${name}`, () => {
    const current = fixturePerTest(factory, 'DID method')
    const create = (publicJwk: PublicJwk) => current().method.create({ ...current().createInput?.(), publicJwk })

    for (const type of KEY_TYPES) {
      it(`${type}: create, then resolve: the DID's document, authenticated by the key; controllingKeys agree`, async (ctx) => {
        const { method } = current()
        if (!method.keyTypes.includes(type)) return ctx.skip()
        const key = freshKey(type)
        const { did } = await create(key.jwk)
        expect(did.startsWith(`did:${method.name}:`), did).toBe(true)
        const result = await method.resolve(did)
        expect(result.didResolutionMetadata.error, result.didResolutionMetadata.message as string).toBeUndefined()
        const document = result.didDocument!
        expect(document.id).toBe(did)

        const authentication = authenticationMethods(document)
        expect(authentication.length).toBeGreaterThan(0)
        for (const vm of authentication) expect(namesOf(type, key.bytes), vm.id).toContain(keyOfMethod(vm))

        const first = authentication[0].id
        const fragment = first.includes('#') ? first : `${did}#${first.replace(/^#/, '')}`
        expect((await method.resolve(fragment)).didDocument, fragment).toEqual(document)

        const controlling = await method.controllingKeys(did)
        expect(controlling.length).toBeGreaterThan(0)
        const absolute = (id: string) => (id.startsWith('#') ? `${did}${id}` : id)
        const authenticationIds = authentication.map((vm) => absolute(vm.id))
        for (const controller of controlling) {
          expect(authenticationIds, controller.methodId).toContain(absolute(controller.methodId))
          if (controller.publicJwk !== undefined) expect(controller.publicJwk).toMatchObject(key.jwk)
          else expect([type, controller.address?.toLowerCase()]).toEqual(['secp256k1', addressOf(key.bytes)])
        }
      })
    }

    it('create refuses a key type it does not take, a JWK of no key type, and a key off its curve (422)', async () => {
      const { method } = current()
      const refused: Array<Record<string, unknown>> = [
        ...KEY_TYPES.filter((type) => !method.keyTypes.includes(type)).map(
          (type) => freshKey(type).jwk as unknown as Record<string, unknown>,
        ),
        { kty: 'OKP', crv: 'X25519', x: freshKey('Ed25519').jwk.x },
        { kty: 'RSA', n: 'AQAB', e: 'AQAB' },
      ]
      for (const type of method.keyTypes) {
        const { jwk } = freshKey(type)
        refused.push({ ...jwk, x: 'AA' }, ...(jwk.y === undefined ? [] : [{ ...jwk, y: jwk.x }]))
      }
      for (const jwk of refused) {
        const error = await create(jwk as unknown as PublicJwk).then(
          (created) => new Error(`created ${created.did}`),
          (e: unknown) => e,
        )
        expect(error, JSON.stringify(jwk)).toMatchObject({ errorType: 'VALIDATION_ERROR', statusCode: 422 })
      }
    })

    it('malformed, foreign and oversized DIDs resolve to invalidDid and never throw; controllingKeys of them is empty', async () => {
      const { method } = current()
      const prefix = `did:${method.name}:`
      const bad = ['', 'not-a-did', 'did:', prefix, `${prefix}%F0`, `${prefix}!!!`, `${prefix}${'z'.repeat(100_000)}`, `${prefix}\u0000`]
      for (const did of bad) {
        const result = await method.resolve(did)
        expect(result.didResolutionMetadata.error, did.slice(0, 60)).toBe('invalidDid')
        expect(result.didDocument).toBeNull()
        expect(await method.controllingKeys(did)).toEqual([])
      }
      const seed = Number(process.env.DIDVAULT_CONFORMANCE_SEED ?? randomInt(2 ** 31))
      for (const tail of randomTails(seed, 200)) {
        const did = `${prefix}${tail}`
        const result = await method.resolve(did).catch((e: unknown) => ({ thrown: e }))
        const message = `resolve(${JSON.stringify(did)}) (replay: DIDVAULT_CONFORMANCE_SEED=${seed})`
        expect('thrown' in result ? result.thrown : undefined, message).toBeUndefined()
        if ('thrown' in result) continue
        if (result.didDocument === null) expect(typeof result.didResolutionMetadata.error, message).toBe('string')
        else expect(result.didDocument.id, message).toBe(did.split(/[/?#]/, 1)[0])
      }
    })

    it('an immutable method refuses txsInput (422)', async (ctx) => {
      const { method, immutable = !method.versioned } = current()
      if (!immutable) return ctx.skip()
      const { did } = await create(freshKey(method.keyTypes[0]).jwk)
      for (const txsInput of [[{ service: { type: 'LinkedDomains', serviceEndpoint: 'https://example.com' } }], [{ newOwner: did }], []]) {
        await expect(method.update({ did, txsInput }), JSON.stringify(txsInput)).rejects.toMatchObject({
          errorType: 'VALIDATION_ERROR',
          statusCode: 422,
        })
      }
    })
  })
}

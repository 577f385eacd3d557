/**
 * The key-backend conformance suite of `didvault/testing`: what every backend behind the key port
 * (`KeyManager`, docs/keys.md) must do, asserted through the port and checked by code that is not
 * didvault's (OpenSSL through `node:crypto`, @noble/curves for ES256K-R recovery, the RFC 7638
 * thumbprint computed here). The sealed and mpc backends run it; a new backend runs it with one call.
 *
 * What an HSM or KMS backend adds through its fixture: {@link KeyBackendFixture.privateKeyReadable} (ask the device
 * whether a key's private half can be read out) and {@link KeyBackendFixture.breakBackend} (take the device away, and
 * bring it back). The `hsm` (PKCS#11) backend fills them with the token's attributes and its token directory.
 */
import { createHash, createPublicKey, verify } from 'node:crypto'
import { ed25519 } from '@noble/curves/ed25519.js'
import { p256 } from '@noble/curves/nist.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { describe, expect, it } from 'vitest'
import { fixturePerTest } from './fixture-per-test.js'
import { IdentityError, toIdentityError, UnavailableError } from '../errors.js'
import { ALGORITHMS_OF, KEY_TYPES, type KeyType, type PublicJwk, type SignatureAlgorithm } from '../keys/key-types.js'
import type { CreatedKey, KeyManager, KeyRef } from '../keys/port.js'
import type { StorageAdapter } from '../storage/port.js'

/** What the factory given to {@link runKeyBackendConformance} returns: the port over the backend under test. */
export interface KeyBackendFixture {
  /** The key port, with the backend under test among its backends. */
  keys: KeyManager
  /** The backend's name: its references are `<backend>:<id>`. */
  backend: string
  /** The key types the backend holds (default: every key type). */
  keyTypes?: readonly KeyType[]
  /**
   * A backend naming keys by ids of its own rather than by RFC 7638 thumbprints: the pattern those ids match (`hsm`:
   * the token's CKA_ID in hex). Absent: references are `<backend>:<thumbprint>`.
   */
  keyIdPattern?: RegExp
  /**
   * Makes a key of `type` held by `tenantId` the way the backend makes keys: `keys.createKey` for most, an MPC
   * vault's initialization for `mpc`.
   */
  makeKey(tenantId: string, type: KeyType): Promise<CreatedKey>
  /** Member DIDs approving every signature, for a backend that signs only with a quorum (`mpc`). */
  approvals?: readonly string[]
  /**
   * The service's storage the backend keeps its keys in, when it does (`sealed`): `stageKey` must write through the
   * caller's transaction and `destroyKeys` delete there. Absent: those groups are skipped.
   */
  storage?: StorageAdapter
  /**
   * Holds a key whose private half the test chose (the backend's import, where it has one), so the suite can look for
   * that private key in {@link KeyBackendFixture.storedBytes}. Absent: the plaintext group is skipped.
   */
  knownKey?: (tenantId: string, type: KeyType, privateKey: Uint8Array) => Promise<CreatedKey>
  /** Every byte the backend's storage has written (a SQLite file and its WAL): what the plaintext group reads. */
  storedBytes?: () => Promise<Uint8Array>
  /**
   * Asks where the key lives, not the port, whether the private half of the tenant's key `keyRef` can be read out by
   * the means the backend's design says must not give it: for a PKCS#11 token, whether the object answers `CKA_VALUE`
   * or shows `CKA_SENSITIVE` false, `CKA_EXTRACTABLE` true or `CKA_NEVER_EXTRACTABLE` false; for a cloud KMS, whether
   * the key can be exported; for a quorum custody, whether one member's share alone is the key. Every key the backend
   * makes must answer false. Absent (a backend that opens its keys in this process, like `sealed`, whose
   * non-extractability is the plaintext group): the device group is skipped.
   */
  privateKeyReadable?: (tenantId: string, keyRef: KeyRef) => Promise<boolean>
  /**
   * Makes the backend fail the way its device or store fails when it cannot be reached (a token removed, the storage
   * down, the KMS endpoint unreachable), until the function it resolves to is called, which brings it back (and resolves
   * once it is back). While broken, a signature must reject with what the service answers as 503
   * `SERVICE_UNAVAILABLE` — an `IdentityError` of that type, or an `UnavailableError` (which every operation turns
   * into one) — never a raw driver error, and no error may carry key material; once restored, the next signature
   * verifies, without a new port or backend. Absent: the failure group is skipped.
   */
  breakBackend?: () => Promise<() => Promise<void>>
  /** Called after each test (close the storage, drop a temp directory…). */
  cleanup?(): Promise<void>
}

const DATA = new TextEncoder().encode('eyJhbGciOiJFUzI1NksifQ.eyJpc3MiOiJjb25mb3JtYW5jZSJ9')

/** The RFC 7638 thumbprint of an EC or OKP public JWK, computed here (not by didvault's `jwkThumbprint`). */
function rfc7638Thumbprint(jwk: PublicJwk): string {
  const members = jwk.kty === 'EC' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x }
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url')
}

/** Whether OpenSSL accepts a JOSE signature of `data` under `jwk` and `alg` (ES256K-R: its first 64 bytes). */
function opensslVerifies(jwk: PublicJwk, alg: SignatureAlgorithm, data: Uint8Array, signature: Uint8Array): boolean {
  const key = createPublicKey({ key: { ...jwk }, format: 'jwk' })
  if (alg === 'EdDSA') return verify(null, data, key, signature)
  return verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature.subarray(0, 64))
}

/** The uncompressed point an ES256K-R signature (r‖s‖v) of `digest` recovers; refuses a high-S one. */
function recoveredPoint(signature: Uint8Array, digest: Uint8Array): Uint8Array {
  const sig = secp256k1.Signature.fromBytes(signature.subarray(0, 64), 'compact').addRecoveryBit(signature[64])
  expect(sig.hasHighS(), 'ES256K-R signatures are low-S').toBe(false)
  return sig.recoverPublicKey(digest).toBytes(false)
}

const pointOf = (jwk: PublicJwk) => Uint8Array.from([4, ...Buffer.from(jwk.x, 'base64url'), ...Buffer.from(jwk.y ?? '', 'base64url')])
const sha256 = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest())

const RUN = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
let sequence = 0
/** A tenant id no other test (or earlier run) uses. */
const freshTenant = () => `kt-${RUN}-${++sequence}`

/** A fresh private key of `type`, made by @noble/curves (a valid scalar, or an Ed25519 seed). */
const randomPrivateKey = (type: KeyType): Uint8Array => ({ Ed25519: ed25519, 'P-256': p256, secp256k1 })[type].utils.randomSecretKey()

type Hooks = Pick<
  KeyBackendFixture,
  'storage' | 'knownKey' | 'storedBytes' | 'keyTypes' | 'privateKeyReadable' | 'breakBackend' | 'keyIdPattern'
>

/** How many signatures the concurrency group asks for at once. */
const CONCURRENT_SIGNATURES = 50

/** The forms of a private key the suite looks for in stored bytes and error texts: raw, hex (both cases), base64url. */
const formsOf = (privateKey: Uint8Array): Buffer[] => {
  const raw = Buffer.from(privateKey)
  return [raw, Buffer.from(raw.toString('hex')), Buffer.from(raw.toString('hex').toUpperCase()), Buffer.from(raw.toString('base64url'))]
}

/** Every text an error carries, its causes' included: what a caller, a log line or an error body could show. */
function textsOf(error: unknown): string {
  const texts: string[] = []
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e === 'string') texts.push(e)
    if (typeof e !== 'object') break
    const { message, reason, errorMessage, stack } = e as Record<string, unknown>
    texts.push(...[message, reason, errorMessage, stack].filter((t): t is string => typeof t === 'string'))
    try {
      texts.push(JSON.stringify(e))
    } catch {
      // a circular error: its named texts above are what is shown
    }
  }
  return texts.join('\n')
}

/**
 * Declares the key-backend conformance suite for one backend as a vitest `describe` block. Groups a backend cannot run
 * (it creates no keys through `createKey`, keeps none in the service's storage, or imports none) are skipped, saying why.
 *
 * - keys of every type it holds: a JWK of that type, the same from `publicKey`; signatures under each algorithm of the
 *   type verify in OpenSSL; ES256K-R signs r‖s‖v, low-S, recovering the key over the data or a caller's 32-byte digest;
 *   an algorithm of another key type, and a digest of another length, are VALIDATION_ERROR;
 * - tenants: another tenant's key, a malformed reference and an unknown backend are the same NOT_FOUND;
 * - `createKey`: references `<backend>:<RFC 7638 thumbprint>` (or, for a backend with ids of its own, `<backend>:<id>`
 *   matching the fixture's `keyIdPattern`, one per key), an unknown key type VALIDATION_ERROR;
 * - keys in storage: `stageKey` in a rolled-back transaction leaves no key; `destroyKeys` removes (then NOT_FOUND), and passes
 *   over another tenant's key;
 * - no private key in plaintext (raw, hex, base64url) in the bytes the storage wrote;
 * - non-extractability: the port hands out references, public JWKs and signatures only; with `privateKeyReadable`, the
 *   place the key lives (a token, a KMS) says no key can be read out, before or after it signed;
 * - concurrent signing: 50 signatures of distinct data at once over one key of each type, and spread over keys of every
 *   type and two tenants, each valid for its own data and key;
 * - with `breakBackend`, failure while signing: an unreachable backend answers what the service turns into 503
 *   `SERVICE_UNAVAILABLE` (an IdentityError of that type or an UnavailableError, never a raw error), twice, with no
 *   key material in any error text; brought back, the same port signs again.
 *
 * @param name Shown in the suite title.
 * @param factory Called before each test (and once while collecting, to see which hooks the fixture has).
 * @param options `createsKeys: false` for a backend whose keys are made elsewhere (an MPC vault's quorum).
 *
 * @example
 * runKeyBackendConformance('hsm', async () => {
 *   const keys = new BackendKeyManager({ hsm: new HsmKeyBackend(session) }, 'hsm')
 *   return { keys, backend: 'hsm', makeKey: (tenantId, type) => keys.createKey({ tenantId, type }) }
 * })
 */
export function runKeyBackendConformance(
  name: string,
  factory: () => Promise<KeyBackendFixture>,
  options: { createsKeys?: boolean } = {},
): void {
  describe(`key backend conformance: ${name}`, async () => {
    const probe = await factory()
    const hooks: Hooks = {
      storage: probe.storage,
      knownKey: probe.knownKey,
      storedBytes: probe.storedBytes,
      keyTypes: probe.keyTypes,
      keyIdPattern: probe.keyIdPattern,
      privateKeyReadable: probe.privateKeyReadable,
      breakBackend: probe.breakBackend,
    }
    await probe.cleanup?.()
    const types = hooks.keyTypes ?? KEY_TYPES
    const current = fixturePerTest(factory, 'key backend')

    const sign = (tenantId: string, keyRef: KeyRef, alg: SignatureAlgorithm, input: { data: Uint8Array } | { digest: Uint8Array }) =>
      current().keys.sign({ tenantId, keyRef, alg, approvals: current().approvals, ...input } as never)

    describe('keys of every type it holds', () => {
      for (const type of types) {
        it(`${type}: its public JWK, signatures under ${ALGORITHMS_OF[type].join(', ')} that OpenSSL verifies`, async () => {
          const tenantId = freshTenant()
          const { keyRef, publicJwk } = await current().makeKey(tenantId, type)
          expect(keyRef.startsWith(`${current().backend}:`), keyRef).toBe(true)
          expect(publicJwk).toMatchObject(type === 'Ed25519' ? { kty: 'OKP', crv: type } : { kty: 'EC', crv: type })
          expect(await current().keys.publicKey(tenantId, keyRef)).toEqual(publicJwk)
          for (const alg of ALGORITHMS_OF[type]) {
            const signature = await sign(tenantId, keyRef, alg, { data: DATA })
            expect(signature.length, alg).toBe(alg === 'ES256K-R' ? 65 : 64)
            expect(opensslVerifies(publicJwk, alg, DATA, signature), alg).toBe(true)
            expect(opensslVerifies(publicJwk, alg, new TextEncoder().encode('other'), signature), `${alg}, other data`).toBe(false)
          }
          const wrong: SignatureAlgorithm = type === 'Ed25519' ? 'ES256' : 'EdDSA'
          await expect(sign(tenantId, keyRef, wrong, { data: DATA })).rejects.toMatchObject({
            errorType: 'VALIDATION_ERROR',
            statusCode: 422,
          })
        })
      }

      it.skipIf(!types.includes('secp256k1'))('ES256K-R: r‖s‖v, low-S, recovering the key over the data or a 32-byte digest', async () => {
        const tenantId = freshTenant()
        const { keyRef, publicJwk } = await current().makeKey(tenantId, 'secp256k1')
        expect(recoveredPoint(await sign(tenantId, keyRef, 'ES256K-R', { data: DATA }), sha256(DATA))).toEqual(pointOf(publicJwk))
        const digest = sha256(new TextEncoder().encode('a digest the caller computed'))
        expect(recoveredPoint(await sign(tenantId, keyRef, 'ES256K-R', { digest }), digest)).toEqual(pointOf(publicJwk))
        await expect(sign(tenantId, keyRef, 'ES256K-R', { digest: digest.subarray(0, 31) })).rejects.toMatchObject({
          errorType: 'VALIDATION_ERROR',
        })
        const other = types.find((t) => t !== 'secp256k1')
        if (other === undefined) return
        const key = await current().makeKey(tenantId, other)
        await expect(sign(tenantId, key.keyRef, 'ES256K-R', { digest })).rejects.toMatchObject({ errorType: 'VALIDATION_ERROR' })
      })
    })

    describe('tenants', () => {
      it("another tenant's key signs nothing and is answered as an unknown key (NOT_FOUND)", async () => {
        const owner = freshTenant()
        const type = types[0]
        const alg = ALGORITHMS_OF[type][0]
        const { keyRef } = await current().makeKey(owner, type)
        const intruder = freshTenant()
        await expect(sign(intruder, keyRef, alg, { data: DATA })).rejects.toMatchObject({
          errorType: 'NOT_FOUND',
          message: `no key ${keyRef}`,
        })
        await expect(current().keys.publicKey(intruder, keyRef)).rejects.toMatchObject({
          errorType: 'NOT_FOUND',
          message: `no key ${keyRef}`,
        })
        const { backend } = current()
        for (const unknown of [
          `${backend}:`,
          `${backend}:${'A'.repeat(43)}`,
          'nope',
          'constructor:x',
          `no-such-backend:${keyRef.slice(backend.length + 1)}`,
        ]) {
          await expect(sign(owner, unknown, alg, { data: DATA }), unknown).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
          await expect(current().keys.publicKey(owner, unknown), unknown).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
        }
        expect(await sign(owner, keyRef, alg, { data: DATA })).toHaveLength(alg === 'ES256K-R' ? 65 : 64)
      })
    })

    const createsKeys = options.createsKeys !== false
    group(createsKeys ? undefined : 'the backend makes no keys through createKey', 'createKey', () => {
      const pattern = hooks.keyIdPattern
      for (const type of types) {
        it(`${type}: named <backend>:<${pattern ? `its own id, ${pattern}` : 'its RFC 7638 thumbprint'}>`, async () => {
          const tenantId = freshTenant()
          const { keyRef, publicJwk } = await current().keys.createKey({ tenantId, type, backend: current().backend })
          if (pattern) {
            expect(keyRef.startsWith(`${current().backend}:`), keyRef).toBe(true)
            expect(keyRef.slice(current().backend.length + 1)).toMatch(pattern)
            const second = await current().keys.createKey({ tenantId, type, backend: current().backend })
            expect(second.keyRef, 'two keys, two references').not.toBe(keyRef)
          } else expect(keyRef).toBe(`${current().backend}:${rfc7638Thumbprint(publicJwk)}`)
          expect(await current().keys.publicKey(tenantId, keyRef)).toEqual(publicJwk)
        })
      }
      it('an unknown key type is VALIDATION_ERROR', async () => {
        const request = { tenantId: freshTenant(), type: 'X25519' as KeyType, backend: current().backend }
        await expect(current().keys.createKey(request)).rejects.toMatchObject({ errorType: 'VALIDATION_ERROR' })
      })
    })

    const inStorage = createsKeys && hooks.storage !== undefined
    group(inStorage ? undefined : 'the backend keeps no keys in the service’s storage', 'keys in the service’s storage', () => {
      it('stageKey: stored in a transaction that rolls back, the key does not exist; committed, it signs', async () => {
        const { keys, storage, backend } = current()
        const tenantId = freshTenant()
        const type = types[0]
        const alg = ALGORITHMS_OF[type][0]
        const staged = await keys.stageKey({ tenantId, type, backend })
        const rollback = new Error('the caller’s other write failed')
        await expect(
          storage!.transaction(async (tx) => {
            await staged.store(tx)
            throw rollback
          }),
        ).rejects.toBe(rollback)
        await expect(keys.publicKey(tenantId, staged.keyRef)).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
        await expect(sign(tenantId, staged.keyRef, alg, { data: DATA })).rejects.toMatchObject({ errorType: 'NOT_FOUND' })

        const kept = await keys.stageKey({ tenantId, type, backend })
        await storage!.transaction((tx) => kept.store(tx))
        expect(opensslVerifies(kept.publicJwk, alg, DATA, await sign(tenantId, kept.keyRef, alg, { data: DATA }))).toBe(true)
      })

      it('destroyKeys removes the tenant’s keys in the caller’s transaction (then NOT_FOUND), not another tenant’s', async () => {
        const { keys, storage } = current()
        const tenantId = freshTenant()
        const made = await Promise.all(types.map((type) => current().makeKey(tenantId, type)))
        const other = freshTenant()
        const theirs = await current().makeKey(other, types[0])
        await storage!.transaction((tx) => keys.destroyKeys(tx, tenantId, [...made.map((k) => k.keyRef), theirs.keyRef]))
        for (const [i, { keyRef }] of made.entries()) {
          await expect(sign(tenantId, keyRef, ALGORITHMS_OF[types[i]][0], { data: DATA })).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
          await expect(keys.publicKey(tenantId, keyRef)).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
        }
        expect(await keys.publicKey(other, theirs.keyRef)).toEqual(theirs.publicJwk)
      })
    })

    const plaintext = hooks.knownKey !== undefined && hooks.storedBytes !== undefined
    group(plaintext ? undefined : 'the fixture gives no knownKey and storedBytes', 'no private key in plaintext', () => {
      it('the bytes the storage wrote hold no private key, raw, in hex or in base64url', async () => {
        const tenantId = freshTenant()
        const secrets = types.map((type) => ({ type, privateKey: randomPrivateKey(type) }))
        for (const { type, privateKey } of secrets) {
          const { keyRef, publicJwk } = await current().knownKey!(tenantId, type, Uint8Array.from(privateKey))
          const alg = ALGORITHMS_OF[type][0]
          expect(opensslVerifies(publicJwk, alg, DATA, await sign(tenantId, keyRef, alg, { data: DATA })), type).toBe(true)
        }
        const bytes = Buffer.from(await current().storedBytes!())
        expect(bytes.length).toBeGreaterThan(0)
        for (const { type, privateKey } of secrets)
          for (const form of formsOf(privateKey)) expect(bytes.includes(form), `${type} private key in the stored bytes`).toBe(false)
      })
    })

    describe('non-extractability', () => {
      it('the port hands out public halves only: references, public JWKs without `d`, signatures', async () => {
        const tenantId = freshTenant()
        for (const type of types) {
          const made = await current().makeKey(tenantId, type)
          expect(Object.keys(made).sort(), type).toEqual(['keyRef', 'publicJwk'])
          const publicJwk = await current().keys.publicKey(tenantId, made.keyRef)
          for (const jwk of [made.publicJwk, publicJwk]) {
            expect(
              Object.keys(jwk).filter((member) => !['kty', 'crv', 'x', 'y', 'alg', 'kid', 'use', 'key_ops'].includes(member)),
              type,
            ).toEqual([])
            expect(jwk, type).not.toHaveProperty('d')
          }
        }
      })

      group(hooks.privateKeyReadable ? undefined : 'the fixture gives no privateKeyReadable', 'asked where the key lives', () => {
        it('no key of any type it holds can be read out, before or after it signed', async () => {
          const tenantId = freshTenant()
          for (const type of types) {
            const { keyRef } = await current().makeKey(tenantId, type)
            expect(await current().privateKeyReadable!(tenantId, keyRef), `${type} readable when made`).toBe(false)
            await sign(tenantId, keyRef, ALGORITHMS_OF[type][0], { data: DATA })
            expect(await current().privateKeyReadable!(tenantId, keyRef), `${type} readable after signing`).toBe(false)
          }
        })
      })
    })

    describe('concurrent signing', () => {
      for (const type of types) {
        it(`${type}: ${CONCURRENT_SIGNATURES} signatures of distinct data at once over one key, each valid for its own data`, async () => {
          const tenantId = freshTenant()
          const { keyRef, publicJwk } = await current().makeKey(tenantId, type)
          const algs = ALGORITHMS_OF[type]
          const inputs = Array.from({ length: CONCURRENT_SIGNATURES }, (_, i) => ({
            alg: algs[i % algs.length],
            data: new TextEncoder().encode(`concurrent ${type} signature ${i}`),
          }))
          const signatures = await Promise.all(inputs.map(({ alg, data }) => sign(tenantId, keyRef, alg, { data })))
          for (const [i, { alg, data }] of inputs.entries()) {
            expect(signatures[i].length, `${i}`).toBe(alg === 'ES256K-R' ? 65 : 64)
            expect(opensslVerifies(publicJwk, alg, data, signatures[i]), `signature ${i} over its data`).toBe(true)
            const neighbour = inputs[(i + 1) % inputs.length].data
            expect(opensslVerifies(publicJwk, alg, neighbour, signatures[i]), `signature ${i} over another's data`).toBe(false)
          }
          expect(new Set(signatures.map((s) => Buffer.from(s).toString('hex'))).size).toBe(CONCURRENT_SIGNATURES)
        })
      }

      it(`${CONCURRENT_SIGNATURES} signatures at once spread over keys of every type and two tenants, none crossed`, async () => {
        const tenants = [freshTenant(), freshTenant()]
        // Made one after the other: what runs at once is the signing.
        const keys: (CreatedKey & { tenantId: string; type: KeyType })[] = []
        for (const tenantId of tenants)
          for (const type of types) keys.push({ tenantId, type, ...(await current().makeKey(tenantId, type)) })
        const requests = Array.from({ length: CONCURRENT_SIGNATURES }, (_, i) => {
          const key = keys[i % keys.length]
          return { key, alg: ALGORITHMS_OF[key.type][0], data: new TextEncoder().encode(`spread signature ${i}`) }
        })
        const signatures = await Promise.all(requests.map(({ key, alg, data }) => sign(key.tenantId, key.keyRef, alg, { data })))
        for (const [i, { key, alg, data }] of requests.entries()) {
          expect(opensslVerifies(key.publicJwk, alg, data, signatures[i]), `signature ${i} by ${key.type} of its tenant`).toBe(true)
        }
      })
    })

    group(hooks.breakBackend ? undefined : 'the fixture gives no breakBackend', 'failure while signing', () => {
      it('unreachable: 503 SERVICE_UNAVAILABLE, no raw driver error, no key material; restored, it signs again', async () => {
        const tenantId = freshTenant()
        const type = types[0]
        const alg = ALGORITHMS_OF[type][0]
        const secret = current().knownKey ? randomPrivateKey(type) : undefined
        const { keyRef, publicJwk } = secret
          ? await current().knownKey!(tenantId, type, Uint8Array.from(secret))
          : await current().makeKey(tenantId, type)
        expect(opensslVerifies(publicJwk, alg, DATA, await sign(tenantId, keyRef, alg, { data: DATA }))).toBe(true)

        const restore = await current().breakBackend!()
        let restored = false
        try {
          for (const attempt of [1, 2]) {
            const error = await sign(tenantId, keyRef, alg, { data: DATA }).then(
              () => undefined,
              (err: unknown) => err,
            )
            expect(error, `attempt ${attempt} signed while the backend was unreachable`).toBeDefined()
            expect(
              error instanceof IdentityError || error instanceof UnavailableError,
              `attempt ${attempt}: not an IdentityError or UnavailableError: ${String(error)}`,
            ).toBe(true)
            const answered = toIdentityError(error, 'sign')
            expect(answered, `attempt ${attempt}`).toMatchObject({ errorType: 'SERVICE_UNAVAILABLE', statusCode: 503 })
            const texts = textsOf(error) + '\n' + JSON.stringify(answered)
            if (secret)
              for (const form of formsOf(secret)) expect(texts.includes(form.toString('latin1')), 'key material in the error').toBe(false)
          }
          await restore()
          restored = true
        } finally {
          if (!restored) await restore()
        }
        expect(opensslVerifies(publicJwk, alg, DATA, await sign(tenantId, keyRef, alg, { data: DATA })), 'after recovery').toBe(true)
        expect(await current().keys.publicKey(tenantId, keyRef)).toEqual(publicJwk)
      })
    })
  })
}

/** A `describe` that runs, or is skipped saying why (in its title and on the console). */
function group(skipReason: string | undefined, title: string, define: () => void): void {
  if (skipReason === undefined) {
    describe(title, define)
    return
  }
  console.log(`[conformance] key backend group "${title}" skipped: ${skipReason}`)
  describe.skip(`${title} [skipped: ${skipReason}]`, define)
}

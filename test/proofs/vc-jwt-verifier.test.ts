/**
 * Differential test for VC-JWTs: the service's native path (`acceptedNatively`: its own JWT
 * verifier with the known-key directory, then did-jwt-vc's payload checks) never accepts a
 * credential that did-jwt-vc's `verifyCredential` rejects, rejects it for the same class of
 * reason (a crash fails the test rather than counting as a rejection), and accepts the ordinary
 * ones it accepts — those signed by the issuer's owner, a stranger's own DID, a `veriKey`
 * delegate the service generated, and an outside delegate. Keys the service knows: its wallets and its
 * generated delegate keys, a row counting only when its key hashes to the address.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createJWT, verifyJWT } from 'did-jwt'
import { createVerifiableCredentialJwt, normalizeCredential, validateCredentialPayload, verifyCredential } from 'did-jwt-vc'
import { IdentityService, createMemoryStorage, randomMasterKey, staticTenants } from '../../src/index.js'
import { acceptedNatively, verifyJwtCredential } from '../../src/credentials/formats/jwt/verify.js'
import { verifyDidJwt } from '../../src/proofs/jwt-verifier.js'
import { ClaimResolvers } from '../../src/did/named-resolvers.js'
import { bytesToMultibase } from 'did-jwt'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { PublicKeyDirectory } from '../../src/wallets/public-keys.js'
import { openKeyring } from '../../src/custody/keyring-store.js'
import { LocalSigner, generatePrivateKey, publicKeyOf } from '../../src/keys/secp256k1.js'
import { DEV_NETWORK, ethrDid } from '../../src/did/methods/ethr/ethr.js'
import { type DelegateKeyRecord } from '../../src/wallets/records.js'
import { alterPayload, tamper } from '../helpers/tokens.js'
import { openDelegateKey } from '../helpers/delegate-keys.js'
import { didJwtVerdict, ourVerdict, type JwtVerdict } from '../helpers/jwt-verdicts.js'

const API_KEY = 'token-0123456789ab'
const masterKey = randomMasterKey()
const storage = createMemoryStorage()
const service = await IdentityService.create({ storage, masterKey, tenants: staticTenants({ [API_KEY]: 't' }) })
const api = service.as({ authorization: API_KEY })
const outside = new LocalSigner(generatePrivateKey())
const day = 86_400_000
const held = (
  await api.generateWallet({
    walletConfig: { txsInput: [{ delegate: { validity: day } }, { delegate: { address: outside.address, validity: day } }] },
  })
).wallet
const heldToken = (await api.generateToken({ iss: held.did })).jwt
const asHeld = service.as({ authorization: API_KEY, didAuth: heldToken })
const keyring = await openKeyring(storage, masterKey)
const delegateRow = (
  await storage
    .collection<DelegateKeyRecord>('delegateKeys')
    .find(
      { field: 'ethereumAddress', op: 'eq', value: (held.registry!.transactions[0] as { delegate: { address: string } }).delegate.address },
      { limit: 1 },
    )
).items[0]
const generated = new LocalSigner(await openDelegateKey(storage, keyring, delegateRow))
const now = Math.floor(Date.now() / 1000)
const vc = { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], credentialSubject: { degree: 'BSc' } }

async function vcJwt(
  o: { signer?: LocalSigner; iss?: string; alg?: 'ES256K' | 'ES256K-R'; payload?: Record<string, unknown>; raw?: boolean } = {},
) {
  const signer = o.signer ?? new LocalSigner(generatePrivateKey())
  const iss = o.iss ?? ethrDid(DEV_NETWORK, signer.address)
  const payload = { nbf: now, jti: `urn:uuid:${randomUUID()}`, vc, ...o.payload }
  // `raw`: past did-jwt-vc's own checks at creation (a malformed credential someone else made).
  if (o.raw) return createJWT(payload, { issuer: iss, signer: didJwtSigner(signer), alg: o.alg ?? 'ES256K' })
  return createVerifiableCredentialJwt(payload, { did: iss, signer: didJwtSigner(signer), alg: o.alg ?? 'ES256K' })
}

const serviceIssued = async () => {
  const { vcs } = await asHeld.signClaims({
    iss: held.did,
    format: 'JWT',
    claims: [{ id: `urn:uuid:${randomUUID()}`, payload: { degree: 'BSc' } }],
  })
  return (vcs[0] as { jwt: string }).jwt
}

/** [name, the verdict did-jwt-vc and the native path must reach, make]. */
const cases: Array<[string, JwtVerdict, () => Promise<string>]> = [
  ['issued by the service (held wallet)', 'accepted', serviceIssued],
  ['a stranger, ES256K', 'accepted', () => vcJwt()],
  ['a stranger, ES256K-R', 'accepted', () => vcJwt({ alg: 'ES256K-R' })],
  ['a generated delegate of the held DID', 'accepted', () => vcJwt({ signer: generated, iss: held.did })],
  ['a generated delegate, ES256K-R', 'accepted', () => vcJwt({ signer: generated, iss: held.did, alg: 'ES256K-R' })],
  ['an outside delegate of the held DID', 'accepted', () => vcJwt({ signer: outside, iss: held.did })],
  ['expired, foreign aud (checked outside)', 'accepted', () => vcJwt({ payload: { exp: now - 3600, aud: 'someone-else' } })],
  ['nbf not a whole number (did-jwt-vc floors it)', 'accepted', () => vcJwt({ raw: true, payload: { nbf: now + 0.5 } })],
  ['tampered signature', 'signature', async () => tamper(await serviceIssued())],
  ['payload altered', 'signature', async () => alterPayload(await serviceIssued(), (p) => (p.sub = `did:ethr:dev:0x${'00'.repeat(19)}01`))],
  ['another key claims the held DID', 'signature', () => vcJwt({ iss: held.did })],
  ['another key claims the held DID, ES256K-R', 'signature', () => vcJwt({ iss: held.did, alg: 'ES256K-R' })],
  ['no VerifiableCredential type', 'schema', () => vcJwt({ raw: true, payload: { vc: { ...vc, type: ['Other'] } } })],
  ['no credentials context', 'schema', () => vcJwt({ raw: true, payload: { vc: { ...vc, '@context': ['https://example.com/x'] } } })],
  ['empty credentialSubject', 'schema', () => vcJwt({ raw: true, payload: { vc: { ...vc, credentialSubject: {} } } })],
  ['nbf in milliseconds', 'schema', () => vcJwt({ raw: true, payload: { nbf: now * 1000 } })],
  ['no vc claim', 'schema', () => vcJwt({ raw: true, payload: { vc: undefined } })],
  ['unknown network', 'issuer', () => vcJwt({ iss: 'did:ethr:rinkeby:0x0000000000000000000000000000000000000001' })],
  ['garbage', 'malformed', async () => 'a.b.c'],
]

/** did-jwt-vc's verdict (time and audience policies off, as the service verifies): accepted, or its rejection's class. */
function didJwtVcs(jwt: string): Promise<JwtVerdict> {
  const policies = { now, issuanceDate: false, expirationDate: false, aud: false }
  return didJwtVerdict(() => verifyCredential(jwt, service.resolver, { proofPurpose: 'assertionMethod', policies }))
}

/** What `acceptedNatively` asks of the JWT verifier. */
const NATIVE_OPTIONS = { audience: false, checkTimes: false, proofPurpose: 'assertionMethod' } as const

/**
 * The native path's verdict, step by step as `acceptedNatively` takes it (the service's JWT
 * verifier, then did-jwt-vc's payload checks), so that a crash is told from a rejection:
 * `acceptedNatively` itself answers only true or false.
 */
function nativeVerdict(jwt: string, keys?: PublicKeyDirectory): Promise<JwtVerdict> {
  return ourVerdict(async () => {
    const { payload } = await verifyDidJwt(jwt, { ...NATIVE_OPTIONS, resolver: service.resolver, keys })
    validateCredentialPayload(normalizeCredential(payload))
  })
}

const natively = (jwt: string, keys?: PublicKeyDirectory) => acceptedNatively(jwt, { resolver: service.resolver, now: now * 1000, keys })

/** The first check `verifyJwtCredential` reports for a verdict: the signature, or the format when the token or its payload is malformed. */
function firstCheck(verdict: JwtVerdict) {
  if (verdict === 'accepted') return { check: 'signature', verified: true }
  return { check: verdict === 'schema' || verdict === 'malformed' ? 'format' : 'signature', verified: false }
}

describe('VC-JWT: the native path agrees with did-jwt-vc verifyCredential', () => {
  it.each(cases)('%s → %s', async (_name, expected, make) => {
    const jwt = await make()
    expect(await didJwtVcs(jwt)).toBe(expected)
    const keys = new PublicKeyDirectory(storage)
    for (const directory of [undefined, keys, keys]) {
      // The third time with what the directory learned (recovered signers, the last signing method).
      expect(await nativeVerdict(jwt, directory)).toBe(expected)
      expect(await natively(jwt, directory)).toBe(expected === 'accepted')
    }
    const reported = await verifyJwtCredential(jwt, { resolver: service.resolver, now: now * 1000, keys })
    expect(reported.checks[0]).toMatchObject(firstCheck(expected))
  })
})

describe('VC-JWT by a did:key issuer (key-did-resolver documents: publicKeyBase58)', () => {
  it('is checked natively, with did-jwt-vc’s verdict, and a signature by another key is refused by both', async () => {
    const resolver = new ClaimResolvers(service.resolver).get().resolver
    const key = new LocalSigner(generatePrivateKey())
    const did = `did:key:${bytesToMultibase(secp256k1.Point.fromHex(key.publicKeyHex).toBytes(true), 'base58btc', 'secp256k1-pub')}`
    const good = await vcJwt({ signer: key, iss: did })
    const forged = await vcJwt({ iss: did })
    const didJwtVc = (jwt: string) =>
      verifyCredential(jwt, resolver, {
        proofPurpose: 'assertionMethod',
        policies: { now, issuanceDate: false, expirationDate: false, aud: false },
      }).then(
        () => true,
        () => false,
      )
    expect(await didJwtVc(good)).toBe(true)
    expect(await didJwtVc(forged)).toBe(false)
    // Native: verifyDidJwt itself accepts it (no fallback to did-jwt-vc needed), and names the method.
    const native = await verifyDidJwt(good, { resolver, audience: false, checkTimes: false, proofPurpose: 'assertionMethod' })
    expect(native.signer).toBe(`${did}#${did.slice('did:key:'.length)}`)
    expect(native.signerAddress).toBe(key.address)
    expect(await acceptedNatively(good, { resolver, now: now * 1000 })).toBe(true)
    expect(await acceptedNatively(forged, { resolver, now: now * 1000 })).toBe(false)
  })
})

describe('PublicKeyDirectory knows the generated delegate keys', () => {
  it('by address, with the key the row seals', async () => {
    const keys = new PublicKeyDirectory(storage)
    const key = await keys.keyFor(generated.address)
    expect(key?.export({ format: 'jwk' })).toEqual(
      new PublicKeyDirectory(storage).keyFromHex(delegateRow.publicKeyHex).export({ format: 'jwk' }),
    )
    expect(await keys.keyFor(outside.address)).toBeUndefined()
  })

  it('a row whose key does not hash to its address vouches for nothing', async () => {
    const stranger = generatePrivateKey()
    const victim = new LocalSigner(generatePrivateKey())
    const forged: DelegateKeyRecord = {
      ...delegateRow,
      id: randomUUID(),
      ethereumAddress: victim.address,
      publicKeyHex: Buffer.from(publicKeyOf(stranger)).toString('hex'),
    }
    await storage.collection<DelegateKeyRecord>('delegateKeys').insert(forged)
    try {
      expect(await new PublicKeyDirectory(storage).keyFor(victim.address)).toBeUndefined()
    } finally {
      await storage.collection('delegateKeys').delete(forged.id)
    }
  })

  it('learns a recovered signer only under its own address', () => {
    const keys = new PublicKeyDirectory(storage)
    const a = generatePrivateKey()
    keys.learn(outside.address, publicKeyOf(a))
    return expect(keys.keyFor(outside.address)).resolves.toBeUndefined()
  })

  it('a DID-auth token by a generated delegate verifies natively, as did-jwt has it, and names the delegate', async () => {
    const jwt = await createJWT(
      { iat: now, exp: now + 600, aud: 'didvault' },
      { issuer: held.did, signer: didJwtSigner(generated), alg: 'ES256K-R' },
    )
    await expect(verifyJWT(jwt, { resolver: service.resolver, audience: 'didvault', policies: { now } })).resolves.toMatchObject({
      verified: true,
    })
    const keys = new PublicKeyDirectory(storage)
    for (let i = 0; i < 2; i++) {
      const v = await verifyDidJwt(jwt, { resolver: service.resolver, audience: 'didvault', keys, now: now * 1000 })
      expect(v.signerAddress).toBe(generated.address)
      expect(v.signer).toMatch(/#delegate-\d+$/)
      expect(keys.lastSigner(`any ${held.did}`)).toBe(v.signer)
    }
  })

  it('an unknown address is looked up once a minute, not on every signature', async () => {
    let reads = 0
    const counting = new Proxy(storage, {
      get: (target, prop, receiver) =>
        prop === 'collection'
          ? (name: string) => {
              const c = target.collection(name)
              return new Proxy(c, {
                get: (t, p) =>
                  p === 'findOne' ? (...a: unknown[]) => (reads++, (t.findOne as (...x: unknown[]) => unknown)(...a)) : Reflect.get(t, p),
              })
            }
          : Reflect.get(target, prop, receiver),
    })
    const keys = new PublicKeyDirectory(counting)
    expect(await keys.keyFor(outside.address)).toBeUndefined()
    const afterFirst = reads
    expect(afterFirst).toBeGreaterThan(0)
    expect(await keys.keyFor(outside.address)).toBeUndefined()
    expect(reads).toBe(afterFirst)
    // A held key is still found (and its verdicts never depended on the directory).
    expect(await keys.keyFor(generated.address)).toBeDefined()
  })

  it('an outside delegate is learned after one recovery', async () => {
    const keys = new PublicKeyDirectory(storage)
    expect(await keys.keyFor(outside.address)).toBeUndefined()
    expect(await natively(await vcJwt({ signer: outside, iss: held.did }), keys)).toBe(true)
    expect(await keys.keyFor(outside.address)).toBeDefined()
  })
})

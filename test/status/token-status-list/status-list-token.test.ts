/**
 * Status List Tokens (`src/status/token-status-list/sign-token.ts`, `verify-token.ts`): signed through the key port
 * (the sealed backend on a real SQLite file) by did:key issuers of every key type, read by
 * @sd-jwt/jwt-status-list 0.19.0 with the exact statuses we set, verified here through DID resolution of `kid`; forged
 * tokens are refused with the check that fails named.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { constants, deflateRawSync } from 'node:zlib'
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list'
import { createJWS } from 'did-jwt'
import { Resolver, type Resolvable } from 'did-resolver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildEthrDocument } from '../../../src/did/methods/ethr/index.js'
import { didMethodNamed, didMethodNames } from '../../../src/did/methods/index.js'
import { SEALED_KEYS, SealedKeyBackend } from '../../../src/keys/backends/sealed/index.js'
import { KEY_TYPES, type KeyType, type SignatureAlgorithm } from '../../../src/keys/key-types.js'
import { Keyring, randomMasterKey } from '../../../src/keys/keyring.js'
import { addressOf } from '../../../src/keys/secp256k1.js'
import { portKeySigner } from '../../../src/keys/port-signers.js'
import { BackendKeyManager } from '../../../src/keys/port.js'
import type { KeySigner } from '../../../src/keys/signer.js'
import { keySignerJwtSigner } from '../../../src/proofs/jwt-signer.js'
import {
  MAX_STATUS_LIST_BYTES,
  STATUS_INVALID,
  STATUS_SUSPENDED,
  encodeStatusList,
  signStatusListToken,
  statusAt,
  verifyStatusListToken,
  type VerifiedStatusListToken,
} from '../../../src/status/token-status-list/index.js'
import { randomStatuses } from './seeded.js'
import { createSqliteStorage } from '../../../src/storage/sqlite/index.js'
import type { StorageAdapter } from '../../../src/storage/port.js'

const URI = 'https://issuer.example/status/list-1'
const NOW = Date.parse('2026-11-27T12:00:00Z')
const IAT = Math.floor(NOW / 1000)
const SIZE = 131_072
const ALG: Record<KeyType, SignatureAlgorithm> = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' }

/** A did-resolver over the method registry. */
const resolver = new Resolver(Object.fromEntries(didMethodNames().map((name) => [name, (did) => didMethodNamed(name)!.resolve(did)])), {
  cache: false,
})

interface Issuer {
  did: string
  kid: string
  signer: KeySigner
}

let dir: string
let storage: StorageAdapter
let keys: BackendKeyManager
const issuers = {} as Record<KeyType, Issuer>
let other: Issuer

/** A did:key issuer whose key the key port holds. */
async function newIssuer(type: KeyType, method = 'key'): Promise<Issuer> {
  const { keyRef, publicJwk } = await keys.createKey({ tenantId: 't', type })
  const { did } = await didMethodNamed(method)!.create({ publicJwk })
  const document = (await resolver.resolve(did)).didDocument!
  return { did, kid: document.assertionMethod![0] as string, signer: portKeySigner(keys, { tenantId: 't', keyRef, publicJwk }) }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-tsl-'))
  storage = createSqliteStorage({ path: join(dir, 'keys.sqlite') })
  await storage.init([SEALED_KEYS])
  keys = new BackendKeyManager({ sealed: new SealedKeyBackend(storage, new Keyring(randomMasterKey())) }, 'sealed')
  for (const type of KEY_TYPES) issuers[type] = await newIssuer(type)
  other = await newIssuer('P-256')
})
afterAll(async () => {
  await storage.close()
  rmSync(dir, { recursive: true, force: true })
})

const parts = (jwt: string) =>
  jwt
    .split('.')
    .slice(0, 2)
    .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>)
const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** A token of `issuer` over a 2-bit list with one revoked and one suspended entry, 1 day, ttl 300 s. */
const token = (issuer: Issuer, overrides: Partial<Parameters<typeof signStatusListToken>[0]> = {}) => {
  const values = new Uint8Array(64)
  values[3] = STATUS_INVALID
  values[60] = STATUS_SUSPENDED
  return signStatusListToken({
    signer: issuer.signer,
    kid: issuer.kid,
    uri: URI,
    bits: 2,
    lst: encodeStatusList(values, 2),
    iat: IAT,
    exp: IAT + 86_400,
    ttl: 300,
    ...overrides,
  })
}

/** A JWS of `header` and `payload` signed by `signer`'s key (for forgeries the service never makes). */
const signed = (signer: KeySigner, header: Record<string, unknown>, payload: Record<string, unknown>) =>
  createJWS(payload, keySignerJwtSigner(signer, header.alg as SignatureAlgorithm), header)

const verify = (jwt: unknown, uri = URI) => verifyStatusListToken(jwt, { resolver, uri, now: NOW })

describe('a Status List Token we sign', () => {
  for (const type of KEY_TYPES) {
    it(`${type}: has the draft's header and claims, and verifies`, async () => {
      const issuer = issuers[type]
      const jwt = await token(issuer)
      const [header, payload] = parts(jwt)
      expect(header).toEqual({ alg: ALG[type], typ: 'statuslist+jwt', kid: issuer.kid })
      expect(payload).toEqual({ sub: URI, iat: IAT, exp: IAT + 86_400, ttl: 300, status_list: { bits: 2, lst: expect.any(String) } })
      const result = (await verify(jwt)) as VerifiedStatusListToken
      expect(result).toMatchObject({ verified: true, issuer: issuer.did, kid: issuer.kid, bits: 2, iat: IAT, exp: IAT + 86_400, ttl: 300 })
      expect([0, 3, 60, 63].map((i) => statusAt(result.list, 2, i))).toEqual([0, STATUS_INVALID, STATUS_SUSPENDED, 0])
    })
  }

  for (const type of KEY_TYPES) {
    it(`${type}, did:jwk (the key as publicKeyJwk): verifies`, async () => {
      const issuer = await newIssuer(type, 'jwk')
      expect(await verify(await token(issuer))).toMatchObject({ verified: true, issuer: issuer.did, kid: issuer.kid })
    })
  }

  it('secp256k1, did:ethr (its #controller names the address only): verifies, the signer recovered', async () => {
    const { keyRef, publicJwk } = await keys.createKey({ tenantId: 't', type: 'secp256k1' })
    const point = Buffer.concat([Buffer.from([4]), Buffer.from(publicJwk.x, 'base64url'), Buffer.from(publicJwk.y!, 'base64url')])
    const address = addressOf(point)
    const did = `did:ethr:${address}`
    const { didDocument } = buildEthrDocument({ did, address }, 1, [], IAT)
    const ethr: Resolvable = { resolve: async () => ({ didDocument, didDocumentMetadata: {}, didResolutionMetadata: {} }) }
    const issuer = { did, kid: `${did}#controller`, signer: portKeySigner(keys, { tenantId: 't', keyRef, publicJwk }) }
    expect(didDocument.verificationMethod?.find((vm) => vm.id === issuer.kid)).toMatchObject({ blockchainAccountId: expect.any(String) })
    const jwt = await token(issuer)
    expect(await verifyStatusListToken(jwt, { resolver: ethr, uri: URI, now: NOW })).toMatchObject({ verified: true, issuer: did })
    // another secp256k1 key signing with that kid is not the address's signer
    const forged = await token({ ...issuer, signer: issuers.secp256k1.signer })
    expect(await verifyStatusListToken(forged, { resolver: ethr, uri: URI, now: NOW })).toMatchObject({
      verified: false,
      check: 'signature',
    })
  })

  it('without exp or ttl carries neither', async () => {
    const jwt = await token(issuers['P-256'], { exp: undefined, ttl: undefined })
    expect(Object.keys(parts(jwt)[1]).sort()).toEqual(['iat', 'status_list', 'sub'])
    expect(await verify(jwt)).toMatchObject({ verified: true })
  })

  it('refuses times that are not JWT NumericDates in order', async () => {
    await expect(token(issuers['P-256'], { iat: 1.5 })).rejects.toThrow(RangeError)
    await expect(token(issuers['P-256'], { exp: IAT })).rejects.toThrow(RangeError)
    await expect(token(issuers['P-256'], { ttl: 0 })).rejects.toThrow(RangeError)
  })
})

describe('@sd-jwt/jwt-status-list 0.19.0 reads our tokens', () => {
  for (const [n, bits] of ([1, 2, 4, 8] as const).entries()) {
    it(`bits ${bits}: the exact statuses of a ${SIZE}-entry list`, async () => {
      const values = randomStatuses(SIZE, bits, 7 + n)
      const jwt = await signStatusListToken({
        signer: issuers['P-256'].signer,
        kid: issuers['P-256'].kid,
        uri: URI,
        bits,
        lst: encodeStatusList(values, bits),
        iat: IAT,
      })
      const theirs = getListFromStatusListJWT(jwt)
      expect(theirs.getBitsPerStatus()).toBe(bits)
      expect(theirs.statusList).toHaveLength(SIZE)
      let mismatch = -1
      for (let i = 0; i < SIZE && mismatch === -1; i++) if (theirs.getStatus(i) !== values[i]) mismatch = i
      expect(mismatch).toBe(-1)
      expect(values.filter((v) => v !== 0).length).toBeGreaterThan(400)
    })
  }
})

describe('a forged Status List Token is refused, the failed check named', () => {
  it('signed by another key than kid names', async () => {
    const jwt = await token(other, { kid: issuers['P-256'].kid })
    expect(await verify(jwt)).toMatchObject({ verified: false, check: 'signature' })
  })

  it('with a changed payload', async () => {
    const [header, payload, signature] = (await token(issuers['P-256'])).split('.')
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { status_list: { lst: string } }
    claims.status_list.lst = encodeStatusList(new Uint8Array(64), 2)
    expect(await verify([header, b64json(claims), signature].join('.'))).toMatchObject({ verified: false, check: 'signature' })
  })

  it('with alg none, a MAC, or an algorithm of another key type', async () => {
    const [, payload] = (await token(issuers['P-256'])).split('.')
    for (const alg of ['none', 'HS256', 'ES256K-R', 'RS256']) {
      const header = b64json({ alg, typ: 'statuslist+jwt', kid: issuers['P-256'].kid })
      expect(await verify(`${header}.${payload}.`)).toMatchObject({ verified: false, check: 'alg' })
      expect(await verify(`${header}.${payload}.AAAA`)).toMatchObject({ verified: false, check: 'alg' })
    }
    // ES256 over an Ed25519 key's kid: the key is not one the algorithm signs with
    const jwt = await signed(
      issuers['P-256'].signer,
      { alg: 'ES256', typ: 'statuslist+jwt', kid: issuers.Ed25519.kid },
      parts(await token(issuers.Ed25519))[1],
    )
    expect(await verify(jwt)).toMatchObject({ verified: false, check: 'kid' })
  })

  it('with another typ, or none', async () => {
    const issuer = issuers['P-256']
    const payload = parts(await token(issuer))[1]
    for (const typ of ['JWT', 'dc+sd-jwt', undefined]) {
      const jwt = await signed(issuer.signer, { alg: 'ES256', kid: issuer.kid, ...(typ !== undefined && { typ }) }, payload)
      expect(await verify(jwt)).toMatchObject({ verified: false, check: 'typ' })
    }
    const mediaType = await signed(issuer.signer, { alg: 'ES256', kid: issuer.kid, typ: 'application/statuslist+jwt' }, payload)
    expect(await verify(mediaType)).toMatchObject({ verified: true })
  })

  it('with a kid its DID does not list, no kid, or a kid that is no DID URL', async () => {
    const issuer = issuers['P-256']
    const payload = parts(await token(issuer))[1]
    for (const kid of [`${issuer.did}#other`, undefined, '12', issuer.did, `${issuer.did}/path#x`, 'did:web:unknown.example#key-1']) {
      const jwt = await signed(issuer.signer, { alg: 'ES256', typ: 'statuslist+jwt', ...(kid !== undefined && { kid }) }, payload)
      expect(await verify(jwt)).toMatchObject({ verified: false, check: 'kid' })
    }
  })

  it('with a kid its document lists, but not under assertionMethod', async () => {
    const issuer = issuers['P-256']
    const jwt = await token(issuer)
    const document = (await resolver.resolve(issuer.did)).didDocument!
    const authenticationOnly: Resolvable = {
      resolve: async () => ({ didDocument: { ...document, assertionMethod: [] }, didDocumentMetadata: {}, didResolutionMetadata: {} }),
    }
    expect(await verifyStatusListToken(jwt, { resolver: authenticationOnly, uri: URI, now: NOW })).toMatchObject({
      verified: false,
      check: 'kid',
    })
  })

  it('fetched from another URI than its sub', async () => {
    const jwt = await token(issuers['P-256'])
    expect(await verify(jwt, 'https://issuer.example/status/list-2')).toMatchObject({ verified: false, check: 'sub' })
    expect(await verify(await token(issuers['P-256'], { uri: `${URI}/` }))).toMatchObject({ verified: false, check: 'sub' })
  })

  it('expired, issued in the future, or with a ttl that is not positive', async () => {
    const issuer = issuers['P-256']
    expect(await verify(await token(issuer, { iat: IAT - 7_200, exp: IAT - 3_600 }))).toMatchObject({ verified: false, check: 'exp' })
    expect(await verify(await token(issuer, { iat: IAT + 3_600, exp: IAT + 7_200 }))).toMatchObject({ verified: false, check: 'iat' })
    const payload = parts(await token(issuer))[1]
    const header = { alg: 'ES256', typ: 'statuslist+jwt', kid: issuer.kid }
    expect(await verify(await signed(issuer.signer, header, { ...payload, iat: undefined }))).toMatchObject({
      verified: false,
      check: 'iat',
    })
    expect(await verify(await signed(issuer.signer, header, { ...payload, exp: '2099' }))).toMatchObject({ verified: false, check: 'exp' })
    expect(await verify(await signed(issuer.signer, header, { ...payload, ttl: -1 }))).toMatchObject({ verified: false, check: 'ttl' })
  })

  it('with a status_list that is missing, malformed, or a deflate bomb', async () => {
    const issuer = issuers['P-256']
    const payload = parts(await token(issuer))[1]
    const header = { alg: 'ES256', typ: 'statuslist+jwt', kid: issuer.kid }
    const segment = deflateRawSync(Buffer.alloc(1024 * 1024), { level: 9, finishFlush: constants.Z_FULL_FLUSH })
    const bomb = Buffer.concat([Buffer.from([0x78, 0xda]), ...Array<Buffer>(64).fill(segment), Buffer.from([0x03, 0x00])]).toString(
      'base64url',
    )
    for (const statusList of [undefined, 'x', { bits: 3, lst: 'eNrbuRgAAhcBXQ' }, { bits: 1 }, { bits: 1, lst: bomb }]) {
      const jwt = await signed(issuer.signer, header, { ...payload, status_list: statusList })
      expect(await verify(jwt)).toMatchObject({ verified: false, check: 'status_list' })
    }
    const refused = await verify(await signed(issuer.signer, header, { ...payload, status_list: { bits: 1, lst: bomb } }))
    expect(refused).toMatchObject({ reason: `lst inflates to more than ${MAX_STATUS_LIST_BYTES} bytes` })
  })

  it('that is no compact JWS, or longer than a token of the bound', async () => {
    for (const jwt of [42, '', 'a.b', 'a.b.c.d', `${b64json([1])}.${b64json({})}.`, 'e30.e30.'])
      expect(await verify(jwt)).toMatchObject({ verified: false, check: expect.stringMatching(/^(format|alg)$/) })
    expect(await verify('a'.repeat(4_000_000))).toMatchObject({ verified: false, check: 'format' })
  })
})

/**
 * Lists under the service's `publicUrl` are read through the `OwnStatusLists` port, never over
 * HTTP, and read again (verified, decoded) only when their ETag changes; the checks of
 * `StatusVerifier` directly, with the service's resolver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import { IdentityService, createMemoryStorage, randomMasterKey } from '../../src/index.js'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { CREDENTIALS_V1_URL } from '../../src/proofs/jsonld/index.js'
import { LocalSigner, generatePrivateKey } from '../../src/keys/secp256k1.js'
import { StatusVerifier } from '../../src/status/verify-status.js'
import type { OwnStatusLists } from '../../src/status/status-list-source.js'
import { encodedList } from './list-server.js'

const PUBLIC_URL = 'https://vault.example/base'
let service: IdentityService
beforeAll(async () => {
  service = await IdentityService.create({ storage: createMemoryStorage(), masterKey: randomMasterKey() })
})
afterAll(() => service?.close())

const signer = new LocalSigner(generatePrivateKey())
const issuer = `did:ethr:dev:${signer.address}`
const listJwt = (set: number[]) =>
  createVerifiableCredentialJwt(
    {
      vc: {
        '@context': [CREDENTIALS_V1_URL],
        type: ['VerifiableCredential', 'BitstringStatusListCredential'],
        credentialSubject: { type: 'BitstringStatusList', statusPurpose: ['revocation', 'suspension'], encodedList: encodedList(set) },
      },
    },
    { did: issuer, signer: didJwtSigner(signer), alg: 'ES256K' },
  )
const entry = (index: number, listId = 'list-1', purpose = 'revocation') => ({
  type: 'BitstringStatusListEntry',
  statusPurpose: purpose,
  statusListIndex: String(index),
  statusListCredential: `${PUBLIC_URL}/status/${listId}`,
})

describe('own status lists', () => {
  it('are read from the port, re-read when the ETag changes, and not found when the port has none', async () => {
    const stored = new Map<string, { credential: string; etag: string }>([['list-1', { credential: await listJwt([3]), etag: '"1"' }]])
    const reads: string[] = []
    const own: OwnStatusLists = {
      get: (listId) => {
        reads.push(listId)
        return Promise.resolve(stored.get(listId))
      },
    }
    const verifier = new StatusVerifier({ publicUrl: `${PUBLIC_URL}/`, own })
    const options = { resolver: service.resolver, now: Date.now() }
    // Each call a request of its own: within one, each list is read once.
    const check = (status: unknown) => verifier.forRequest()({ issuer, credentialStatus: status }, options)
    expect((await check([entry(3), entry(4), entry(3, 'list-1', 'suspension')])).map((c) => [c.verified, c.reason])).toEqual([
      [false, 'revoked'],
      [true, undefined],
      [false, 'suspended'],
    ])
    stored.set('list-1', { credential: await listJwt([4]), etag: '"2"' })
    expect((await check([entry(3), entry(4)])).map((c) => [c.verified, c.reason])).toEqual([
      [true, undefined],
      [false, 'revoked'],
    ])
    expect(await check(entry(1, 'list-2'))).toMatchObject([
      { reason: 'listUnavailable', error: 'status list: not found among the service’s lists' },
    ])
    expect(await check(entry(1, '..%2Fx'))).toMatchObject([{ reason: 'listUnavailable' }])
    expect(reads).toEqual(['list-1', 'list-1', 'list-2'])
  })

  it('refuses an origin that is not https (http only on loopback) and a publicUrl that is not absolute', () => {
    expect(() => new StatusVerifier({ origins: ['http://lists.example'] })).toThrow(/statusListOrigins/)
    expect(() => new StatusVerifier({ origins: ['https://lists.example/path'] })).toThrow(/statusListOrigins/)
    expect(() => new StatusVerifier({ origins: ['https://lists.example', 'http://localhost:8080'] })).not.toThrow()
    expect(() => new StatusVerifier({ publicUrl: '/relative' })).toThrow(/publicUrl/)
  })
})

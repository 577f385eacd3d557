/**
 * The publisher signs a Status List Token again at half its lifetime (issue 31 *Precisely*): after it publishes a
 * token, its timer (faked here: no sleeping) fires at half the token's lifetime and stores a new signature with a new
 * `iat` and `exp`, without any change or GET.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest'
import { IdentityService, createMemoryStorage, randomMasterKey, staticTenants } from '../../../src/index.js'
import { collectionOf } from '../../../src/storage/declaration.js'
import { STATUS_LISTS } from '../../../src/status/records.js'

const API_KEY = 'tsl-renewal-api-key-0123456789'
const authorization = `Bearer ${API_KEY}`
const storage = createMemoryStorage()
let clock = 1_900_000_000_000
let service: IdentityService

beforeAll(async () => {
  service = await IdentityService.create({
    storage,
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [API_KEY]: 'tenant-a' }),
    publicUrl: 'https://status.example.com',
    statusPublishIntervalMs: 60_000,
    statusListSize: 16,
    statusLists: { tokenLifetimeMs: 10_000, tokenTtlMs: 5_000 },
    now: () => clock,
  })
})
afterAll(() => service?.close())
afterEach(() => vi.useRealTimers())

it('re-signs a published token at half its lifetime, by the publisher’s timer', async () => {
  const { wallet } = await service.as({ authorization }).generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })
  const as = service.as({ authorization, didAuth: (await service.as({ authorization }).generateToken({ iss: wallet.did })).jwt })
  const { vcs } = await as.signClaims({
    iss: wallet.did,
    format: 'SD-JWT',
    sub: wallet.did,
    status: { purposes: ['revocation'] },
    claims: [{ vct: 'Identity', payload: { n: 1 } }],
  })
  const uri = (
    JSON.parse(Buffer.from((vcs[0] as { sdjwt: string }).sdjwt.split('.')[1], 'base64url').toString()) as {
      status: { status_list: { uri: string } }
    }
  ).status.status_list.uri
  const listId = uri.split('/').pop()!
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  await service.publishStatusLists()
  const lists = collectionOf(storage, STATUS_LISTS)
  const first = (await lists.get(listId))!
  expect(first.expiresAt).toBe(first.signedAt! + 10_000 - (first.signedAt! % 1000))
  clock += 4_000
  await vi.advanceTimersByTimeAsync(4_000)
  expect((await lists.get(listId))!.etag).toBe(first.etag)
  clock += 1_000
  await vi.advanceTimersByTimeAsync(1_000)
  await vi.waitFor(async () => expect((await lists.get(listId))!.etag).not.toBe(first.etag))
  const renewed = (await lists.get(listId))!
  const payload = JSON.parse(Buffer.from((renewed.credential as string).split('.')[1], 'base64url').toString()) as Record<string, number>
  expect(payload.iat).toBe(Math.floor(clock / 1000))
  expect(payload.exp - payload.iat).toBe(10)
  expect(payload.ttl).toBe(5)
})

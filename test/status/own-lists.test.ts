/**
 * Lists under the service's `publicUrl` are read through the `OwnStatusLists` port, never over
 * HTTP nor from a signed copy: each check reads the entry's bit as the port holds it now; the
 * checks of `StatusVerifier` directly.
 */
import { describe, expect, it } from 'vitest'
import { StatusVerifier } from '../../src/status/verify-status.js'
import type { OwnStatusLists } from '../../src/status/status-list-source.js'

const PUBLIC_URL = 'https://vault.example/base'
const issuer = 'did:ethr:dev:0x1111111111111111111111111111111111111111'
const entry = (index: number, listId = 'list-r', purpose = 'revocation') => ({
  type: 'BitstringStatusListEntry',
  statusPurpose: purpose,
  statusListIndex: String(index),
  statusListCredential: `${PUBLIC_URL}/status/${listId}`,
})

describe('own status lists', () => {
  it('are read from the port as it is at each check, and not found when the port has none', async () => {
    const lists = new Map([
      ['list-r', { issuer, purpose: 'revocation', size: 16, set: new Set([3]) }],
      ['list-s', { issuer, purpose: 'suspension', size: 16, set: new Set([3]) }],
    ])
    const reads: string[] = []
    const own: OwnStatusLists = {
      entry: (listId, index) => {
        reads.push(`${listId} ${index}`)
        const list = lists.get(listId)
        return Promise.resolve(list && { issuer: list.issuer, purpose: list.purpose, size: list.size, value: list.set.has(index) })
      },
    }
    const verifier = new StatusVerifier({ publicUrl: `${PUBLIC_URL}/`, own })
    const options = { resolver: { resolve: () => Promise.reject(new Error('no resolution for own lists')) } as never, now: Date.now() }
    // Each call a request of its own: within one, each entry is read once.
    const check = (status: unknown, from = issuer) => verifier.forRequest()({ issuer: from, credentialStatus: status }, options)
    const outcome = async (status: unknown, from?: string) => (await check(status, from)).map((c) => [c.verified, c.reason])
    expect(await outcome([entry(3), entry(4), entry(3, 'list-s', 'suspension'), entry(3)])).toEqual([
      [false, 'revoked'],
      [true, undefined],
      [false, 'suspended'],
      [false, 'revoked'],
    ])
    // A change is seen by the next check: nothing to publish or sign first.
    lists.get('list-r')!.set = new Set([4])
    expect(await outcome([entry(3), entry(4)])).toEqual([
      [true, undefined],
      [false, 'revoked'],
    ])
    expect(await outcome(entry(16))).toEqual([[false, 'indexOutOfRange']])
    expect(await outcome(entry(3, 'list-s', 'revocation'))).toEqual([[false, 'purposeMismatch']])
    expect(await outcome(entry(3), 'did:ethr:dev:0x2222222222222222222222222222222222222222')).toEqual([[false, 'issuerMismatch']])
    expect(await check(entry(1, 'list-2'))).toMatchObject([
      { reason: 'listUnavailable', error: 'status list: not found among the service’s lists' },
    ])
    expect(await check(entry(1, '..%2Fx'))).toMatchObject([{ reason: 'listUnavailable' }])
    expect(reads).toEqual(['list-r 3', 'list-r 4', 'list-s 3', 'list-r 3', 'list-r 4', 'list-r 16', 'list-s 3', 'list-r 3', 'list-2 1'])
  })

  it('refuses an origin that is not https (http only on loopback) and a publicUrl that is not absolute', () => {
    expect(() => new StatusVerifier({ origins: ['http://lists.example'] })).toThrow(/statusListOrigins/)
    expect(() => new StatusVerifier({ origins: ['https://lists.example/path'] })).toThrow(/statusListOrigins/)
    expect(() => new StatusVerifier({ origins: ['https://lists.example', 'http://localhost:8080'] })).not.toThrow()
    expect(() => new StatusVerifier({ publicUrl: '/relative' })).toThrow(/publicUrl/)
  })
})

/**
 * The Token Status List mechanism of the issuing-side status port (src/status/mechanisms): what each status change
 * makes of an entry (revocation final), the claim an SD-JWT VC carries, and the Status List Token it signs — `exp` =
 * `iat` + the lifetime and `ttl`, none for an MPC issuer's list (signed only by requests with its quorum) — read back
 * by `@sd-jwt/jwt-status-list`.
 */
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bitstringMechanism } from '../../../src/status/mechanisms/bitstring.js'
import { mechanismOf } from '../../../src/status/mechanisms/index.js'
import { tokenStatusListMechanism as tsl } from '../../../src/status/mechanisms/token-status-list.js'
import type { StatusListRecord } from '../../../src/status/records.js'
import { verifyStatusListToken } from '../../../src/status/token-status-list/index.js'
import { openKeyPort, portIdentity, resolver } from '../../credentials/sd-jwt/helpers.js'

describe('Token Status List mechanism', () => {
  it('is the mechanism of SD-JWT VCs; JSON-LD and VC-JWT keep Bitstring lists', () => {
    expect(mechanismOf('SD-JWT')).toBe(tsl)
    expect(mechanismOf('JWT')).toBe(bitstringMechanism)
    expect(mechanismOf('JSON-LD')).toBe(bitstringMechanism)
  })

  it('maps purposes to statuses: revocation 1 (final), suspension 2 and back to 0', () => {
    expect(tsl.next(0, 'revocation', true)).toBe(1)
    expect(tsl.next(2, 'revocation', true)).toBe(1)
    expect(tsl.next(0, 'revocation', false)).toBe(0)
    expect(tsl.next(2, 'revocation', false)).toBe(2)
    expect(tsl.next(0, 'suspension', true)).toBe(2)
    expect(tsl.next(2, 'suspension', false)).toBe(0)
    expect(tsl.next(1, 'revocation', true)).toBe(1)
    for (const [purpose, value] of [
      ['revocation', false],
      ['suspension', true],
      ['suspension', false],
    ] as const)
      expect(tsl.next(1, purpose, value)).toMatch(/revocation is final/)
    expect(tsl.claimOf([{ url: 'https://x.example/status/a', index: 7, purpose: 'revocation' }])).toEqual([
      { status_list: { idx: 7, uri: 'https://x.example/status/a' } },
    ])
  })

  describe('signs a Status List Token', () => {
    let port: Awaited<ReturnType<typeof openKeyPort>>
    beforeAll(async () => {
      port = await openKeyPort()
    })
    afterAll(() => port?.close())

    const list = (issuer: string): StatusListRecord => ({
      id: 'L1',
      tenantId: 't',
      issuer,
      purpose: 'revocation',
      format: 'SD-JWT',
      size: 16,
      baseUrl: 'https://vault.example.com',
      full: false,
      allocated: 3,
      version: 3,
      signedVersion: -1,
      createdAt: 0,
    })

    for (const quorum of [false, true]) {
      it(quorum ? 'of an MPC issuer: no exp' : 'exp = iat + lifetime, ttl, the statuses set', async () => {
        const id = await portIdentity(port.keys, 'Ed25519')
        const now = 1_800_000_000_000
        const signed = await tsl.sign({
          list: list(id.did),
          statuses: new Map([
            [3, 1],
            [9, 2],
          ]),
          signer: id.signer,
          now,
          quorum,
          resolver,
          lifetimeMs: 86_400_000,
          ttlMs: 300_000,
        })
        const token = signed.credential as string
        const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>
        expect(payload).toMatchObject({ sub: 'https://vault.example.com/status/L1', iat: 1_800_000_000, ttl: 300 })
        if (quorum) {
          expect(payload).not.toHaveProperty('exp')
          expect(signed.expiresAt).toBeUndefined()
        } else {
          expect(payload.exp).toBe(1_800_000_000 + 86_400)
          expect(signed.expiresAt).toBe((1_800_000_000 + 86_400) * 1000)
        }
        const read = getListFromStatusListJWT(token)
        expect([0, 3, 9, 15].map((i) => read.getStatus(i))).toEqual([0, 1, 2, 0])
        const uri = 'https://vault.example.com/status/L1'
        expect(await verifyStatusListToken(token, { resolver, uri, now })).toMatchObject({ verified: true, issuer: id.did })
      })
    }
  })
})

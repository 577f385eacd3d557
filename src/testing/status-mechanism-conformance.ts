/**
 * The status-mechanism conformance suite of `didvault/testing`: what every mechanism behind the issuing-side status
 * port (`StatusMechanism`, src/status/mechanisms/port.ts) must do — name allocated entries in a credential's status
 * claim, set and clear a status (revocation final), publish a signed list from which a verifier reads back the status
 * set, and refuse an index out of the list's range. Both mechanisms run it (test/status/mechanisms-conformance.test.ts);
 * a new mechanism runs it with one call.
 */
import type { Resolvable } from 'did-resolver'
import { describe, expect, it } from 'vitest'
import type { KeySigner } from '../keys/signer.js'
import type { AllocatedEntry, SignedListDocument, StatusMechanism } from '../status/mechanisms/port.js'
import type { StatusListRecord } from '../status/records.js'
import { fixturePerTest } from './fixture-per-test.js'

/** What the factory given to {@link runStatusMechanismConformance} returns. */
export interface StatusMechanismFixture {
  /** A list of the mechanism (its format, size and base URL), whose issuer's key is {@link signer}'s, never signed. */
  list: StatusListRecord
  signer: KeySigner
  /** Resolves the list's issuer. */
  resolver: Resolvable
  /**
   * The status at `index` of a list the mechanism signed, read as a verifier reads it (its signature verified); rejects
   * when the list does not verify.
   */
  read(signed: SignedListDocument, list: StatusListRecord, index: number): Promise<number>
  /** Called after each test. */
  cleanup?: () => Promise<void>
}

const NOW = Date.UTC(2026, 0, 1)
const DAY = 86_400_000

/**
 * Declares the conformance suite of `mechanism`. `factory` makes a list, its issuer's key and a resolver, and the
 * verifier's read of a signed list, before each test.
 */
export function runStatusMechanismConformance(mechanism: StatusMechanism, factory: () => Promise<StatusMechanismFixture>): void {
  describe(`status mechanism conformance: ${mechanism.name}`, () => {
    const fixture = fixturePerTest(factory, 'status mechanism')
    const sign = (statuses: ReadonlyMap<number, number>) => {
      const { list, signer, resolver } = fixture()
      return mechanism.sign({ list, statuses, signer, now: NOW, quorum: false, resolver, lifetimeMs: DAY, ttlMs: 300_000 })
    }

    it('names every allocated entry (list URL and index) in the status claim of a credential', () => {
      const entries: AllocatedEntry[] = [
        { url: 'https://vault.example.com/status/a', index: 7, purpose: 'revocation' },
        { url: 'https://vault.example.com/status/b', index: 11, purpose: 'suspension' },
      ]
      const claims = mechanism.claimOf(mechanism.entries === 'perPurpose' ? entries : entries.slice(0, 1))
      expect(claims).toHaveLength(mechanism.entries === 'perPurpose' ? 2 : 1)
      claims.forEach((claim, at) => {
        const { url, index } = entries[at]
        const text = JSON.stringify(claim)
        expect(text).toContain(JSON.stringify(url))
        expect(text).toMatch(new RegExp(`[":]${index}"?[,}]`))
      })
    })

    it('sets and clears a suspension; sets a revocation, which is final', () => {
      const suspended = mechanism.next(0, 'suspension', true)
      expect(suspended).toEqual(expect.any(Number))
      expect(suspended).not.toBe(0)
      expect(mechanism.valueFor(suspended as number, 'suspension')).toBe(true)
      const cleared = mechanism.next(suspended as number, 'suspension', false)
      expect(cleared).toBe(0)
      expect(mechanism.valueFor(0, 'suspension')).toBe(false)
      const revoked = mechanism.next(0, 'revocation', true)
      expect(revoked).not.toBe(0)
      expect(mechanism.valueFor(revoked as number, 'revocation')).toBe(true)
      expect(mechanism.next(revoked as number, 'revocation', false)).toEqual(expect.stringMatching(/final/))
    })

    it('publishes a signed list a verifier reads the statuses back from: set, then cleared', async () => {
      const { list } = fixture()
      const read = (signed: SignedListDocument, list: StatusListRecord, index: number) => fixture().read(signed, list, index)
      const status = mechanism.next(0, list.purpose, true) as number
      const signed = await sign(new Map([[3, status]]))
      expect(signed.encodedList).toMatch(/^\S+$/)
      if (signed.expiresAt !== undefined) expect(signed.expiresAt).toBeGreaterThan(NOW)
      expect(mechanism.mediaType(list)).toMatch(/^application\/\S+$/)
      expect(await read(signed, list, 3)).toBe(status)
      for (const other of [0, 2, 4, list.size - 1]) expect(await read(signed, list, other)).toBe(0)
      if (list.purpose === 'suspension') {
        const cleared = mechanism.next(status, 'suspension', false) as number
        expect(await read(await sign(new Map(cleared === 0 ? [] : [[3, cleared]])), list, 3)).toBe(0)
      }
    })

    it('refuses to publish a status at an index out of the list’s range', async () => {
      for (const index of [fixture().list.size, fixture().list.size + 8, -1]) {
        await expect(sign(new Map([[index, 1]])), String(index)).rejects.toThrow()
      }
    })
  })
}

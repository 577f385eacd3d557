/**
 * The audit test that enumerates the operation table: an operation that signs with a wallet's key,
 * or can refuse (403 FORBIDDEN), declares an audit action — so no new operation can sign or refuse
 * unseen. Declared: `signs` in the table entry, `audit` in the contract. Held to the truth by running
 * every operation's cases (`test/helpers/operation-cases.ts`, which call every operation) on a real
 * service, noting which operations took a wallet's signer and which refused.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createMemoryStorage, IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import { OPERATIONS } from '../../src/service/table.js'
import type { OperationName } from '../../src/service/contracts.js'
import { AUDIT_ACTIONS } from '../../src/audit/schemas.js'
import { WalletSigners } from '../../src/wallets/signers.js'
import { API_KEYS, OPERATION_CASES, emptyFixture } from '../helpers/operation-cases.js'

const NAMES = Object.keys(OPERATIONS) as OperationName[]
type Entry = { auth: string; audit?: { action: string }; signs?: 'caller' | 'publisher' }
const entry = (name: OperationName) => OPERATIONS[name] as unknown as Entry

/**
 * The operations that change nothing and refuse nothing (a read answers what the caller may see and
 * treats the rest as missing): the only authenticated ones without an audit action. Adding to this
 * list is a reviewed decision; a new operation missing from it and from the audit actions fails.
 */
const READS_ONLY: OperationName[] = [
  'getWallets',
  'getVaults',
  'getRoles',
  'getRoleAssignments',
  'getClaims',
  'verifyClaims',
  'verifyPresentation',
  // Derives with no key (a selective disclosure by any holder) and writes nothing; a stored `_id` is read under the read rule.
  'deriveCredential',
  'getAuditRecords',
  // The console's reads: counts, the tenant's status lists, the audit chain's verification; they write nothing.
  'getOverview',
  'listStatusLists',
  'verifyAuditChain',
  'getCredentialConfigurations',
  // helper "deferred": lists the tenant's pending issuances, writes nothing
  'getDeferredCredentials',
]

describe('the operation table declares every use of a key and every refusal', () => {
  it('an operation that signs for its caller declares an audit action of the trail', () => {
    const missing = NAMES.filter((name) => entry(name).signs === 'caller' && entry(name).audit === undefined)
    expect(missing).toEqual([])
  })

  it('every declared audit action is one the trail records', () => {
    const actions = NAMES.flatMap((name) => entry(name).audit?.action ?? [])
    expect(actions.filter((a) => !(AUDIT_ACTIONS as readonly string[]).includes(a))).toEqual([])
  })

  it('an authenticated operation without an audit action is a read that refuses nothing, and signs nothing', () => {
    const undeclared = NAMES.filter((name) => entry(name).auth !== 'public' && entry(name).audit === undefined)
    expect(undeclared.sort()).toEqual([...READS_ONLY].sort())
    expect(READS_ONLY.filter((name) => entry(name).signs !== undefined)).toEqual([])
  })

  it('a public operation signs only as the publisher (recorded with actor { system: "publisher" })', () => {
    expect(NAMES.filter((name) => entry(name).auth === 'public' && entry(name).signs === 'caller')).toEqual([])
  })
})

describe('held to the truth: every operation’s cases run, each signature and refusal noted', () => {
  let service: IdentityService
  const signed = new Set<OperationName>()
  const refused = new Set<OperationName>()
  beforeAll(async () => {
    service = await IdentityService.create({
      storage: createMemoryStorage(),
      masterKey: randomMasterKey(),
      tenants: staticTenants({ [API_KEYS.a]: 'a', [API_KEYS.b]: 'b' }),
      publicUrl: 'https://status.example.com',
    })
    const fixture = emptyFixture()
    // The operation a signature is made for: that of the case running (a publisher timer a case set carries its case).
    const current = new AsyncLocalStorage<OperationName>()
    const signerFor = WalletSigners.prototype.signerFor
    const spy = vi.spyOn(WalletSigners.prototype, 'signerFor').mockImplementation(function (this: WalletSigners, ...args) {
      const operation = current.getStore()
      if (operation !== undefined) signed.add(operation)
      return signerFor.apply(this, args)
    })
    try {
      for (const c of OPERATION_CASES) {
        const method = service.as(c.auth(fixture))[c.operation] as (input: unknown) => Promise<unknown>
        const outcome = await current
          .run(c.operation, () => method(c.input(fixture)))
          .then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          )
        if ('error' in outcome) {
          if ((outcome.error as { errorType?: unknown }).errorType === 'FORBIDDEN') refused.add(c.operation)
          continue
        }
        const errors = (outcome.result as { errors?: Array<{ error?: { errorType?: unknown } }> }).errors ?? []
        if (errors.some((e) => e.error?.errorType === 'FORBIDDEN')) refused.add(c.operation)
        c.then?.(outcome.result as never, fixture)
      }
    } finally {
      spy.mockRestore()
    }
  }, 120_000)
  afterAll(() => service?.close())

  it('the cases call every operation', () => {
    const called = new Set(OPERATION_CASES.map((c) => c.operation))
    expect(NAMES.filter((name) => !called.has(name))).toEqual([])
  })

  it('every operation that took a wallet’s signer declares that it signs', () => {
    expect(signed.size).toBeGreaterThan(3)
    expect([...signed].filter((name) => entry(name).signs === undefined)).toEqual([])
  })

  it('every operation that refused (403 FORBIDDEN) declares an audit action', () => {
    expect([...refused].filter((name) => entry(name).audit === undefined)).toEqual([])
  })
})

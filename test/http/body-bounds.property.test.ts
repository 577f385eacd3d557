/**
 * Property (issue 28 finding 1): deep and wide bodies — chains of arrays and objects up to twice
 * `limits.depth`, siblings at every level, wide arrays of thousands of strings — with U+0000 or a
 * lone surrogate at depth, in a key or a value, sent to operations of every kind of caller: never
 * a 5xx, exactly the error the request check owes (computed apart, by `expectedRefusal`: too deep,
 * else the path of the first such string in the text), the embedded API refusing the same value
 * with the same body, and nothing written. DIDVAULT_PROPERTY_SEED replays a run.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { IdentityError, type IdentityService } from '../../src/index.js'
import { snapshot, startHarness, TENANT_A, walletWithToken, type Harness } from '../helpers/harness.js'
import { expectedRefusal } from '../helpers/hostile-bodies.js'

const LIMIT = 64
const SEED = Number(process.env.DIDVAULT_PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31))
console.log(`[body bounds] seed ${SEED} (DIDVAULT_PROPERTY_SEED=${SEED} to replay)`)

/** Operations of each kind of caller (a tenant; a tenant and a DID), by route and embedded name. */
const OPERATIONS = [
  { path: '/wallet', name: 'generateWallet', field: 'wallet', didAuth: false },
  { path: '/vaults', name: 'createVault', field: 'name', didAuth: false },
  { path: '/claims/verify', name: 'verifyClaims', field: 'claims', didAuth: true },
  { path: '/claims/sign', name: 'signClaims', field: 'claims', didAuth: true },
] as const

/** Strings no request may hold: U+0000 and lone surrogates, alone or among other characters. */
const unstorable = fc.constantFrom('\u0000', 'a\u0000', '\ud800', 'x\udc00y', '\udbff', '\u0000\udfff', '😀\ud83d')
const clean = fc.string({ maxLength: 8 })
const key = fc.stringMatching(/^[a-z]{1,6}$/)

/** One level of a chain: an array or an object, with clean siblings before and after the way down. */
const level = fc.record({
  kind: fc.constantFrom('array', 'object'),
  key,
  before: fc.array(fc.tuple(key, clean), { maxLength: 3 }),
  after: fc.array(fc.tuple(key, clean), { maxLength: 3 }),
})

/** A body: a chain of levels under the operation's field, holding an unstorable string as a key or a value, maybe beside a wide array. */
const body = fc.record({
  operation: fc.constantFrom(...OPERATIONS),
  levels: fc.oneof(fc.array(level, { minLength: 1, maxLength: 20 }), fc.array(level, { minLength: 40, maxLength: 2 * LIMIT })),
  bad: unstorable,
  badIsKey: fc.boolean(),
  wide: fc.option(fc.tuple(fc.integer({ min: 1, max: 5_000 }), fc.nat(), clean), { nil: undefined }),
})

type Body = typeof body extends fc.Arbitrary<infer T> ? T : never

/** The body's value, built from its innermost level out. */
function valueOf(b: Body): Record<string, unknown> {
  let inner: unknown = b.badIsKey ? { [b.bad]: 1 } : b.bad
  b.levels.forEach((l, i) => {
    // Siblings' keys start with `_`, the way down's never: no sibling replaces it.
    const siblings = (pairs: Array<[string, string]>) => pairs.map(([k, v]) => (l.kind === 'array' ? v : ([`_${k}`, v] as const)))
    if (b.wide !== undefined && i === b.wide[1] % b.levels.length) {
      // A wide array of clean strings beside the way down.
      const [count, , text] = b.wide
      inner = l.kind === 'array' ? [Array<string>(count).fill(text), inner] : { _wide: Array<string>(count).fill(text), [l.key]: inner }
      return
    }
    if (l.kind === 'array') inner = [...(siblings(l.before) as string[]), inner, ...(siblings(l.after) as string[])]
    else
      inner = Object.fromEntries([
        ...(siblings(l.before) as Array<[string, string]>),
        [l.key, inner],
        ...(siblings(l.after) as Array<[string, string]>),
      ])
  })
  return { [b.operation.field]: inner }
}

let h: Harness
let didAuth: string
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
  didAuth = (await walletWithToken(h)).jwt
}, 60_000)
afterAll(() => h?.close())

async function embedded(service: IdentityService, name: string, input: unknown, withDid: boolean): Promise<unknown> {
  const call = (service as unknown as Record<string, (input: unknown, auth: object) => Promise<unknown>>)[name]
  const auth = { authorization: `Bearer ${TENANT_A}`, ...(withDid && { didAuth }) }
  return call.call(service, input, auth).then(
    () => 'accepted',
    (err: unknown) => (err instanceof IdentityError ? err.toJSON() : err),
  )
}

it('deep and wide bodies with U+0000 or a lone surrogate at depth: the exact 422, embedded alike, never a 5xx, nothing written', async () => {
  await fc.assert(
    fc.asyncProperty(body, async (b) => {
      const value = valueOf(b)
      const expected = { statusCode: 422, errorType: 'VALIDATION_ERROR', errorMessage: expectedRefusal(value, LIMIT) }
      expect(expected.errorMessage).toBeDefined()
      const before = await snapshot(h)
      const { path, name, didAuth: withDid } = b.operation
      const res = await h.request('POST', path, { json: value, ...(withDid && { didAuth }) })
      expect(res.status).toBeLessThan(500)
      expect(res.body).toEqual(expected)
      expect(await embedded(h.service, name, value, withDid)).toEqual(expected)
      expect(await snapshot(h)).toEqual(before)
    }),
    { numRuns: 150, seed: SEED },
  )
}, 60_000)

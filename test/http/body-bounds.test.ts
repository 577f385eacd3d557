/**
 * `limits.depth` (issue 28 finding 1, High): one small authenticated body froze the service — U+0000
 * nested 25,000 arrays deep (49 KiB) in `POST /wallet` held the event loop 3–5 s, quadratic in the
 * depth, because the request-string check walked the parsed body before any depth bound and
 * copied the whole path at every level. Now every body is checked on its text before it is parsed
 * (depth past the limit: 422 naming `limits.depth`; U+0000 or a lone surrogate: 422 naming its path),
 * the embedded API applies the same checks to its input objects, and nothing is written on a refusal.
 * The served process under these bodies: body-bounds-served.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityError, IdentityService, createMemoryStorage, randomMasterKey } from '../../src/index.js'
import { expectError, snapshot, startHarness, TENANT_A, walletWithToken, type Harness } from '../helpers/harness.js'
import {
  DEEP_NUL_BODY,
  LONE_SURROGATE,
  NUL,
  TOO_DEEP,
  expectedRefusal,
  expectedWalletRefusal,
  nested,
  worstAdmittedBodies,
} from '../helpers/hostile-bodies.js'

const AUTH = { authorization: `Bearer ${TENANT_A}` }

/** The embedded API's answer to `input` for operation `name`: the error body it rejects with. */
async function embeddedRefusal(service: IdentityService, name: 'generateWallet' | 'verifyClaims', input: unknown, didAuth?: string) {
  const auth = { ...AUTH, ...(didAuth && { didAuth }) }
  const call = service[name] as (input: unknown, auth: object) => Promise<unknown>
  const err = await call.call(service, input, auth).then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(err instanceof IdentityError)) throw new Error(`${name}: expected an IdentityError, got ${String(err)}`)
  return err.toJSON()
}

const refusal = (errorMessage: string) => ({ statusCode: 422, errorType: 'VALIDATION_ERROR', errorMessage })

describe.each([
  ['memory', 'memory'],
  ['SQLite (a real file)', 'sqlite'],
] as const)('limits.depth on %s', (_name, storage) => {
  let h: Harness
  let holder: { did: string; jwt: string }
  const post = (path: string, body: string, didAuth?: string) =>
    h.request('POST', path, { body, headers: { 'content-type': 'application/json' }, ...(didAuth && { didAuth }) })

  beforeAll(async () => {
    h = await startHarness({ storage })
    holder = await walletWithToken(h)
  }, 60_000)
  afterAll(() => h?.close())

  it("the probe's body — U+0000 25,000 arrays deep, 49 KiB — and its kin (objects, a lone surrogate): 422 naming limits.depth, nothing written", async () => {
    expect(Buffer.byteLength(DEEP_NUL_BODY)).toBeLessThan(50 * 1024)
    const before = await snapshot(h)
    const bodies = [
      DEEP_NUL_BODY,
      `{"wallet":${nested(25_000, NUL, 'objects')}}`,
      `{"wallet":${nested(25_000, LONE_SURROGATE, 'arrays')}}`,
      // Half a million levels: the most 1 MiB can nest.
      `{"wallet":${nested(500_000, NUL, 'arrays')}}`,
    ]
    for (const body of bodies) {
      const res = await post('/wallet', body)
      expect(res.status).toBe(422)
      expect(res.body).toEqual(refusal(TOO_DEEP(64)))
      // The embedded API refuses the same input, as objects.
      expect(await embeddedRefusal(h.service, 'generateWallet', JSON.parse(body))).toEqual(refusal(TOO_DEEP(64)))
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('at the limit the body passes the depth check (arrays and objects); one level more is 422; over HTTP and embedded alike', async () => {
    // `{"claims":[{"jsonld":{… "credentialSubject":{"deep": <chain>}}}]}`: the credential is level 4, its subject 5.
    const verifyBody = (chain: number, kind: 'arrays' | 'objects', leaf = '0') =>
      `{"claims":[{"jsonld":{"@context":["https://www.w3.org/2018/credentials/v1"],"type":["VerifiableCredential"],` +
      `"issuer":"${holder.did}","issuanceDate":"2024-01-01T00:00:00Z","credentialSubject":{"deep":${nested(chain, leaf, kind)}}}}]}`
    const before = await snapshot(h)
    for (const kind of ['arrays', 'objects'] as const) {
      const atLimit = verifyBody(59, kind)
      expect(expectedRefusal(JSON.parse(atLimit), 64)).toBeUndefined()
      const res = await post('/claims/verify', atLimit, holder.jwt)
      // Past the request check, the credential is judged by the JSON-LD bounds (32 levels): not verified, in a 200.
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.vcs[0].verified).toBe(false)
      expect(JSON.stringify(res.body.vcs[0])).toContain('maxDepth')

      const overLimit = verifyBody(60, kind)
      expect(expectedRefusal(JSON.parse(overLimit), 64)).toBe(TOO_DEEP(64))
      expect((await post('/claims/verify', overLimit, holder.jwt)).body).toEqual(refusal(TOO_DEEP(64)))
      expect(await embeddedRefusal(h.service, 'verifyClaims', JSON.parse(overLimit), holder.jwt)).toEqual(refusal(TOO_DEEP(64)))

      // U+0000 at exactly the limit: past the depth check, named by its path.
      const nulAtLimit = verifyBody(59, kind, NUL)
      const named = expectedRefusal(JSON.parse(nulAtLimit), 64)!
      expect(named).toMatch(/^invalid request: claims\.0\.jsonld\.credentialSubject\.deep\.(0|a)\.(?:\1\.){57}\1: U\+0000 is not/)
      expect((await post('/claims/verify', nulAtLimit, holder.jwt)).body).toEqual(refusal(named))
      expect(await embeddedRefusal(h.service, 'verifyClaims', JSON.parse(nulAtLimit), holder.jwt)).toEqual(refusal(named))
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('the worst 1 MiB bodies the limit admits: each refused with its exact error (the path of the string last and deepest), nothing written', async () => {
    const before = await snapshot(h)
    for (const { name, text } of worstAdmittedBodies(1024 * 1024, 64)) {
      expect(Buffer.byteLength(text), name).toBeLessThanOrEqual(1024 * 1024)
      const value = JSON.parse(text) as unknown
      const expected = expectedWalletRefusal(value, 64)
      const res = await post('/wallet', text)
      expect(res.body, name).toEqual(refusal(expected))
      expect(await embeddedRefusal(h.service, 'generateWallet', value), name).toEqual(refusal(expected))
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('the scan reads UTF-8: a body declaring another charset is 422 (UTF-16 was decoded before), nothing written', async () => {
    const before = await snapshot(h)
    for (const charset of ['utf-16le', 'utf-16be', 'utf-32']) {
      const res = await h.request('POST', '/wallet', {
        body: Buffer.from('{"wallet":{}}', 'utf16le'),
        headers: { 'content-type': `application/json; charset=${charset}` },
      })
      expect(res.body).toEqual(refusal('unsupported body encoding'))
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('embedded inputs HTTP cannot carry: a cycle is too deep; a shared object met 2^60 ways is walked once per depth', async () => {
    const before = await snapshot(h)
    const cycle: Record<string, unknown> = { alias: 'x' }
    cycle.self = cycle
    expect(await embeddedRefusal(h.service, 'generateWallet', { wallet: cycle })).toEqual(refusal(TOO_DEEP(64)))
    // Clean: the whole value is walked (a walk by paths would take 2^60 steps), then the schema refuses it.
    let shared: unknown = ['fine']
    for (let i = 0; i < 60; i++) shared = [shared, shared]
    expect(await embeddedRefusal(h.service, 'generateWallet', { wallet: shared })).toEqual(
      refusal('invalid request: wallet: Invalid input: expected object, received array'),
    )
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('limits.depth configured', () => {
  it('the router and the embedded API enforce the configured depth, and the 422 names it', async () => {
    const h = await startHarness({ service: { limits: { depth: 100 } } })
    try {
      const at = `{"wallet":${nested(99, NUL, 'arrays')}}`
      expect((await h.request('POST', '/wallet', { body: at, headers: { 'content-type': 'application/json' } })).body).toEqual(
        refusal(expectedRefusal(JSON.parse(at), 100)!),
      )
      const over = `{"wallet":${nested(100, NUL, 'arrays')}}`
      expectError(
        await h.request('POST', '/wallet', { body: over, headers: { 'content-type': 'application/json' } }),
        422,
        'VALIDATION_ERROR',
      )
      expect((await h.request('POST', '/wallet', { body: over, headers: { 'content-type': 'application/json' } })).body).toEqual(
        refusal(TOO_DEEP(100)),
      )
      expect(await embeddedRefusal(h.service, 'generateWallet', JSON.parse(over))).toEqual(refusal(TOO_DEEP(100)))
    } finally {
      await h.close()
    }
  })

  it('IdentityService.create refuses a depth under limits.jsonld.maxDepth + 16, naming both', async () => {
    const create = (limits: object) => IdentityService.create({ storage: createMemoryStorage(), masterKey: randomMasterKey(), limits })
    await expect(create({ depth: 40 })).rejects.toThrow(
      'IdentityService.create: limits.depth must be at least limits.jsonld.maxDepth + 16 = 32 + 16 = 48, got 40',
    )
    await expect(create({ jsonld: { maxDepth: 100 } })).rejects.toThrow(
      'IdentityService.create: limits.depth must be at least limits.jsonld.maxDepth + 16 = 100 + 16 = 116, got 64',
    )
    await expect(create({ depth: 2_000 })).rejects.toThrow(
      'IdentityService.create: limits.depth must be an integer from 1 to 1024, got 2000',
    )
    const service = await create({ depth: 116, jsonld: { maxDepth: 100 } })
    expect(service.config.limits.depth).toBe(116)
    await service.close()
  })
})

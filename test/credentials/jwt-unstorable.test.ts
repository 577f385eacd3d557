/**
 * Issue 28, finding 3: a stored VC-JWT whose payload holds U+0000 or a lone surrogate — in any
 * string the service indexes (`jti`, `sub`, `iss`, `vc.type`, `vc.id`, subject ids, status
 * entries…) or anywhere else in it — is a 422 of its own item naming the field, the rest of the
 * batch stored, on every backend (PostgreSQL answered 500 for the whole batch). The request check
 * cannot see inside base64url; the store applies the same rule to the decoded payload. A property
 * test puts either at any position of any indexed field.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HARNESS_STORAGES, startHarness, tokenFor, type Harness } from '../helpers/harness.js'

const ISSUER = 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72'
const SUBJECT = 'did:ethr:dev:0x1111111111111111111111111111111111111111'

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
/** A VC-JWT (not signed: Store VCs without `verify` indexes what it decodes). */
const vcJwt = (payload: Record<string, unknown>) => `${b64({ alg: 'ES256K', typ: 'JWT' })}.${b64(payload)}.c2lnbmF0dXJl`

/** A payload with every indexed field, `n` making it unique. */
function payloadOf(n: string): Record<string, unknown> {
  return {
    iss: ISSUER,
    sub: SUBJECT,
    jti: `urn:uuid:${n}`,
    nbf: 1_700_000_000,
    vc: {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      id: `urn:uuid:${n}`,
      type: ['VerifiableCredential', 'MemberCredential'],
      credentialSubject: { id: SUBJECT, member: true },
      credentialStatus: {
        id: 'https://status.example/status/l1#7',
        type: 'BitstringStatusListEntry',
        statusPurpose: 'revocation',
        statusListIndex: '7',
        statusListCredential: 'https://status.example/status/l1',
      },
    },
  }
}

/** The indexed fields (paths into the payload) the property test spoils. */
const FIELDS = [
  ['jti'],
  ['sub'],
  ['iss'],
  ['vc', 'type', 1],
  ['vc', 'id'],
  ['vc', 'credentialSubject', 'id'],
  ['vc', 'credentialStatus', 'statusListCredential'],
  ['vc', 'credentialStatus', 'statusListIndex'],
] as const

function spoiled(payload: Record<string, unknown>, path: readonly (string | number)[], at: number, bad: string) {
  let parent = payload as Record<string | number, unknown>
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
  const last = path[path.length - 1]
  const value = String(parent[last])
  const i = at % (value.length + 1)
  parent[last] = value.slice(0, i) + bad + value.slice(i)
  return payload
}

describe.each(HARNESS_STORAGES)('Store VCs: U+0000 and lone surrogates inside a VC-JWT (%s)', (_label, storage) => {
  let h: Harness
  let didAuth: string
  beforeAll(async () => {
    h = await startHarness({ storage })
    didAuth = await tokenFor(h, (await h.request('POST', '/wallet', { json: {} })).body.wallet.did)
  }, 120_000)
  afterAll(() => h?.close())

  const store = (jwts: string[]) => h.request('POST', '/claims', { didAuth, json: { claims: jwts.map((jwt) => ({ jwt })) } })

  it('jti with U+0000 and vc.type with a lone surrogate: per-item 422 naming the field, the others stored', async () => {
    const res = await store([
      vcJwt(payloadOf('a-1')),
      vcJwt({ ...payloadOf('a-2'), jti: 'urn:uuid:a\u0000b' }),
      vcJwt(spoiled(payloadOf('a-3'), ['vc', 'type', 1], 3, '\ud800')),
      vcJwt(payloadOf('a-4')),
    ])
    expect(res.status).toBe(200)
    expect(res.body.vcs.map((v: { id: string }) => v.id)).toEqual(['urn:uuid:a-1', 'urn:uuid:a-4'])
    expect(res.body.errors).toEqual([
      {
        claim: 1,
        error: { statusCode: 422, errorType: 'VALIDATION_ERROR', errorMessage: expect.stringMatching(/payload\.jti: U\+0000/) },
      },
      {
        claim: 2,
        error: {
          statusCode: 422,
          errorType: 'VALIDATION_ERROR',
          errorMessage: expect.stringMatching(/payload\.vc\.type\.1: a lone surrogate/),
        },
      },
    ])
    const fetched = await h.request('GET', '/claims?ids=urn:uuid:a-1&ids=urn:uuid:a-4', { didAuth })
    expect(fetched.body.vcs).toHaveLength(2)
  })

  it('property: either character at any position of any indexed field → never 5xx, its item 422, the others stored', async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...FIELDS),
        fc.nat(200),
        fc.constantFrom('\u0000', '\ud800', '\udfff', 'x\ud834'),
        async (path, at, bad) => {
          run += 1
          const tag = `p-${storage}-${run}`
          const res = await store([
            vcJwt(payloadOf(`${tag}-ok1`)),
            vcJwt(spoiled(payloadOf(`${tag}-bad`), path, at, bad)),
            vcJwt(payloadOf(`${tag}-ok2`)),
          ])
          expect(res.status).toBe(200)
          expect(res.body.vcs.map((v: { id: string }) => v.id)).toEqual([`urn:uuid:${tag}-ok1`, `urn:uuid:${tag}-ok2`])
          expect(res.body.errors).toHaveLength(1)
          expect(res.body.errors[0]).toMatchObject({ claim: 1, error: { statusCode: 422, errorType: 'VALIDATION_ERROR' } })
          expect(res.body.errors[0].error.errorMessage).toContain(`payload.${path.join('.')}:`)
        },
      ),
      { numRuns: 12 },
    )
  })
})

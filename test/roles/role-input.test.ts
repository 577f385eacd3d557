/**
 * Bad input to the role operations, each answered with the error body and nothing written;
 * and tenant isolation: another tenant's role, assignment or wallet is reported exactly like a
 * missing one (422 NOT_FOUND, same message) and never changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, snapshot, startHarness, TENANT_B, walletWithToken, type Harness } from '../helpers/harness.js'
import { mintToken, tamper } from '../helpers/tokens.js'

let h: Harness
let creator: { did: string; jwt: string }
let holder: { did: string; jwt: string }
let role: string
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
  creator = await walletWithToken(h)
  holder = await walletWithToken(h)
  role = (await h.request('POST', '/roles', { json: { permissions: ['Read'] }, didAuth: creator.jwt })).body.role.did
  expect(
    (await h.request('POST', '/roles/assignmnets', { json: { assignments: [{ role, did: holder.did }] }, didAuth: creator.jwt })).body
      .errors,
  ).toEqual([])
})
afterAll(() => h.close())

/** Every role request with a body, as (method, path, body) with `x-did-auth`. */
const writes = () =>
  [
    ['POST', '/roles', { permissions: ['Read'] }],
    ['PUT', '/roles', { did: role, description: 'x' }],
    ['DELETE', '/roles', { dids: [role] }],
    ['POST', '/roles/assignmnets', { assignments: [{ role, did: creator.did }] }],
  ] as const

const UNKNOWN_ROLE = 'did:ethr:dev:0x000000000000000000000000000000000000dEaD'

describe('bad input to the role operations: the error body, nothing written', () => {
  it('missing or garbled x-did-auth: 403 UNAUTHENTICATED', async () => {
    const before = await snapshot(h)
    for (const [method, path, json] of writes()) {
      for (const didAuth of [undefined, '', 'garbage', 'a.b.c', tamper(creator.jwt), `${creator.jwt},garbage`]) {
        expectError(await h.request(method, path, { json, didAuth }), 403, 'UNAUTHENTICATED')
      }
    }
    for (const didAuth of [undefined, 'garbage']) expectError(await h.request('GET', '/roles', { didAuth }), 403, 'UNAUTHENTICATED')
    // Delete Role Assignments takes the Access Token JWT in Authorization, not a Base Auth Token, not x-did-auth
    const body = { assignments: [{ role, did: holder.did }] }
    for (const token of [null, 'token-tenant-a-0123456789', 'garbage', tamper(creator.jwt), (await mintToken()).jwt]) {
      expectError(await h.request('DELETE', '/roles/assignmnets', { json: body, token, didAuth: creator.jwt }), 403, 'UNAUTHENTICATED')
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('a token for a DID of another tenant: it acts through nothing here (no role created as it, no role changed)', async () => {
    const foreign = await walletWithToken(h, TENANT_B)
    const before = await snapshot(h)
    expectError(await h.request('POST', '/roles', { json: {}, didAuth: foreign.jwt }), 403, 'FORBIDDEN')
    const update = await h.request('PUT', '/roles', { json: { did: role, description: 'x' }, didAuth: foreign.jwt })
    expect(update.body.errors[0].error).toMatchObject({ statusCode: 403, errorType: 'FORBIDDEN' })
    expect((await h.request('GET', '/roles', { didAuth: foreign.jwt })).body.roles).toEqual([])
    expect(await snapshot(h)).toEqual(before)
  })

  it('a non-DID did or role, in any operation: 422 VALIDATION_ERROR', async () => {
    const before = await snapshot(h)
    for (const bad of ['alice', 'did:', 'DID:ethr:dev:0x1', '0x8ba1f109551bD432803012645Ac136ddd64DBA72', '', 42, null]) {
      expectError(
        await h.request('POST', '/roles/assignmnets', { json: { assignments: [{ role, did: bad }] }, didAuth: creator.jwt }),
        422,
        'VALIDATION_ERROR',
      )
      expectError(
        await h.request('POST', '/roles/assignmnets', { json: { assignments: [{ role: bad, did: holder.did }] }, didAuth: creator.jwt }),
        422,
        'VALIDATION_ERROR',
      )
      expectError(
        await h.request('DELETE', '/roles/assignmnets', { json: { assignments: [{ role, did: bad }] }, token: creator.jwt }),
        422,
        'VALIDATION_ERROR',
      )
      expectError(await h.request('PUT', '/roles', { json: { did: bad, description: 'x' }, didAuth: creator.jwt }), 422, 'VALIDATION_ERROR')
    }
    expectError(await h.request('GET', '/roles/assignmnets?did=alice', { didAuth: creator.jwt }), 422, 'VALIDATION_ERROR')
    expectError(await h.request('GET', '/roles/assignmnets', { didAuth: creator.jwt }), 422, 'VALIDATION_ERROR')
    expect(await snapshot(h)).toEqual(before)
  })

  it('an unknown role DID: a NOT_FOUND item in every batch', async () => {
    const before = await snapshot(h)
    const item = { role: UNKNOWN_ROLE, did: holder.did }
    for (const res of [
      await h.request('POST', '/roles/assignmnets', { json: { assignments: [item] }, didAuth: creator.jwt }),
      await h.request('DELETE', '/roles/assignmnets', { json: { assignments: [item] }, token: creator.jwt }),
    ]) {
      expect(res.body).toEqual({
        assignments: [],
        errors: [{ assignment: item, error: { statusCode: 422, errorType: 'NOT_FOUND', errorMessage: `no role ${UNKNOWN_ROLE}` } }],
      })
    }
    for (const res of [
      await h.request('PUT', '/roles', { json: { did: UNKNOWN_ROLE, description: 'x' }, didAuth: creator.jwt }),
      await h.request('DELETE', '/roles', { json: { dids: UNKNOWN_ROLE }, didAuth: creator.jwt }),
    ]) {
      expect(res.body).toEqual({
        roles: [],
        errors: [
          {
            roleDid: UNKNOWN_ROLE,
            message: `no role ${UNKNOWN_ROLE}`,
            error: { statusCode: 422, errorType: 'NOT_FOUND', errorMessage: `no role ${UNKNOWN_ROLE}` },
          },
        ],
      })
    }
    expectError(await h.request('GET', `/roles/assignmnets?role=${UNKNOWN_ROLE}`, { didAuth: creator.jwt }), 422, 'NOT_FOUND')
    expect(await snapshot(h)).toEqual(before)
  })

  it('permissions ["Admin"], a bare string "Read" (refused: send an array), or not strings: 422, nothing written', async () => {
    const before = await snapshot(h)
    for (const permissions of [['Admin'], ['Read', 'Admin'], 'Read', 'Read,Write', [''], [1], { Read: true }, ['read ']]) {
      const res = await h.request('POST', '/roles', { json: { permissions }, didAuth: creator.jwt })
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage).toContain('permissions')
      expectError(await h.request('PUT', '/roles', { json: { did: role, permissions }, didAuth: creator.jwt }), 422, 'VALIDATION_ERROR')
    }
    expectError(await h.request('PUT', '/roles', { json: { did: role }, didAuth: creator.jwt }), 422, 'VALIDATION_ERROR')
    expect(await snapshot(h)).toEqual(before)
  })

  it('over 1,000 assignments, roles or DIDs in one request: 422, nothing written', async () => {
    const before = await snapshot(h)
    const many = Array.from({ length: 1_001 }, (_, i) => ({ role, did: `did:ethr:dev:0x${i.toString(16).padStart(40, '0')}` }))
    const res = await h.request('POST', '/roles/assignmnets', { json: { assignments: many }, didAuth: creator.jwt })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toContain('at most 1000')
    expectError(
      await h.request('DELETE', '/roles/assignmnets', { json: { assignments: many }, token: creator.jwt }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(
      await h.request('PUT', '/roles', { json: { roles: many.map((a) => ({ did: a.did, description: 'x' })) }, didAuth: creator.jwt }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(
      await h.request('DELETE', '/roles', { json: { dids: many.map((a) => a.did).join(',') }, didAuth: creator.jwt }),
      422,
      'VALIDATION_ERROR',
    )
    expect(await snapshot(h)).toEqual(before)
  })

  it('duplicate items in one batch (the same DID in another spelling included): 422, nothing written', async () => {
    const before = await snapshot(h)
    const lower = holder.did.toLowerCase()
    expectError(
      await h.request('POST', '/roles/assignmnets', {
        json: {
          assignments: [
            { role, did: creator.did },
            { role, did: creator.did },
          ],
        },
        didAuth: creator.jwt,
      }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(
      await h.request('DELETE', '/roles/assignmnets', {
        json: {
          assignments: [
            { role, did: holder.did },
            { role, did: lower },
          ],
        },
        token: creator.jwt,
      }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(
      await h.request('PUT', '/roles', {
        json: {
          roles: [
            { did: role, description: 'a' },
            { did: role, permissions: [] },
          ],
        },
        didAuth: creator.jwt,
      }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(
      await h.request('DELETE', '/roles', { json: { dids: `${role},${role.toLowerCase()}` }, didAuth: creator.jwt }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(await h.request('DELETE', '/roles', { json: { dids: [role], ids: [role] }, didAuth: creator.jwt }), 422, 'VALIDATION_ERROR')
    expectError(await h.request('DELETE', '/roles', { json: {}, didAuth: creator.jwt }), 422, 'VALIDATION_ERROR')
    expect(await snapshot(h)).toEqual(before)
  })

  it('__proto__ and constructor keys, in bodies and queries: 422, nothing written, nothing polluted', async () => {
    const before = await snapshot(h)
    const raw = (method: string, path: string, body: string) =>
      h.request(method, path, { body, headers: { 'content-type': 'application/json' }, didAuth: creator.jwt })
    for (const body of [
      '{"__proto__": {"permissions": ["Write"]}}',
      '{"permissions": ["Read"], "constructor": {"prototype": {"polluted": true}}}',
      `{"assignments": [{"role": "${role}", "did": "${creator.did}", "__proto__": {"x": 1}}]}`,
      `{"roles": [{"did": "${role}", "description": "x", "constructor": 1}]}`,
      `{"did": "${role}", "__proto__": {"description": "x"}}`,
    ]) {
      for (const [method, path] of [
        ['POST', '/roles'],
        ['POST', '/roles/assignmnets'],
        ['PUT', '/roles'],
      ])
        expectError(await raw(method, path, body), 422, 'VALIDATION_ERROR')
    }
    expectError(await h.request('GET', '/roles?__proto__=Read', { didAuth: creator.jwt }), 422, 'VALIDATION_ERROR')
    expectError(await h.request('GET', `/roles/assignmnets?role=${role}&constructor=x`, { didAuth: creator.jwt }), 422, 'VALIDATION_ERROR')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(await snapshot(h)).toEqual(before)
  })

  it('a description over the body limit: 413; over 2,000 characters or with bidi overrides: 422 — nothing written', async () => {
    const before = await snapshot(h)
    expectError(
      await h.request('POST', '/roles', { json: { description: 'x'.repeat(1_100_000) }, didAuth: creator.jwt }),
      413,
      'PAYLOAD_TOO_LARGE',
    )
    expectError(
      await h.request('PUT', '/roles', { json: { did: role, description: 'x'.repeat(1_100_000) }, didAuth: creator.jwt }),
      413,
      'PAYLOAD_TOO_LARGE',
    )
    expectError(
      await h.request('POST', '/roles', { json: { description: 'x'.repeat(2_001) }, didAuth: creator.jwt }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(
      await h.request('POST', '/roles', { json: { description: 'evil\u202Etxt' }, didAuth: creator.jwt }),
      422,
      'VALIDATION_ERROR',
    )
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('tenant isolation: another tenant’s role, assignment or wallet looks missing and is never changed', () => {
  it('every role operation from tenant B on tenant A’s role answers as for an unknown role', async () => {
    const b = await walletWithToken(h, TENANT_B)
    const bRole = (await h.request('POST', '/roles', { json: { permissions: ['Read'] }, didAuth: b.jwt, token: TENANT_B })).body.role.did
    const before = await snapshot(h)
    /** The same request on tenant A's role and on an unknown role: the bodies differ only by the DID. */
    const same = async (send: (r: string) => Promise<{ status: number; body: any }>) => {
      const a = await send(role)
      const unknown = await send(UNKNOWN_ROLE)
      expect(a.status).toBe(unknown.status)
      expect(JSON.parse(JSON.stringify(a.body).replaceAll(role, UNKNOWN_ROLE))).toEqual(unknown.body)
      return a
    }
    const asB = { didAuth: b.jwt, token: TENANT_B }
    expect(
      (await same((r) => h.request('PUT', '/roles', { json: { did: r, description: 'x' }, ...asB }))).body.errors[0].error.errorType,
    ).toBe('NOT_FOUND')
    expect((await same((r) => h.request('DELETE', '/roles', { json: { dids: [r] }, ...asB }))).body.errors[0].error.errorType).toBe(
      'NOT_FOUND',
    )
    expect(
      (await same((r) => h.request('POST', '/roles/assignmnets', { json: { assignments: [{ role: r, did: b.did }] }, ...asB }))).body
        .errors[0].error.errorType,
    ).toBe('NOT_FOUND')
    // tenant A's assignment, removed with a tenant B wallet's Access Token
    expect(
      (
        await same((r) =>
          h.request('DELETE', '/roles/assignmnets', { json: { assignments: [{ role: r, did: holder.did }] }, token: b.jwt }),
        )
      ).body.errors[0].error.errorType,
    ).toBe('NOT_FOUND')
    expectError(await same((r) => h.request('GET', `/roles/assignmnets?role=${r}`, asB)), 422, 'NOT_FOUND')
    expect((await h.request('GET', `/roles/assignmnets?did=${holder.did}`, asB)).body.assignments).toEqual([])
    expect((await h.request('GET', '/roles', asB)).body.roles.map((r: { did: string }) => r.did)).toEqual([bRole])
    // tenant B's role on tenant A's wallet, and tenant A's role on tenant B's wallet: the target is not found
    const onAWallet = await h.request('POST', '/roles/assignmnets', { json: { assignments: [{ role: bRole, did: holder.did }] }, ...asB })
    expect(onAWallet.body.errors[0].error).toEqual({
      statusCode: 422,
      errorType: 'NOT_FOUND',
      errorMessage: `no wallet or stored credential with DID ${holder.did}`,
    })
    const onBWallet = await h.request('POST', '/roles/assignmnets', { json: { assignments: [{ role, did: b.did }] }, didAuth: creator.jwt })
    expect(onBWallet.body.errors[0].error).toEqual({
      statusCode: 422,
      errorType: 'NOT_FOUND',
      errorMessage: `no wallet or stored credential with DID ${b.did}`,
    })
    expect(await snapshot(h)).toEqual(before)
  })
})

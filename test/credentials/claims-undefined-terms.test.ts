/**
 * JSON-LD credentials with terms no context defines, and inline contexts, through the router
 * (issue 17 item 1; DESIGN §4 *Undefined JSON-LD terms*): `POST /claims/sign` signs undefined
 * terms under the W3C undefined-terms context (appended last, only when needed) unless
 * `undefinedTerms: "reject"` (request or service option); `context` takes inline context
 * objects, within their limits. Every credential signed here verifies through
 * `POST /claims/verify`, and every tampering of a claim fails it. Refusals write nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  canonize,
  CREDENTIALS_V1_URL,
  CREDENTIALS_V2_URL,
  SECP256K1_RECOVERY_2020_V2_URL,
  UNDEFINED_TERMS_V2_URL,
  type JsonLdDocument,
} from '../../src/proofs/jsonld/index.js'
import { MAX_INLINE_CONTEXT_CHARS, MAX_INLINE_CONTEXT_TERMS, inlineContextProblem } from '../../src/proofs/jsonld/inline-contexts.js'
import { IdentityService, createMemoryStorage, randomMasterKey } from '../../src/index.js'
import { expectError, snapshot, startHarness, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'

const KOBLITZ = 'EcdsaKoblitzSignature2016'
const RECOVERY = 'EcdsaSecp256k1RecoverySignature2020'
const PROOF_TYPES = [KOBLITZ, RECOVERY] as const
const UNDEFINED_TERM = 'https://www.w3.org/ns/credentials/undefined-term#'

const MEMBERSHIP_URL = 'https://example.com/contexts/membership/v1'
const MEMBERSHIP = {
  '@context': {
    '@version': 1.1,
    MembershipCredential: 'https://example.com/vocab#MembershipCredential',
    member: 'https://example.com/vocab#member',
  },
}

let h: Harness
let issuer: { did: string; jwt: string }
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { contexts: { [MEMBERSHIP_URL]: MEMBERSHIP } } })
  issuer = await walletWithToken(h)
})
afterAll(() => h?.close())

const sign = (json: Record<string, unknown>, on: Harness = h, didAuth = issuer.jwt) => on.request('POST', '/claims/sign', { json, didAuth })
const verify = async (jsonld: JsonLdDocument, on: Harness = h, didAuth = issuer.jwt) =>
  (await on.request('POST', '/claims/verify', { json: { claims: [{ jsonld }] }, didAuth })).body.vcs[0]

/** The signed credential of a 200, or a failure showing the answer. */
function signedOf(res: { status: number; body: any }, index = 0): JsonLdDocument {
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.vcs[index].jsonld
}

/** Canonical N-Quads of a credential without its proof. */
async function nquadsOf(credential: JsonLdDocument): Promise<string> {
  const { proof: _proof, ...unsigned } = credential
  return canonize(unsigned)
}

describe('undefined terms are signed under the undefined-terms context (the default)', () => {
  it('the spec-shaped request {iss, claims: [{payload: {email}}]} is signed and verifies, with either proof type', async () => {
    const spec = { iss: issuer.did, claims: [{ payload: { email: 'bob@example.com' } }] }
    for (const proofType of [undefined, ...PROOF_TYPES]) {
      const vc = signedOf(await sign(proofType === undefined ? spec : { ...spec, proofType }))
      const suite = proofType === RECOVERY ? [SECP256K1_RECOVERY_2020_V2_URL] : []
      // the undefined-terms context comes last, after the suite's context
      expect(vc['@context']).toEqual([CREDENTIALS_V1_URL, ...suite, UNDEFINED_TERMS_V2_URL])
      expect(vc.credentialSubject).toEqual({ email: 'bob@example.com' })
      expect((vc.proof as { type: string }).type).toBe(proofType ?? KOBLITZ)
      expect(await nquadsOf(vc)).toContain(`<${UNDEFINED_TERM}email> "bob@example.com" .`)
      expect(await verify(vc)).toMatchObject({
        verified: true,
        checks: [
          { check: 'proof', type: proofType ?? KOBLITZ, verified: true },
          { check: 'issuanceDate', verified: true },
        ],
      })
    }
  })

  it('data model 2.0 credentials too (credentials/v2 defines no @vocab)', async () => {
    for (const proofType of PROOF_TYPES) {
      const claims = [{ payload: { email: 'bob@example.com' } }]
      const vc = signedOf(await sign({ iss: issuer.did, context: CREDENTIALS_V2_URL, proofType, claims }))
      const suite = proofType === RECOVERY ? [SECP256K1_RECOVERY_2020_V2_URL] : []
      expect(vc['@context']).toEqual([CREDENTIALS_V2_URL, ...suite, UNDEFINED_TERMS_V2_URL])
      expect(vc).toHaveProperty('validFrom')
      expect(await nquadsOf(vc)).toContain(`<${UNDEFINED_TERM}email> "bob@example.com" .`)
      const checks = [
        { check: 'proof', type: proofType, verified: true },
        { check: 'validFrom', verified: true },
      ]
      expect(await verify(vc)).toMatchObject({ verified: true, checks })
    }
  })

  it('undefined types, nested objects and arrays are signed under undefined-term IRIs', async () => {
    const payload = { name: 'Bob', address: { type: 'PostalAddress', street: 'Main St 1' }, tags: ['a', 'b'], age: 42, active: true }
    const vc = signedOf(await sign({ iss: issuer.did, type: 'EmployeeCredential', claims: [{ payload }] }))
    expect(vc.type).toEqual(['VerifiableCredential', 'EmployeeCredential'])
    const nquads = await nquadsOf(vc)
    for (const quad of [
      `<${UNDEFINED_TERM}EmployeeCredential>`,
      `<${UNDEFINED_TERM}name> "Bob"`,
      `<${UNDEFINED_TERM}PostalAddress>`,
      `<${UNDEFINED_TERM}street> "Main St 1"`,
      `<${UNDEFINED_TERM}tags> "a"`,
      `<${UNDEFINED_TERM}tags> "b"`,
      `<${UNDEFINED_TERM}age> "42"^^<http://www.w3.org/2001/XMLSchema#integer>`,
      `<${UNDEFINED_TERM}active> "true"^^<http://www.w3.org/2001/XMLSchema#boolean>`,
    ]) {
      expect(nquads).toContain(quad)
    }
    expect((await verify(vc)).verified).toBe(true)
  })

  it('a credential whose terms are all defined is signed as before: no undefined-terms context; each claim decides alone', async () => {
    const claims = [{ payload: { member: true } }, { payload: { member: true, nickname: 'bob' } }]
    const res = await sign({ iss: issuer.did, context: MEMBERSHIP_URL, type: 'MembershipCredential', claims })
    const [defined, undefinedOne] = [signedOf(res, 0), signedOf(res, 1)]
    expect(defined['@context']).toEqual([CREDENTIALS_V1_URL, MEMBERSHIP_URL])
    expect(undefinedOne['@context']).toEqual([CREDENTIALS_V1_URL, MEMBERSHIP_URL, UNDEFINED_TERMS_V2_URL])
    // a defined term keeps its own IRI beside the undefined one
    const nquads = await nquadsOf(undefinedOne)
    expect(nquads).toContain('<https://example.com/vocab#member> "true"^^<http://www.w3.org/2001/XMLSchema#boolean>')
    expect(nquads).toContain(`<${UNDEFINED_TERM}nickname> "bob"`)
    for (const vc of [defined, undefinedOne]) expect((await verify(vc)).verified).toBe(true)
  })

  it('tampering with any claim — value, key, added, removed, nested, type, or the contexts — fails verification (both suites)', async () => {
    for (const proofType of PROOF_TYPES) {
      const payload = { email: 'bob@example.com', address: { city: 'Paris' }, tags: ['a', 'b'] }
      const vc = signedOf(await sign({ iss: issuer.did, type: 'ContactCredential', proofType, claims: [{ payload }] }))
      expect((await verify(vc)).verified).toBe(true)
      const subject = vc.credentialSubject as Record<string, unknown>
      const tampered: Array<[string, JsonLdDocument]> = [
        ['value', { ...vc, credentialSubject: { ...subject, email: 'eve@example.com' } }],
        ['key', { ...vc, credentialSubject: { mail: subject.email, address: subject.address, tags: subject.tags } }],
        ['added', { ...vc, credentialSubject: { ...subject, admin: true } }],
        ['removed', { ...vc, credentialSubject: { email: subject.email, address: subject.address } }],
        ['nested', { ...vc, credentialSubject: { ...subject, address: { city: 'Lyon' } } }],
        ['array', { ...vc, credentialSubject: { ...subject, tags: ['a', 'b', 'c'] } }],
        ['type', { ...vc, type: ['VerifiableCredential', 'AdminCredential'] }],
        ['contexts', { ...vc, '@context': (vc['@context'] as string[]).filter((c) => c !== UNDEFINED_TERMS_V2_URL) }],
      ]
      for (const [what, credential] of tampered) {
        const failed = { verified: false, error: expect.stringMatching(/^proof 0: /) }
        expect(await verify(credential), `${proofType}: ${what}`).toMatchObject(failed)
      }
    }
  })

  it('a credential over the inline size is canonicalized in the worker pool, both attempts', async () => {
    const payload = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`field${i}`, `value ${i}`]))
    const before = h.service.jsonldStats()
    const vc = signedOf(await sign({ iss: issuer.did, claims: [{ payload }] }))
    expect(vc['@context']).toEqual([CREDENTIALS_V1_URL, UNDEFINED_TERMS_V2_URL])
    // the refused attempt and the signed one: two units of work in the pool
    expect(h.service.jsonldStats().completed).toBe(before.completed + 2)
    expect(await nquadsOf(vc)).toContain(`<${UNDEFINED_TERM}field79> "value 79"`)
    expect((await verify(vc)).verified).toBe(true)
  })

  it('what no @vocab can make an IRI is still refused (422), naming it; nothing is written', async () => {
    const before = await snapshot(h)
    const spaced = await sign({ iss: issuer.did, claims: [{ payload: { 'first name': 'Bob' } }] })
    expectError(spaced, 422, 'VALIDATION_ERROR')
    expect(spaced.body.errorMessage).toContain('JSON-LD safe mode rejected the document: invalid property ("first name")')
    const relative = await sign({ iss: issuer.did, claims: [{ payload: { friend: { id: 'bob' } } }] })
    expectError(relative, 422, 'VALIDATION_ERROR')
    expect(relative.body.errorMessage).toContain('relative @id reference')
    // the context given by the caller already: no second attempt (one unit of work in the pool)
    const work = h.service.jsonldStats().completed
    const payload = { ...Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`field${i}`, i])), 'first name': 'Bob' }
    expectError(await sign({ iss: issuer.did, context: UNDEFINED_TERMS_V2_URL, claims: [{ payload }] }), 422, 'VALIDATION_ERROR')
    expect(h.service.jsonldStats().completed).toBe(work + 1)
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('adding a proof to a credential signed under the undefined-terms context', () => {
  it('a Recovery2020 co-signature puts its suite context before the undefined-terms context; both proofs verify', async () => {
    const signed = (await sign({ iss: issuer.did, claims: [{ payload: { email: 'bob@example.com' } }] })).body.vcs[0]
    expect(signed.jsonld['@context']).toEqual([CREDENTIALS_V1_URL, UNDEFINED_TERMS_V2_URL])
    const res = await h.request('POST', '/claims/proofs', {
      json: { iss: signed.id, proofType: RECOVERY, claims: [{ jsonld: signed.jsonld }] },
      didAuth: await tokenFor(h, signed.id),
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const cosigned = res.body.vcs[0].jsonld
    expect(cosigned['@context']).toEqual([CREDENTIALS_V1_URL, SECP256K1_RECOVERY_2020_V2_URL, UNDEFINED_TERMS_V2_URL])
    expect(cosigned.proof.map((p: { type: string }) => p.type)).toEqual([KOBLITZ, RECOVERY])
    const checks = [{ check: 'proof', verified: true }, { check: 'proof', verified: true }, { check: 'issuanceDate' }]
    expect(await verify(cosigned)).toMatchObject({ verified: true, checks })
  })
})

describe('undefinedTerms: "reject"', () => {
  it('on the request: today’s 422 naming the term, nothing written', async () => {
    const before = await snapshot(h)
    for (const proofType of PROOF_TYPES) {
      const res = await sign({ iss: issuer.did, proofType, undefinedTerms: 'reject', claims: [{ payload: { email: 'bob@example.com' } }] })
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage).toBe('JSON-LD safe mode rejected the document: invalid property ("email")')
      const type = await sign({ iss: issuer.did, proofType, undefinedTerms: 'reject', type: 'EmailCredential', claims: [{ payload: {} }] })
      expectError(type, 422, 'VALIDATION_ERROR')
      expect(type.body.errorMessage).toBe('JSON-LD safe mode rejected the document: relative @type reference ("EmailCredential")')
    }
    // defined terms sign as ever
    const claims = [{ id: 'urn:example:r', payload: { member: true } }]
    const defined = { iss: issuer.did, undefinedTerms: 'reject', context: MEMBERSHIP_URL, claims }
    expect(signedOf(await sign(defined))['@context']).toEqual([CREDENTIALS_V1_URL, MEMBERSHIP_URL])
    // only "vocab" and "reject"; only for JSON-LD
    expectError(await sign({ iss: issuer.did, undefinedTerms: 'drop', claims: [{ payload: { email: 'x' } }] }), 422, 'VALIDATION_ERROR')
    const jwt = await sign({ iss: issuer.did, format: 'JWT', undefinedTerms: 'reject', claims: [{ payload: { email: 'x' } }] })
    expectError(jwt, 422, 'VALIDATION_ERROR')
    expect(jwt.body.errorMessage).toContain('undefinedTerms: only for JSON-LD credentials')
    expect(await snapshot(h)).toEqual(before)
  })

  it('as the service option: the default of requests, which may still ask for "vocab"', async () => {
    const strict = await startHarness({ service: { undefinedTerms: 'reject' } })
    try {
      const who = await walletWithToken(strict)
      const before = await snapshot(strict)
      const refused = await sign({ iss: who.did, claims: [{ payload: { email: 'bob@example.com' } }] }, strict, who.jwt)
      expectError(refused, 422, 'VALIDATION_ERROR')
      expect(refused.body.errorMessage).toBe('JSON-LD safe mode rejected the document: invalid property ("email")')
      expect(await snapshot(strict)).toEqual(before)
      const asked = { iss: who.did, undefinedTerms: 'vocab', claims: [{ payload: { email: 'bob@example.com' } }] }
      const vc = signedOf(await sign(asked, strict, who.jwt))
      expect(vc['@context']).toEqual([CREDENTIALS_V1_URL, UNDEFINED_TERMS_V2_URL])
      expect((await verify(vc, strict, who.jwt)).verified).toBe(true)
    } finally {
      await strict.close()
    }
    const undefinedTerms = 'drop' as 'reject'
    const misconfigured = IdentityService.create({ storage: createMemoryStorage(), masterKey: randomMasterKey(), undefinedTerms })
    await expect(misconfigured).rejects.toThrow(/undefinedTerms must be "vocab" or "reject"/)
  })
})

describe('inline contexts', () => {
  const SCHEMA_EMAIL = { '@version': 1.1, email: 'https://schema.org/email', EmailCredential: 'https://example.com/vocab#EmailCredential' }

  it('an inline context defines the terms it names (no undefined-terms context needed); both proof types; tampering fails', async () => {
    for (const proofType of PROOF_TYPES) {
      const claims = [{ payload: { email: 'bob@example.com' } }]
      const vc = signedOf(await sign({ iss: issuer.did, proofType, context: SCHEMA_EMAIL, type: 'EmailCredential', claims }))
      const suite = proofType === RECOVERY ? [SECP256K1_RECOVERY_2020_V2_URL] : []
      expect(vc['@context']).toEqual([CREDENTIALS_V1_URL, SCHEMA_EMAIL, ...suite])
      const nquads = await nquadsOf(vc)
      expect(nquads).toContain('<https://schema.org/email> "bob@example.com"')
      expect(nquads).toContain('<https://example.com/vocab#EmailCredential>')
      expect((await verify(vc)).verified).toBe(true)
      const subject = vc.credentialSubject as Record<string, unknown>
      expect((await verify({ ...vc, credentialSubject: { ...subject, email: 'eve@example.com' } })).verified).toBe(false)
      // the context is signed: another IRI for the same term is another statement
      const [v1, , ...rest] = vc['@context'] as unknown[]
      const remapped = { ...vc, '@context': [v1, { ...SCHEMA_EMAIL, email: 'https://example.com/vocab#email' }, ...rest] }
      expect((await verify(remapped)).verified).toBe(false)
    }
  })

  it('global and per-claim, mixed with URLs; the undefined-terms context, when needed, still comes last; v2 and JWT too', async () => {
    const res = await sign({
      iss: issuer.did,
      context: [MEMBERSHIP_URL, { email: 'https://schema.org/email' }],
      claims: [
        { context: { phone: 'https://schema.org/telephone' }, payload: { member: true, email: 'a@b.c', phone: '+33' } },
        { payload: { email: 'a@b.c', fax: '+1' } },
      ],
    })
    const [first, second] = [signedOf(res, 0), signedOf(res, 1)]
    const globals = [CREDENTIALS_V1_URL, MEMBERSHIP_URL, { email: 'https://schema.org/email' }]
    expect(first['@context']).toEqual([...globals, { phone: 'https://schema.org/telephone' }])
    expect(second['@context']).toEqual([...globals, UNDEFINED_TERMS_V2_URL])
    expect(await nquadsOf(second)).toContain(`<${UNDEFINED_TERM}fax> "+1"`)
    for (const vc of [first, second]) expect((await verify(vc)).verified).toBe(true)

    const v2 = signedOf(
      await sign({ iss: issuer.did, context: [CREDENTIALS_V2_URL, SCHEMA_EMAIL], claims: [{ payload: { email: 'a@b.c' } }] }),
    )
    expect(v2['@context']).toEqual([CREDENTIALS_V2_URL, SCHEMA_EMAIL])
    expect((await verify(v2)).verified).toBe(true)

    const jwtClaims = [{ id: 'urn:example:jwt', payload: { email: 'a@b.c' } }]
    const jwt = await sign({ iss: issuer.did, format: 'JWT', context: SCHEMA_EMAIL, claims: jwtClaims })
    expect(jwt.status).toBe(200)
    const checked = await h.request('POST', '/claims/verify', { json: { claims: [{ jwt: jwt.body.vcs[0].jwt }] }, didAuth: issuer.jwt })
    expect(checked.body.vcs[0].verified).toBe(true)
  })

  it('limits: characters of JSON and term definitions (scoped ones included), each a 422 naming the limit; nothing written', async () => {
    const before = await snapshot(h)
    const long = { note: `https://example.com/${'x'.repeat(MAX_INLINE_CONTEXT_CHARS)}` }
    const terms = (n: number, prefix: string) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, `https://example.com/${prefix}${i}`]))
    const manyTerms = terms(MAX_INLINE_CONTEXT_TERMS + 1, 't')
    const half = terms(MAX_INLINE_CONTEXT_TERMS / 2 + 1, 's')
    const scoped = { ...half, nested: { '@id': 'https://example.com/nested', '@context': half } }
    for (const [context, limit] of [
      [long, `${MAX_INLINE_CONTEXT_CHARS} characters of JSON`],
      [manyTerms, `${MAX_INLINE_CONTEXT_TERMS} term definitions`],
      [scoped, `${MAX_INLINE_CONTEXT_TERMS} term definitions`],
    ] as const) {
      for (const body of [{ context }, { context: [MEMBERSHIP_URL, context] }]) {
        const res = await sign({ iss: issuer.did, ...body, claims: [{ payload: { member: true } }] })
        expectError(res, 422, 'VALIDATION_ERROR')
        expect(res.body.errorMessage).toContain(`an inline context is over the limit of ${limit}`)
      }
      const perClaim = await sign({ iss: issuer.did, claims: [{ context, payload: { member: true } }] })
      expectError(perClaim, 422, 'VALIDATION_ERROR')
      expect(perClaim.body.errorMessage).toContain('claims.0.context')
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('the limits count exactly: a context of the largest size and the most terms is accepted', () => {
    const terms = Object.fromEntries(Array.from({ length: MAX_INLINE_CONTEXT_TERMS }, (_, i) => [`t${i}`, `https://e.x/${i}`]))
    expect(inlineContextProblem(terms)).toBeUndefined()
    const filler = MAX_INLINE_CONTEXT_CHARS - JSON.stringify({ a: '', b: [1, true, null, { c: {} }] }).length
    // a quote is two characters of JSON (`\"`)
    const exact = { a: '"'.repeat(Math.floor(filler / 2)) + 'x'.repeat(filler % 2), b: [1, true, null, { c: {} }] }
    expect(JSON.stringify(exact).length).toBe(MAX_INLINE_CONTEXT_CHARS)
    expect(inlineContextProblem(exact)).toBeUndefined()
    expect(inlineContextProblem({ ...exact, a: `${exact.a}x` })).toMatch(/characters of JSON/)
  })

  it('no fetch, no protected-term redefinition, no malformed context: each a 422 with a clear message; nothing written', async () => {
    const before = await snapshot(h)
    const scoped = (context: unknown) => ({ address: { '@id': 'https://schema.org/address', '@context': context } })
    const unknown = (url: string) => `unknown JSON-LD context "${url}"`
    const refusals: Array<[unknown, string]> = [
      [{ '@import': 'https://evil.example/ctx.jsonld', email: 'https://schema.org/email' }, unknown('https://evil.example/ctx.jsonld')],
      [scoped('https://evil.example/scoped.jsonld'), unknown('https://evil.example/scoped.jsonld')],
      [scoped([{ '@version': 1.1 }, 'https://evil.example/a.jsonld']), unknown('https://evil.example/a.jsonld')],
      [{ VerifiableCredential: 'https://evil.example/VC' }, 'a context redefines the protected term "VerifiableCredential"'],
      [{ proof: 'https://evil.example/proof' }, 'a context redefines the protected term "proof"'],
      [{ email: 42 }, 'JSON-LD processing failed: '],
      [{ '@vocab': 'relative' }, 'relative @vocab reference'],
    ]
    for (const [context, message] of refusals) {
      for (const proofType of PROOF_TYPES) {
        const claims = [{ payload: { email: 'a@b.c', address: { city: 'Paris' } } }]
        const res = await sign({ iss: issuer.did, proofType, context, claims })
        expectError(res, 422, 'VALIDATION_ERROR')
        expect(res.body.errorMessage).toContain(message)
      }
    }
    // a credential with such a context, signed elsewhere, is not verified either (422 for an unknown context)
    const vc = signedOf(await sign({ iss: issuer.did, claims: [{ id: 'urn:example:v', payload: { email: 'a@b.c' } }] }))
    const forged = { ...vc, '@context': [CREDENTIALS_V1_URL, { '@import': 'https://evil.example/ctx.jsonld' }, UNDEFINED_TERMS_V2_URL] }
    expectError(
      await h.request('POST', '/claims/verify', { json: { claims: [{ jsonld: forged }] }, didAuth: issuer.jwt }),
      422,
      'VALIDATION_ERROR',
    )
    const redefining = [CREDENTIALS_V1_URL, { proof: 'https://evil.example/proof' }, UNDEFINED_TERMS_V2_URL]
    expect((await verify({ ...vc, '@context': redefining })).verified).toBe(false)
    expect(await snapshot(h)).toEqual(before)
  })

  it('inline contexts count toward the JSON-LD work bounds', async () => {
    const tight = await startHarness({ service: { limits: { jsonld: { maxNodes: 40 } } } })
    try {
      const who = await walletWithToken(tight)
      const ok = { iss: who.did, claims: [{ id: 'urn:example:b', payload: { email: 'a@b.c' } }] }
      expect((await sign(ok, tight, who.jwt)).status).toBe(200)
      const terms = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`t${i}`, `https://example.com/t${i}`]))
      const res = await sign({ ...ok, context: terms }, tight, who.jwt)
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage).toMatch(/^claims\.0: more than 40 values .* is over the limit maxNodes = 40$/)
    } finally {
      await tight.close()
    }
  })
})

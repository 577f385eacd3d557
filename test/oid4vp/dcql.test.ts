/**
 * The DCQL adapter (`src/oid4vp/protocol/dcql.ts`, on the `dcql` library): a query is read and validated with its
 * errors named; verified credentials are matched — `vct_values`, claim values, `null` array paths, `claim_sets`,
 * `credential_sets`, holder binding — and only the asked claims come back, at their paths.
 */
import { describe, expect, it } from 'vitest'
import { matchVpDcql, parseVpDcqlQuery, type VpDcqlCredential, type VpDcqlQuery } from '../../src/oid4vp/protocol/dcql.js'

const VCT = 'urn:example:pid'
const credential = (claims: Record<string, unknown>, more: Partial<VpDcqlCredential> = {}): VpDcqlCredential =>
  ({ format: 'dc+sd-jwt', vct: VCT, claims, holderBinding: true, ...more }) as VpDcqlCredential

function query(json: unknown): VpDcqlQuery {
  const parsed = parseVpDcqlQuery(json)
  if (!parsed.ok) throw new Error(parsed.error)
  return parsed.query
}

describe('parseVpDcqlQuery', () => {
  it('refuses what is no DCQL query, naming why', () => {
    expect(parseVpDcqlQuery({ credentials: [] })).toMatchObject({ ok: false, error: expect.stringMatching(/^dcql_query: credentials/) })
    expect(parseVpDcqlQuery({ credentials: [{ id: 'a', format: 'nope' }] })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/format/),
    })
    const twice = {
      credentials: [
        { id: 'a', format: 'dc+sd-jwt' },
        { id: 'a', format: 'dc+sd-jwt' },
      ],
    }
    expect(parseVpDcqlQuery(twice)).toMatchObject({ ok: false, error: expect.stringMatching(/Duplicate credential query ids/) })
    const undefinedSet = { credentials: [{ id: 'a', format: 'dc+sd-jwt' }], credential_sets: [{ options: [['b']] }] }
    expect(parseVpDcqlQuery(undefinedSet)).toMatchObject({ ok: false, error: expect.stringMatching(/'b'/) })
    const undefinedClaim = { credentials: [{ id: 'a', format: 'dc+sd-jwt', claims: [{ id: 'x', path: ['x'] }], claim_sets: [['y']] }] }
    expect(parseVpDcqlQuery(undefinedClaim)).toMatchObject({ ok: false })
    expect(parseVpDcqlQuery({ credentials: [{ id: 'a', format: 'ldp_vc' }] })).toMatchObject({ ok: false })
  })
})

describe('matchVpDcql', () => {
  const q = query({
    credentials: [
      {
        id: 'pid',
        format: 'dc+sd-jwt',
        meta: { vct_values: [VCT] },
        claims: [
          { id: 'name', path: ['given_name'] },
          { id: 'de', path: ['nationalities', null], values: ['DE'] },
          { id: 'city', path: ['address', 'locality'] },
        ],
        claim_sets: [['name', 'de'], ['city']],
      },
    ],
  })
  const full = { given_name: 'Erika', family_name: 'M', nationalities: ['FR', 'DE'], address: { locality: 'Berlin', country: 'DE' } }

  it('only the asked claims of the first claim set satisfied, and their paths', () => {
    expect(matchVpDcql(q, { pid: [credential(full)] })).toEqual({
      satisfied: true,
      asksClaims: { pid: true },
      matches: {
        pid: [{ index: 0, claims: { given_name: 'Erika', nationalities: [null, 'DE'] }, paths: [['given_name'], ['nationalities', null]] }],
      },
    })
    const cityOnly = matchVpDcql(q, { pid: [credential({ address: { locality: 'Berlin' } })] })
    expect(cityOnly).toMatchObject({
      satisfied: true,
      matches: { pid: [{ claims: { address: { locality: 'Berlin' } }, paths: [['address', 'locality']] }] },
    })
  })

  it('a value not accepted, a vct not accepted, no holder binding where required: not satisfied, naming why', () => {
    const french = matchVpDcql(q, { pid: [credential({ given_name: 'E', nationalities: ['FR'] })] })
    expect(french).toMatchObject({ satisfied: false, error: expect.stringMatching(/^credential query 'pid', presentation 0: /) })
    const vct = matchVpDcql(q, { pid: [credential(full, { vct: 'urn:other' })] })
    expect(vct).toMatchObject({ satisfied: false, error: expect.stringMatching(/vct/) })
    const unbound = matchVpDcql(q, { pid: [credential(full, { holderBinding: false })] })
    expect(unbound).toMatchObject({ satisfied: false, error: expect.stringMatching(/holder binding/) })
  })

  it('W3C type_values: every type of one alternative', () => {
    const w3c = query({ credentials: [{ id: 'd', format: 'ldp_vc', meta: { type_values: [['VerifiableCredential', 'Degree']] } }] })
    const of = (types: string[]): VpDcqlCredential => ({ format: 'ldp_vc', types, claims: {}, holderBinding: true })
    expect(matchVpDcql(w3c, { d: [of(['VerifiableCredential', 'Degree', 'Extra'])] })).toMatchObject({
      satisfied: true,
      asksClaims: { d: false },
    })
    expect(matchVpDcql(w3c, { d: [of(['VerifiableCredential'])] })).toMatchObject({ satisfied: false })
  })

  it('credential_sets: a required set unmet is named; an unknown query id is refused', () => {
    const sets = query({
      credentials: [
        { id: 'a', format: 'dc+sd-jwt' },
        { id: 'b', format: 'dc+sd-jwt' },
      ],
      credential_sets: [{ options: [['a'], ['b']] }, { options: [['b']], required: false }],
    })
    expect(matchVpDcql(sets, { b: [credential({})] })).toMatchObject({ satisfied: true })
    expect(matchVpDcql(sets, {})).toMatchObject({ satisfied: false, error: expect.stringMatching(/credential set 0 is required/) })
    expect(matchVpDcql(sets, { c: [credential({})] })).toMatchObject({ satisfied: false, error: expect.stringMatching(/c not found/) })
  })
})

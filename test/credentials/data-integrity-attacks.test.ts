/**
 * Attacks on Data Integrity credentials through the router on loopback HTTP (SQLite file), each answered with an
 * error body or `verified: false` naming the failed check, and nothing written: a suite of another key type
 * (secp256k1 with eddsa-rdfc-2022), a proof of an unknown cryptosuite, a proof by another DID's key (did:key) or
 * naming a method the issuer's document does not list, a proof copied onto another credential of the same issuer, a
 * JCS-signed credential sent as JSON text with a member named twice (refused before `JSON.parse` picks a reading) or
 * with a lone surrogate; a credential over the JSON-LD bounds (alone: another tenant's concurrent request is answered).
 * (The library-level cases — wrong purpose, a method not under `assertionMethod`, another
 * controller — are in test/proofs/data-integrity/suites.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, snapshot, startHarness, TENANT_B, tokenFor, type Harness } from '../helpers/harness.js'

const V2 = 'https://www.w3.org/ns/credentials/v2'

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
})
afterAll(() => h.close())

type Wallet = { did: string; jwt: string; method: string }

async function keyWallet(keyType: string, token?: string): Promise<Wallet> {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'key', keyType } }, token })
  expect(made.status).toBe(200)
  const did: string = made.body.wallet.did
  const jwt = await tokenFor(h, did, token)
  const resolved = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(did)}`)
  return { did, jwt, method: (resolved.body.didDocument ?? resolved.body).assertionMethod[0] as string }
}

async function signed(
  w: Wallet,
  fields: Record<string, unknown> = {},
  sub = 'did:example:alice',
  token?: string,
): Promise<Record<string, any>> {
  const res = await h.request('POST', '/claims/sign', {
    json: { iss: w.did, sub, context: [V2], claims: [{ payload: { name: 'Alice' } }], ...fields },
    didAuth: w.jwt,
    token,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.vcs[0].jsonld
}

type Check = { check: string; verified: boolean; error?: string }

/** `/claims/verify` of `jsonld`, then Store with `verify: true` of it: the verify result, the store refused, nothing written. */
async function refusedEverywhere(w: Wallet, jsonld: unknown): Promise<{ verified: boolean; failed: Check[] }> {
  const res = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld }] }, didAuth: w.jwt })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  const before = await snapshot(h)
  const stored = await h.request('POST', '/claims', { json: { claims: [{ jsonld }], verify: true }, didAuth: w.jwt })
  expect(stored.status, JSON.stringify(stored.body)).toBe(200)
  expect(stored.body.errors).toHaveLength(1)
  expect(stored.body.errors[0].error.errorMessage).toMatch(/^the credential does not verify/)
  expect(await snapshot(h)).toEqual(before)
  const result = res.body.vcs[0]
  return { verified: result.verified, failed: (result.checks as Check[]).filter((c) => !c.verified) }
}

describe('Data Integrity attacks through the router', () => {
  it('a secp256k1 wallet asking for eddsa-rdfc-2022: 422 naming the key types, nothing written', async () => {
    const w = await keyWallet('secp256k1')
    const before = await snapshot(h)
    const res = await h.request('POST', '/claims/sign', {
      json: { iss: w.did, context: [V2], claims: [{ payload: { name: 'Alice' } }], cryptosuite: 'eddsa-rdfc-2022' },
      didAuth: w.jwt,
    })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(/^cryptosuite: DataIntegrityProof \(eddsa-rdfc-2022\) signs with Ed25519 keys, not secp256k1/)
    expect(await snapshot(h)).toEqual(before)
  })

  it('a proof naming an unknown cryptosuite: verified false (proof), not stored', async () => {
    const w = await keyWallet('Ed25519')
    const vc = await signed(w)
    const { verified, failed } = await refusedEverywhere(w, { ...vc, proof: { ...vc.proof, cryptosuite: 'no-such-suite-2099' } })
    expect(verified).toBe(false)
    expect(failed.map((c) => c.check)).toContain('proof')
  })

  it('a proof by another DID’s key (another did:key): its proof verifies for that DID, the issuer’s is missing (issuerProof)', async () => {
    const issuer = await keyWallet('Ed25519')
    const other = await keyWallet('Ed25519')
    // `other` signs a credential that names `issuer` as its issuer.
    const forged = await h.request('POST', '/claims/sign', {
      json: { iss: other.did, sub: 'did:example:alice', context: [V2], claims: [{ payload: { name: 'Alice' } }] },
      didAuth: other.jwt,
    })
    const vc = forged.body.vcs[0].jsonld
    const { verified, failed } = await refusedEverywhere(issuer, { ...vc, issuer: issuer.did })
    expect(verified).toBe(false)
    // Changing `issuer` breaks other's signature too; the issuer's own proof is missing either way.
    expect(failed.map((c) => c.check)).toEqual(expect.arrayContaining(['proof', 'issuerProof']))
  })

  it('a proof naming a method the issuer’s current document does not list: verified false (proof)', async () => {
    const w = await keyWallet('P-256')
    const vc = await signed(w)
    const notListed = `${w.did}#key-99`
    const { verified, failed } = await refusedEverywhere(w, { ...vc, proof: { ...vc.proof, verificationMethod: notListed } })
    expect(verified).toBe(false)
    expect(failed).toContainEqual(expect.objectContaining({ check: 'proof', verificationMethod: notListed }))
  })

  it('a proof copied onto another credential of the same issuer (another subject): verified false (proof)', async () => {
    const w = await keyWallet('P-256')
    const alice = await signed(w, {}, 'did:example:alice')
    const bob = await signed(w, {}, 'did:example:bob')
    expect((await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld: bob }] }, didAuth: w.jwt })).body.vcs[0].verified).toBe(
      true,
    )
    const { verified, failed } = await refusedEverywhere(w, { ...bob, proof: alice.proof })
    expect(verified).toBe(false)
    expect(failed.map((c) => c.check)).toEqual(['proof'])
  })

  it('a credential over the JSON-LD bounds fails alone (bounds), not stored; another tenant’s request at the same time is verified', async () => {
    const a = await keyWallet('Ed25519')
    const b = await keyWallet('P-256', TENANT_B)
    const big = await signed(a)
    big.credentialSubject.nums = Array.from({ length: 20_000 }, (_, i) => i)
    const small = await signed(b, {}, 'did:example:bob', TENANT_B)
    const before = await snapshot(h)
    const [heavy, light, stored] = await Promise.all([
      h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld: big }] }, didAuth: a.jwt }),
      h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld: small }] }, didAuth: b.jwt, token: TENANT_B }),
      h.request('POST', '/claims', { json: { claims: [{ jsonld: big }], verify: true }, didAuth: a.jwt }),
    ])
    const over = 'an array of 20000 elements (at credentialSubject.nums) is over the limit maxArrayLength = 1000'
    expect(heavy.body.vcs[0]).toMatchObject({ verified: false, checks: [{ check: 'bounds', verified: false, error: over }] })
    expect(light.body.vcs[0], JSON.stringify(light.body)).toMatchObject({ verified: true, issuer: b.did })
    expectError(stored, 422, 'VALIDATION_ERROR')
    expect(await snapshot(h)).toEqual(before)
  })

  describe('JCS (eddsa-jcs-2022) over JSON text', () => {
    const raw = (w: Wallet, path: string, body: string) =>
      h.request('POST', path, { body, headers: { 'content-type': 'application/json' }, didAuth: w.jwt })

    it('a member named twice — either reading — is 422 before anything is verified or stored; the credential itself verifies', async () => {
      const w = await keyWallet('Ed25519')
      const vc = await signed(w, { cryptosuite: 'eddsa-jcs-2022' })
      const text = JSON.stringify({ vcs: [{ jsonld: vc }] })
      expect(text).toContain('"name":"Alice"')
      const ok = await raw(w, '/claims/verify', text)
      expect(ok.body.vcs[0].verified, JSON.stringify(ok.body)).toBe(true)
      const before = await snapshot(h)
      // The signed value last (JSON.parse would verify it) or first (another reader would take it): both refused.
      for (const twice of ['"name":"Mallory","name":"Alice"', '"name":"Alice","name":"Mallory"']) {
        const duplicated = text.replace('"name":"Alice"', twice)
        for (const path of ['/claims/verify', '/claims']) {
          const res = await raw(w, path, path === '/claims' ? duplicated.replace('{"vcs":', '{"verify":true,"claims":') : duplicated)
          expectError(res, 422, 'VALIDATION_ERROR')
          const where = path === '/claims' ? 'claims' : 'vcs'
          expect(res.body.errorMessage).toBe(
            `invalid request: ${where}.0.jsonld.credentialSubject.name: a member appears twice in one object`,
          )
        }
      }
      // Escapes do not hide the repetition: "n\u0061me" is "name".
      const escaped = text.replace('"name":"Alice"', '"name":"Alice","n\\u0061me":"Alice"')
      expectError(await raw(w, '/claims/verify', escaped), 422, 'VALIDATION_ERROR')
      expect(await snapshot(h)).toEqual(before)
    })

    it('a lone surrogate in a string: 422 naming where, nothing stored', async () => {
      const w = await keyWallet('Ed25519')
      const vc = await signed(w, { cryptosuite: 'eddsa-jcs-2022' })
      const before = await snapshot(h)
      const text = JSON.stringify({ verify: true, claims: [{ jsonld: vc }] }).replace('"name":"Alice"', '"name":"Al\\ud800ice"')
      const res = await raw(w, '/claims', text)
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage).toBe(
        'invalid request: claims.0.jsonld.credentialSubject.name: a lone surrogate (ill-formed UTF-16) is not accepted in strings',
      )
      expect(await snapshot(h)).toEqual(before)
    })
  })
})

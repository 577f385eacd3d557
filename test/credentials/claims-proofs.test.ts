/**
 * Add and remove proofs through the router (memory and SQLite): `PATCH /claims` with `operation:
 * "addProof"` (alias `POST /claims/proofs`) and `operation: "removeProof"`. Spec rule 5 (owner
 * of the credential's DID, or a Write role assigned to it and held by the caller); JWTs cannot
 * take a second proof; existing proofs are kept as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  expectError,
  snapshot,
  startHarness,
  TENANT_B,
  tokenFor,
  walletWithToken,
  type Harness,
  REAL_STORAGES,
} from '../helpers/harness.js'

const VOCAB_URL = 'https://example.com/contexts/vocab/v1'
const VOCAB = { '@context': { '@version': 1.1, '@vocab': 'https://example.com/vocab#' } }

describe.each(REAL_STORAGES)('%s', (storage) => {
  let h: Harness
  let issuer: { did: string; _id: string; jwt: string }
  let cosigner: { did: string; _id: string; jwt: string }
  let stranger: { did: string; _id: string; jwt: string }
  let vc: { id: string; jsonld: Record<string, unknown> }
  let stored: { _id: string }
  let claimJwt: string
  beforeAll(async () => {
    h = await startHarness({ storage, service: { contexts: { [VOCAB_URL]: VOCAB } } })
    issuer = await walletWithToken(h)
    cosigner = await walletWithToken(h)
    stranger = await walletWithToken(h)
    const signed = await h.request('POST', '/claims/sign', {
      json: { iss: issuer.did, context: VOCAB_URL, claims: [{ payload: { member: true } }] },
      didAuth: issuer.jwt,
    })
    vc = signed.body.vcs[0]
    claimJwt = await tokenFor(h, vc.id)
    const role = await h.request('POST', '/roles', { json: { description: 'Co-signers', permissions: ['Write'] }, didAuth: issuer.jwt })
    await h.request('POST', '/roles/assignmnets', {
      json: { assignments: [{ role: role.body.role.did, did: cosigner.did }] },
      didAuth: issuer.jwt,
    })
    const res = await h.request('POST', '/claims', {
      json: { roles: [role.body.role.did], claims: [{ jsonld: vc.jsonld }] },
      didAuth: issuer.jwt,
    })
    stored = res.body.vcs[0]
  })
  afterAll(() => h?.close())

  const patch = (json: unknown, didAuth: string) => h.request('PATCH', '/claims', { json, didAuth })
  const storedDoc = async () => (await h.request('GET', `/claims?ids=${vc.id}`, { didAuth: issuer.jwt })).body.vcs[0].jsonld

  describe('addProof', () => {
    it('a Write-role holder co-signs a stored credential: the proof is appended, the first kept as it was, and the set verifies', async () => {
      const res = await patch({ operation: 'addProof', iss: cosigner.did, claims: [{ _id: stored._id }] }, cosigner.jwt)
      expect(res.status).toBe(200)
      expect(res.body.errors).toEqual([])
      const [patched] = res.body.vcs
      expect(patched._ids).toEqual([stored._id])
      expect(patched.jsonld.proof).toHaveLength(2)
      expect(patched.jsonld.proof[0]).toEqual(vc.jsonld.proof)
      expect(patched.jsonld.proof[1]).toMatchObject({ type: 'EcdsaKoblitzSignature2016', creator: `${cosigner.did}#controller` })
      expect(await storedDoc()).toEqual(patched.jsonld)
      const checked = await h.request('POST', '/claims/verify', { json: { claims: [{ jsonld: patched.jsonld }] }, didAuth: issuer.jwt })
      expect(checked.body.vcs[0].verified).toBe(true)
    })

    it('refusals are per-item errors with nothing written: no right (stranger), a JWT, a stored JWT, another tenant’s credential', async () => {
      const jwtVc = await h.request('POST', '/claims/sign', {
        json: { iss: issuer.did, format: 'JWT', claims: [{ payload: { member: true } }] },
        didAuth: issuer.jwt,
      })
      const storedJwt = await h.request('POST', '/claims', { json: { claims: [{ jwt: jwtVc.body.vcs[0].jwt }] }, didAuth: issuer.jwt })
      const b = await walletWithToken(h, TENANT_B)
      const before = await snapshot(h)
      const res = await patch(
        {
          operation: 'addProof',
          iss: stranger.did,
          claims: [{ _id: stored._id }, { jwt: jwtVc.body.vcs[0].jwt }, { _id: storedJwt.body.vcs[0]._id }],
        },
        stranger.jwt,
      )
      expect(res.status).toBe(200)
      expect(res.body.vcs).toEqual([])
      expect(res.body.errors.map((e: any) => [e.claim, e.error.errorType])).toEqual([
        [0, 'FORBIDDEN'],
        [1, 'VALIDATION_ERROR'],
        [2, 'VALIDATION_ERROR'],
      ])
      const other = await h.request('PATCH', '/claims', {
        json: { operation: 'addProof', claims: [{ _id: stored._id }] },
        didAuth: b.jwt,
        token: TENANT_B,
      })
      expect(other.body.errors[0].error.errorType).toBe('NOT_FOUND')
      // iss the caller does not control: 403 for the whole request; bad input: 422.
      expectError(await patch({ operation: 'addProof', iss: issuer.did, claims: [{ _id: stored._id }] }, stranger.jwt), 403, 'FORBIDDEN')
      expectError(await patch({ operation: 'addProof', claims: [] }, issuer.jwt), 422, 'VALIDATION_ERROR')
      expectError(await patch({ operation: 'sign', claims: [{ _id: stored._id }] }, issuer.jwt), 422, 'VALIDATION_ERROR')
      expect(await snapshot(h)).toEqual(before)
    })

    it('POST /claims/proofs: the owner of the credential’s DID adds a proof to a given JSON-LD credential; the stored record with its id follows', async () => {
      const current = await storedDoc()
      const res = await h.request('POST', '/claims/proofs', {
        json: { iss: vc.id, proofType: 'EcdsaSecp256k1RecoverySignature2020', claims: [{ jsonld: current }] },
        didAuth: claimJwt,
      })
      expect(res.status).toBe(200)
      expect(res.body.errors).toEqual([])
      expect(res.body.vcs[0]._ids).toEqual([stored._id])
      expect(res.body.vcs[0].jsonld.proof).toHaveLength(3)
      expect(res.body.vcs[0].jsonld.proof.slice(0, 2)).toEqual(current.proof)
      expect(await storedDoc()).toEqual(res.body.vcs[0].jsonld)
    })
  })

  describe('removeProof', () => {
    it('removes the caller’s own proofs only, keeping the others as they were', async () => {
      const current = await storedDoc()
      const res = await patch({ operation: 'removeProof', claims: [{ _id: stored._id }] }, cosigner.jwt)
      expect(res.status).toBe(200)
      expect(res.body.errors).toEqual([])
      expect(res.body.vcs[0].jsonld.proof).toEqual([current.proof[0], current.proof[2]])
      expect(await storedDoc()).toEqual(res.body.vcs[0].jsonld)
      // Nothing of the caller's is left: NOT_FOUND, nothing written.
      const b = await walletWithToken(h, TENANT_B)
      const before = await snapshot(h)
      const again = await patch({ operation: 'removeProof', claims: [{ _id: stored._id }] }, cosigner.jwt)
      expect(again.body.errors[0].error.errorType).toBe('NOT_FOUND')
      expect((await patch({ operation: 'removeProof', claims: [{ _id: stored._id }] }, stranger.jwt)).body.errors[0].error.errorType).toBe(
        'FORBIDDEN',
      )
      // Another tenant's caller does not see the credential at all.
      const other = await h.request('PATCH', '/claims', {
        json: { operation: 'removeProof', claims: [{ _id: stored._id }] },
        didAuth: b.jwt,
        token: TENANT_B,
      })
      expect(other.status).toBe(200)
      expect(other.body.errors[0].error.errorType).toBe('NOT_FOUND')
      expect(await snapshot(h)).toEqual(before)
    })
  })
})

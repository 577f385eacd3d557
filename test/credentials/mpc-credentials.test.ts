/**
 * Credentials issued by an MPC wallet (issue 11): signed through the same signer seam with the
 * quorum's approvals, they verify with the same verifiers as an ECS wallet's — JWT (did-jwt-vc)
 * and both JSON-LD suites — and without enough approvals nothing is signed or written.
 */
import { verifyCredential } from 'did-jwt-vc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, snapshot, startHarness, type Harness } from '../helpers/harness.js'
import { approvals, member, mpcVaultBody, type Member } from '../helpers/mpc.js'

const MEMBERSHIP_URL = 'https://example.com/contexts/membership/v1'
const MEMBERSHIP = {
  '@context': {
    '@version': 1.1,
    MembershipCredential: 'https://example.com/vocab#MembershipCredential',
    member: 'https://example.com/vocab#member',
  },
}

let h: Harness
let members: Member[]
let issuer: { did: string }

beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { contexts: { [MEMBERSHIP_URL]: MEMBERSHIP } } })
  members = await Promise.all([member(), member(), member()])
  const created = await h.request('POST', '/vaults', { json: mpcVaultBody(members) })
  const vaultId = created.body.vault.id
  expect(
    (await h.request('POST', `/vaults/${vaultId}/initialize`, { json: {}, didAuth: await approvals(members[0], members[1]) })).status,
  ).toBe(200)
  const wallet = await h.request('POST', `/vaults/${vaultId}/wallet`, { json: {}, didAuth: await approvals(members[1], members[2]) })
  expect(wallet.status, JSON.stringify(wallet.body)).toBe(200)
  issuer = wallet.body.wallet
})
afterAll(() => h.close())

const body = (extra: Record<string, unknown>) => ({
  iss: issuer.did,
  context: MEMBERSHIP_URL,
  type: 'MembershipCredential',
  sub: members[2].did,
  claims: [{ id: 'urn:uuid:5f0c1a2e-0000-4000-8000-000000000001', payload: { member: true } }],
  ...extra,
})

describe('credentials signed by an MPC wallet', () => {
  it.each([
    ['JWT', { format: 'JWT' }],
    ['JSON-LD EcdsaKoblitzSignature2016', {}],
    ['JSON-LD EcdsaSecp256k1RecoverySignature2020', { proofType: 'EcdsaSecp256k1RecoverySignature2020' }],
  ])('%s: signed with 2 of 3 approvals, verified by the service like an ECS wallet’s', async (_name, extra) => {
    const signed = await h.request('POST', '/claims/sign', { json: body(extra), didAuth: await approvals(members[0], members[2]) })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const [vc] = signed.body.vcs
    const credential = vc.jwt !== undefined ? { jwt: vc.jwt } : { jsonld: vc.jsonld }
    const verified = await h.request('POST', '/claims/verify', { json: { claims: [credential] }, didAuth: await approvals(members[0]) })
    expect(verified.status).toBe(200)
    expect(verified.body.vcs[0]).toMatchObject({ verified: true, issuer: issuer.did })
    if (vc.jwt !== undefined) {
      // did-jwt-vc's own verifier, over the service's resolver.
      await expect(verifyCredential(vc.jwt, h.service.resolver)).resolves.toMatchObject({ verified: true, issuer: issuer.did })
    }
  })

  it('with one approval of a 2-of-3 quorum: 403 naming what is missing, nothing written', async () => {
    const before = await snapshot(h)
    for (const extra of [{ format: 'JWT' }, {}]) {
      const res = await h.request('POST', '/claims/sign', { json: body(extra), didAuth: await approvals(members[1]) })
      expectError(res, 403, 'FORBIDDEN')
      expect(res.body.errorMessage).toMatch(/1 more approval/)
    }
    expect(await snapshot(h)).toEqual(before)
  })
})

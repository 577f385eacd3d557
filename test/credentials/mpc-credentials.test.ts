/**
 * Credentials issued by an MPC wallet (issue 11): signed through the same signer seam with the
 * quorum's approvals, they verify with the same verifiers as an ECS wallet's — JWT (did-jwt-vc)
 * and both JSON-LD suites — and without enough approvals nothing is signed or written. The same
 * holds for presentations an MPC wallet signs as holder (issue 20): did-jwt-vc verifies its VP-JWT.
 */
import { verifyCredential, verifyPresentation } from 'did-jwt-vc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, snapshot, startHarness, walletWithToken, type Harness } from '../helpers/harness.js'
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
let vaultId: string

beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { contexts: { [MEMBERSHIP_URL]: MEMBERSHIP } } })
  members = await Promise.all([member(), member(), member()])
  const created = await h.request('POST', '/vaults', { json: mpcVaultBody(members) })
  vaultId = created.body.vault.id
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

describe('an MPC wallet whose DID owner is now an ECS wallet of the tenant', () => {
  it('its new owner signs as it; a bystander of the same tenant (no quorum, no owner key) cannot: 403, nothing written', async () => {
    const made = await h.request('POST', `/vaults/${vaultId}/wallet`, { json: {}, didAuth: await approvals(members[0], members[1]) })
    const handed = made.body.wallet as { did: string }
    const heir = await walletWithToken(h)
    const own = await h.request('POST', '/did-auth-jwt', { json: { iss: handed.did }, didAuth: await approvals(members[0], members[1]) })
    const configured = await h.request('POST', '/wallet/configure', {
      json: { wallet: { did: handed.did }, walletConfig: { txsInput: [{ newOwner: heir.did }] } },
      didAuth: [own.body.jwt, await approvals(members[0], members[2])].join(','),
    })
    expect(configured.body.wallet?.registry.errors, JSON.stringify(configured.body)).toEqual([])
    const claim = (id: string) => ({ iss: handed.did, format: 'JWT', claims: [{ id, payload: { member: true } }] })

    const bystander = await walletWithToken(h)
    const before = await snapshot(h)
    for (const didAuth of [bystander.jwt, await approvals(members[1])]) {
      const res = await h.request('POST', '/claims/sign', { json: claim('urn:uuid:5f0c1a2e-0000-4000-8000-0000000000b1'), didAuth })
      expectError(res, 403, 'FORBIDDEN')
    }
    expect(await snapshot(h)).toEqual(before)

    const signed = await h.request('POST', '/claims/sign', {
      json: claim('urn:uuid:5f0c1a2e-0000-4000-8000-0000000000b2'),
      didAuth: heir.jwt,
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
  })
})

describe('presentations signed by an MPC wallet as holder', () => {
  const vcs: Record<string, unknown> = {}
  beforeAll(async () => {
    // JSON-LD: a Recovery2020 credential (a Koblitz 2016 proof's terms are not in these contexts: see the last test).
    for (const [format, extra] of [
      ['JWT', {}],
      ['JSON-LD', { proofType: 'EcdsaSecp256k1RecoverySignature2020' }],
    ] as const) {
      const signed = await h.request('POST', '/claims/sign', {
        json: body({ format, ...extra }),
        didAuth: await approvals(members[0], members[1]),
      })
      const [vc] = signed.body.vcs
      vcs[format] = vc.jwt !== undefined ? { jwt: vc.jwt } : { jsonld: vc.jsonld }
    }
  })
  const binding = (format: string): Record<string, string> => (format === 'JWT' ? { nonce: 'n-mpc' } : { challenge: 'c-mpc' })
  const present = (format: string) => ({ holder: issuer.did, format, ...binding(format), vcs: [vcs[format]] })

  it.each(['JWT', 'JSON-LD'])('%s: signed with 2 of 3 approvals; it verifies here, its binding checked', async (format) => {
    const signed = await h.request('POST', '/presentations/sign', {
      json: present(format),
      didAuth: await approvals(members[1], members[2]),
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const { presentation } = signed.body
    const verify = async (extra: Record<string, string>) =>
      (await h.request('POST', '/presentations/verify', { json: { presentation, ...extra }, didAuth: await approvals(members[0]) })).body
    const verified = await verify(binding(format))
    expect(verified.verified, JSON.stringify(verified.checks)).toBe(true)
    expect(verified.vcs[0]).toMatchObject({ verified: true, issuer: issuer.did })
    expect((await verify(format === 'JWT' ? { nonce: 'another' } : { challenge: 'another' })).verified).toBe(false)
    // did-jwt-vc's own verifier, over the service's resolver.
    if (format === 'JWT') {
      await expect(verifyPresentation(presentation.jwt, h.service.resolver)).resolves.toMatchObject({ verified: true, issuer: issuer.did })
    }
  })

  it('with one approval of a 2-of-3 quorum: 403 naming what is missing, nothing written', async () => {
    const before = await snapshot(h)
    for (const format of ['JWT', 'JSON-LD']) {
      const res = await h.request('POST', '/presentations/sign', { json: present(format), didAuth: await approvals(members[0]) })
      expectError(res, 403, 'FORBIDDEN')
      expect(res.body.errorMessage).toMatch(/1 more approval/)
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('a credential whose EcdsaKoblitzSignature2016 proof terms its contexts leave undefined: 422 saying so, nothing signed', async () => {
    const signed = await h.request('POST', '/claims/sign', {
      json: body({ format: 'JSON-LD' }),
      didAuth: await approvals(members[0], members[1]),
    })
    const json = { holder: issuer.did, format: 'JSON-LD', challenge: 'c', vcs: [{ jsonld: signed.body.vcs[0].jsonld }] }
    const res = await h.request('POST', '/presentations/sign', { json, didAuth: await approvals(members[1], members[2]) })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(/^vcs\.0: .*EcdsaKoblitzSignature2016 proof are not defined by its contexts.*JWT presentation/)
  })
})

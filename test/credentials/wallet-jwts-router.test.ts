/**
 * End to end through the router (loopback HTTP, SQLite file) for the wallets of every method and key type: a did:key,
 * did:jwk or did:web wallet of a secp256k1, P-256 or Ed25519 key signs its DID-auth token, a VC-JWT (Sign Claims) and a
 * VP-JWT (Sign Presentation) under its key type's algorithm (ES256K / ES256 / EdDSA) with the `kid` of the verification
 * method its DID's document lists (`<did>#key-0` for did:web); its token authenticates; our Verify Claim and Verify
 * Presentation accept both, and did-jwt-vc's `verifyCredential` / `verifyPresentation` accept them through
 * key-did-resolver and Veramo's did:jwk resolver (did:web: the document the router serves at `/dids/<id>/did.json`).
 * A did:web issuer's status list JWTs and JSON-LD proofs name that verification method too.
 * An MPC vault wallet of P-256 (BIP44) gets a token and signs a VC-JWT with its vault's quorum; below quorum: 403,
 * nothing written.
 */
import { getDidJwkResolver } from '@veramo/did-provider-jwk'
import { decodeJWT } from 'did-jwt'
import { verifyCredential, verifyPresentation } from 'did-jwt-vc'
import { Resolver, type DIDDocument, type DIDResolutionResult } from 'did-resolver'
import KeyDidResolver from 'key-did-resolver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, snapshot, startHarness, type Harness } from '../helpers/harness.js'
import { approvals, member, mpcVaultBody, type Member } from '../helpers/mpc.js'

const ALG = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' } as const
const CASES = (['key', 'jwk', 'web'] as const).flatMap((method) =>
  (['secp256k1', 'P-256', 'Ed25519'] as const).map((keyType) => [method, keyType, ALG[keyType]] as const),
)

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { publicUrl: 'https://vault.example.com/id' } })
})
afterAll(() => h.close())

/** did:web documents as the router serves them at `/dids/<walletId>/did.json` (where did:web fetches them from). */
const servedDidWeb = async (did: string): Promise<DIDResolutionResult> => {
  const res = await fetch(`${h.url}/dids/${did.split(':').at(-1)}/did.json`)
  expect(res.status).toBe(200)
  return { didDocument: (await res.json()) as DIDDocument, didDocumentMetadata: {}, didResolutionMetadata: {} }
}
const theirs = new Resolver({ ...KeyDidResolver.getResolver(), ...getDidJwkResolver(), web: servedDidWeb }, { cache: false })

/** The verification method the DID's document lists for its key (one key), as resolution through the router answers it. */
async function methodIdOf(did: string): Promise<string> {
  const res = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(did)}`)
  expect(res.status).toBe(200)
  const document = res.body.didDocument
  expect(document.authentication).toEqual(document.assertionMethod)
  return document.assertionMethod[0] as string
}

describe('wallets of each method and key type sign JWTs through the router', () => {
  it.each(CASES)(
    'did:%s, %s (%s): DID-auth token, VC-JWT and VP-JWT carry alg and kid; ours and did-jwt-vc verify them',
    async (method, keyType, alg) => {
      const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: method, keyType } } })
      expect(made.status, JSON.stringify(made.body)).toBe(200)
      const did: string = made.body.wallet.did
      const kid = await methodIdOf(did)
      if (method === 'web') expect(kid).toBe(`${did}#key-0`)

      const token = await h.request('POST', '/did-auth-jwt', { json: { iss: did } })
      expect(token.status).toBe(200)
      expect(decodeJWT(token.body.jwt).header).toMatchObject({ alg, kid })

      const signed = await h.request('POST', '/claims/sign', {
        json: { iss: did, format: 'JWT', sub: 'did:example:holder', claims: [{ payload: { degree: 'BSc' } }] },
        didAuth: token.body.jwt,
      })
      expect(signed.status, JSON.stringify(signed.body)).toBe(200)
      const vc: string = signed.body.vcs[0].jwt
      expect(decodeJWT(vc).header).toMatchObject({ alg, kid })
      // the token authenticates Verify Claim, which accepts the VC-JWT
      const checked = await h.request('POST', '/claims/verify', { json: { vcs: [{ jwt: vc }] }, didAuth: token.body.jwt })
      expect(checked.status).toBe(200)
      expect(checked.body.vcs[0]).toMatchObject({ verified: true, issuer: did })
      const theirVc = await verifyCredential(vc, theirs)
      expect(theirVc).toMatchObject({ verified: true, issuer: did })
      expect(theirVc.verifiableCredential.credentialSubject).toMatchObject({ degree: 'BSc' })

      const presented = await h.request('POST', '/presentations/sign', {
        json: { holder: did, format: 'JWT', nonce: 'n-e2e', aud: 'https://verifier.example', vcs: [{ jwt: vc }] },
        didAuth: token.body.jwt,
      })
      expect(presented.status, JSON.stringify(presented.body)).toBe(200)
      const vp: string = presented.body.presentation.jwt
      expect(decodeJWT(vp).header).toMatchObject({ alg, kid })
      const verify = async (nonce: string) =>
        (
          await h.request('POST', '/presentations/verify', {
            json: { presentation: { jwt: vp }, nonce, aud: 'https://verifier.example' },
            didAuth: token.body.jwt,
          })
        ).body
      const ours = await verify('n-e2e')
      expect(ours.verified, JSON.stringify(ours.checks)).toBe(true)
      expect(ours).toMatchObject({ holder: did, vcs: [{ verified: true, issuer: did }] })
      expect((await verify('another')).verified).toBe(false)
      const options = { challenge: 'n-e2e', domain: 'https://verifier.example' }
      expect(await verifyPresentation(vp, theirs, options)).toMatchObject({ verified: true, issuer: did })
      await expect(verifyPresentation(vp, theirs, { ...options, challenge: 'n-other' })).rejects.toThrow(/nonce/)
    },
  )
})

describe('the status lists of a did:web issuer', () => {
  it.each(['P-256', 'Ed25519'])('%s: the published list JWT names the key’s verification method (<did>#key-0)', async (keyType) => {
    const did: string = (await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'web', keyType } } })).body.wallet.did
    const token = (await h.request('POST', '/did-auth-jwt', { json: { iss: did } })).body.jwt
    const signed = await h.request('POST', '/claims/sign', {
      json: { iss: did, format: 'JWT', status: { purposes: ['revocation'] }, claims: [{ payload: { degree: 'BSc' } }] },
      didAuth: token,
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const { credentialStatus } = decodeJWT(signed.body.vcs[0].jwt).payload.vc as { credentialStatus: { statusListCredential: string } }
    const list = await h.request('GET', `/status/${credentialStatus.statusListCredential.split('/').pop()}`, { token: null })
    expect(list.status).toBe(200)
    expect(decodeJWT(list.body as string).header).toMatchObject({ alg: ALG[keyType as 'P-256'], kid: `${did}#key-0` })
    expect(await verifyCredential(list.body as string, theirs)).toMatchObject({ verified: true, issuer: did })
  })
})

describe('a did:web secp256k1 wallet signs JSON-LD', () => {
  it('its proof names the verification method its document lists (<did>#key-0), and Verify Claim accepts it', async () => {
    const did: string = (await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'web' } } })).body.wallet.did
    const token = (await h.request('POST', '/did-auth-jwt', { json: { iss: did } })).body.jwt
    const signed = await h.request('POST', '/claims/sign', {
      json: { iss: did, format: 'JSON-LD', sub: 'did:example:holder', claims: [{ payload: { name: 'x' } }] },
      didAuth: token,
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const { jsonld } = signed.body.vcs[0]
    expect(jsonld.proof).toMatchObject({ type: 'EcdsaKoblitzSignature2016', creator: `${did}#key-0` })
    const checked = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld }] }, didAuth: token })
    expect(checked.status).toBe(200)
    expect(checked.body.vcs[0]).toMatchObject({ verified: true, issuer: did })
  })
})

describe('an MPC vault wallet of P-256 (BIP44) signs through the router with its quorum', () => {
  let members: Member[]
  let did: string
  beforeAll(async () => {
    members = await Promise.all([member(), member(), member()])
    const body = mpcVaultBody(members, { hierarchy: 'BIP44', walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })
    const vaultId = (await h.request('POST', '/vaults', { json: body })).body.vault.id as string
    const init = await h.request('POST', `/vaults/${vaultId}/initialize`, { json: {}, didAuth: await approvals(members[0], members[1]) })
    expect(init.status, JSON.stringify(init.body)).toBe(200)
    const made = await h.request('POST', `/vaults/${vaultId}/wallet`, { json: {}, didAuth: await approvals(members[1], members[2]) })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    expect(made.body.wallet.publicKeyJwk).toMatchObject({ crv: 'P-256' })
    did = made.body.wallet.did
  })
  const claims = { format: 'JWT', sub: 'did:example:holder', claims: [{ payload: { degree: 'BSc' } }] }

  it('its DID-auth token (ES256, kid) authenticates; its VC-JWT verifies here and in did-jwt-vc', async () => {
    const kid = await methodIdOf(did)
    const token = await h.request('POST', '/did-auth-jwt', { json: { iss: did }, didAuth: await approvals(members[0], members[2]) })
    expect(token.status, JSON.stringify(token.body)).toBe(200)
    expect(decodeJWT(token.body.jwt).header).toMatchObject({ alg: 'ES256', kid })
    // Its JSON-LD form too, signed by the quorum with P-256's default suite (before issue 32: none).
    expect(token.body.jsonld.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'ecdsa-rdfc-2019', verificationMethod: kid })

    const signed = await h.request('POST', '/claims/sign', {
      json: { iss: did, ...claims },
      didAuth: await approvals(members[1], members[2]),
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const vc: string = signed.body.vcs[0].jwt
    expect(decodeJWT(vc).header).toMatchObject({ alg: 'ES256', kid })
    // the wallet's own token authenticates Verify Claim
    const checked = await h.request('POST', '/claims/verify', { json: { vcs: [{ jwt: vc }] }, didAuth: token.body.jwt })
    expect(checked.status).toBe(200)
    expect(checked.body.vcs[0]).toMatchObject({ verified: true, issuer: did })
    expect(await verifyCredential(vc, theirs)).toMatchObject({ verified: true, issuer: did })
  })

  it('below quorum: token and VC-JWT are 403 naming the missing approval; nothing is written', async () => {
    const before = await snapshot(h)
    const token = await h.request('POST', '/did-auth-jwt', { json: { iss: did }, didAuth: await approvals(members[0]) })
    const signed = await h.request('POST', '/claims/sign', { json: { iss: did, ...claims }, didAuth: await approvals(members[1]) })
    for (const res of [token, signed]) {
      expectError(res, 403, 'FORBIDDEN')
      expect(res.body.errorMessage).toMatch(/^MPC quorum not met: 1 more approval needed from members of group "signers"/)
    }
    expect(await snapshot(h)).toEqual(before)
  })
})

/**
 * Choosing a JSON-LD proof's suite (docs/credentials.md *Formats and proofs*), through the router on loopback HTTP
 * (SQLite file) and the embedded API: Sign, Add Proof and Sign Presentation take `proofType` / `cryptosuite`, or the
 * suite registry's default for the signing key's type (secp256k1: EcdsaKoblitzSignature2016 for credentials,
 * EcdsaSecp256k1RecoverySignature2020 for presentations; P-256: DataIntegrityProof ecdsa-rdfc-2019). An unknown cryptosuite, a suite of another key type, a
 * `cryptosuite` with another `proofType` and a suite that takes no challenge for a presentation are 422 with the
 * spec's error body, and nothing is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityError } from '../../src/errors.js'
import { snapshot, startHarness, TENANT_A, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'

const KOBLITZ = 'EcdsaKoblitzSignature2016'
const RECOVERY = 'EcdsaSecp256k1RecoverySignature2020'
const DATA_INTEGRITY = ['ecdsa-rdfc-2019', 'eddsa-rdfc-2022', 'ecdsa-jcs-2019', 'eddsa-jcs-2022', 'ecdsa-sd-2023', 'bbs-2023']
const REGISTERED = `the registered suites: ${[KOBLITZ, RECOVERY, ...DATA_INTEGRITY.map((c) => `DataIntegrityProof (${c})`)].join(', ')}`

let h: Harness
let issuer: { did: string; jwt: string }
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
  issuer = await walletWithToken(h)
})
afterAll(() => h.close())

const claims = [{ payload: { degree: 'BSc' } }]

/** A wallet of `keyType` (did:key) and its DID-auth token. */
async function keyWallet(keyType: string) {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'key', keyType } } })
  expect(made.status).toBe(200)
  const did: string = made.body.wallet.did
  const token = await h.request('POST', '/did-auth-jwt', { json: { iss: did } })
  return { did, jwt: token.body.jwt as string }
}

/** The 422 body with `errorMessage`, and nothing written by `send`. */
async function refused(send: () => Promise<{ status: number; body: unknown }>, errorMessage: string) {
  const before = await snapshot(h)
  const res = await send()
  expect(res.status).toBe(422)
  expect(res.body).toEqual({ statusCode: 422, errorType: 'VALIDATION_ERROR', errorMessage })
  expect(await snapshot(h)).toEqual(before)
}

describe('choosing the proof suite', () => {
  it('Sign and Add Proof take the key type’s default, or the named proofType', async () => {
    const byDefault = await h.request('POST', '/claims/sign', { json: { iss: issuer.did, claims }, didAuth: issuer.jwt })
    expect(byDefault.status).toBe(200)
    expect(byDefault.body.vcs[0].jsonld.proof.type).toBe(KOBLITZ)
    const named = await h.request('POST', '/claims/sign', {
      json: { iss: issuer.did, claims, proofType: RECOVERY },
      didAuth: issuer.jwt,
    })
    expect(named.body.vcs[0].jsonld.proof.type).toBe(RECOVERY)
    // The owner of the credential's DID adds the proof.
    const vc = byDefault.body.vcs[0]
    const added = await h.request('POST', '/claims/proofs', {
      json: { iss: vc.id, vcs: [{ jsonld: vc.jsonld }], proofType: RECOVERY },
      didAuth: await tokenFor(h, vc.id),
    })
    expect(added.status).toBe(200)
    expect(added.body.errors).toEqual([])
    expect(added.body.vcs[0].jsonld.proof.map((p: { type: string }) => p.type)).toEqual([KOBLITZ, RECOVERY])
  })

  it('an unknown cryptosuite is 422 on Sign, Add Proof and Sign Presentation; nothing is written', async () => {
    const message = `cryptosuite: unsupported cryptosuite "no-such-suite-2099"; ${REGISTERED}`
    const signed = await h.request('POST', '/claims/sign', { json: { iss: issuer.did, claims }, didAuth: issuer.jwt })
    const vc = signed.body.vcs[0].jsonld
    const cryptosuite = 'no-such-suite-2099'
    await refused(() => h.request('POST', '/claims/sign', { json: { iss: issuer.did, claims, cryptosuite }, didAuth: issuer.jwt }), message)
    await refused(
      () =>
        h.request('POST', '/claims/sign', {
          json: { iss: issuer.did, claims, proofType: 'DataIntegrityProof', cryptosuite },
          didAuth: issuer.jwt,
        }),
      message,
    )
    await refused(
      () => h.request('POST', '/claims/proofs', { json: { iss: issuer.did, vcs: [{ jsonld: vc }], cryptosuite }, didAuth: issuer.jwt }),
      message,
    )
    await refused(
      () =>
        h.request('POST', '/presentations/sign', {
          json: { holder: issuer.did, format: 'JSON-LD', challenge: 'c', vcs: [{ jsonld: vc }], cryptosuite },
          didAuth: issuer.jwt,
        }),
      message,
    )
  })

  it('a cryptosuite with another proofType is 422 (the schema’s answer)', async () => {
    const json = { iss: issuer.did, claims, proofType: KOBLITZ, cryptosuite: 'ecdsa-rdfc-2019' }
    const res = await h.request('POST', '/claims/sign', { json, didAuth: issuer.jwt })
    expect(res.status).toBe(422)
    expect(res.body.errorMessage).toContain('cryptosuite: only with proofType "DataIntegrityProof" (or alone)')
  })

  it('a suite that does not sign with the key’s type is 422; a P-256 key signs with its default, ecdsa-rdfc-2019', async () => {
    const p256 = await keyWallet('P-256')
    await refused(
      () => h.request('POST', '/claims/sign', { json: { iss: p256.did, claims, proofType: RECOVERY }, didAuth: p256.jwt }),
      `proofType: ${RECOVERY} signs with secp256k1 keys, not P-256; for P-256 keys: ` +
        'DataIntegrityProof (ecdsa-rdfc-2019), DataIntegrityProof (ecdsa-jcs-2019), DataIntegrityProof (ecdsa-sd-2023)',
    )
    const res = await h.request('POST', '/claims/sign', {
      json: { iss: p256.did, claims, context: ['https://www.w3.org/ns/credentials/v2'] },
      didAuth: p256.jwt,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const { proof } = res.body.vcs[0].jsonld
    expect(Object.keys(proof).sort()).toEqual(['created', 'cryptosuite', 'proofPurpose', 'proofValue', 'type', 'verificationMethod'])
    expect(proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'ecdsa-rdfc-2019', proofPurpose: 'assertionMethod' })
    expect(proof.verificationMethod).toMatch(new RegExp(`^${p256.did}#`))
    const verified = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld: res.body.vcs[0].jsonld }] }, didAuth: p256.jwt })
    expect(verified.body.vcs[0]).toMatchObject({ verified: true, issuer: p256.did })
  })

  it('a presentation takes the registry’s suite that takes a challenge; Koblitz2016 is 422', async () => {
    const signed = await h.request('POST', '/claims/sign', { json: { iss: issuer.did, claims }, didAuth: issuer.jwt })
    const json = { holder: issuer.did, format: 'JSON-LD', challenge: 'c', vcs: [{ jsonld: signed.body.vcs[0].jsonld }] }
    const presented = await h.request('POST', '/presentations/sign', { json, didAuth: issuer.jwt })
    expect(presented.status).toBe(200)
    expect(presented.body.presentation.jsonld.proof).toMatchObject({ type: RECOVERY, proofPurpose: 'authentication', challenge: 'c' })
    await refused(
      () => h.request('POST', '/presentations/sign', { json: { ...json, proofType: KOBLITZ }, didAuth: issuer.jwt }),
      `proofType: ${KOBLITZ} takes no challenge, so it cannot sign a presentation; for secp256k1 keys: ${RECOVERY}`,
    )
  })

  it('the embedded API answers the same 422', async () => {
    const api = h.service.as({ authorization: TENANT_A, didAuth: issuer.jwt })
    const before = await snapshot(h)
    const err = await api.signClaims({ iss: issuer.did, claims, cryptosuite: 'no-such-suite-2099' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(IdentityError)
    expect(err).toMatchObject({ statusCode: 422, message: `cryptosuite: unsupported cryptosuite "no-such-suite-2099"; ${REGISTERED}` })
    expect(await snapshot(h)).toEqual(before)
  })
})

/**
 * The proof-suite registry (src/proofs/suites/index.ts): lookup of a proof's suite by `type` and `cryptosuite`, the
 * suite a new proof takes — named by `proofType` / `cryptosuite` or by default from the key type —, and the 422s
 * naming what fits when a name is unknown, a suite does not sign with the key's type, or cannot sign a presentation.
 * The Data Integrity suites' own rules: the proof options they write, the purpose and the resolver they verify under,
 * the options they refuse. What every suite must do (sign with its key types, verify, refuse changes) is the shared
 * conformance suite's: test/proofs/suites-conformance.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityError } from '../../src/errors.js'
import { verifyJsonLd } from '../../src/proofs/jsonld/index.js'
import { proofSuites, suiteName, suiteOfProof, suitesFor, suiteToSign } from '../../src/proofs/suites/index.js'
import { bbs2023, ecdsaSd2023 } from '../../src/proofs/data-integrity/index.js'
import { bbsPortIdentity, openSealedKeys, portIdentity, resolver } from './data-integrity/helpers.js'

const KOBLITZ = 'EcdsaKoblitzSignature2016'
const RECOVERY = 'EcdsaSecp256k1RecoverySignature2020'
const DI = (cryptosuite: string) => `DataIntegrityProof (${cryptosuite})`
const REGISTERED = [
  KOBLITZ,
  RECOVERY,
  ...['ecdsa-rdfc-2019', 'eddsa-rdfc-2022', 'ecdsa-jcs-2019', 'eddsa-jcs-2022', 'ecdsa-sd-2023', 'bbs-2023'].map(DI),
]

let port: Awaited<ReturnType<typeof openSealedKeys>>
beforeAll(async () => {
  port = await openSealedKeys()
})
afterAll(() => port.close())

/** The 422 `run` throws, as its message. */
function refusal(run: () => unknown): string {
  try {
    run()
  } catch (err) {
    expect(err).toBeInstanceOf(IdentityError)
    expect((err as IdentityError).statusCode).toBe(422)
    return (err as IdentityError).message
  }
  throw new Error('no refusal')
}

describe('the proof-suite registry', () => {
  it('finds a proof’s suite by type (and cryptosuite), and none for an unknown one', () => {
    expect(suiteOfProof(KOBLITZ)?.type).toBe(KOBLITZ)
    expect(suiteOfProof(RECOVERY)?.type).toBe(RECOVERY)
    expect(suiteOfProof('RsaSignature2018')).toBeUndefined()
    expect(suiteOfProof('DataIntegrityProof', 'no-such-suite-2099')).toBeUndefined()
    expect(suiteOfProof('DataIntegrityProof', 'eddsa-jcs-2022')?.cryptosuite).toBe('eddsa-jcs-2022')
    expect(suiteOfProof('DataIntegrityProof')).toBeUndefined()
    expect(proofSuites().map(suiteName)).toEqual(REGISTERED)
    expect(suitesFor('secp256k1', 'presentation').map((s) => s.type)).toEqual([RECOVERY])
    expect(suitesFor('P-256', 'presentation').map(suiteName)).toEqual(['ecdsa-rdfc-2019', 'ecdsa-jcs-2019', 'ecdsa-sd-2023'].map(DI))
    expect(suitesFor('Ed25519').map(suiteName)).toEqual(['eddsa-rdfc-2022', 'eddsa-jcs-2022'].map(DI))
  })

  it('picks the named suite, else the key type’s default (a presentation: one that takes a challenge)', () => {
    expect(suiteToSign('secp256k1').type).toBe(KOBLITZ)
    expect(suiteToSign('secp256k1', {}, 'presentation').type).toBe(RECOVERY)
    expect(suiteToSign('secp256k1', { proofType: RECOVERY }).type).toBe(RECOVERY)
    expect(suiteName(suiteToSign('P-256'))).toBe(DI('ecdsa-rdfc-2019'))
    expect(suiteName(suiteToSign('Ed25519', {}, 'presentation'))).toBe(DI('eddsa-rdfc-2022'))
    expect(suiteName(suiteToSign('P-256', { cryptosuite: 'ecdsa-jcs-2019' }))).toBe(DI('ecdsa-jcs-2019'))
    expect(suiteName(suiteToSign('Bls12381G2'))).toBe(DI('bbs-2023'))
    expect(suiteName(suiteToSign('Ed25519', { proofType: 'DataIntegrityProof', cryptosuite: 'eddsa-jcs-2022' }))).toBe(DI('eddsa-jcs-2022'))
  })

  it('refuses with 422 naming what fits: unknown names, a suite of another key type, cryptosuite with another proofType', () => {
    expect(refusal(() => suiteToSign('secp256k1', { cryptosuite: 'no-such-suite-2099' }))).toBe(
      `cryptosuite: unsupported cryptosuite "no-such-suite-2099"; the registered suites: ${REGISTERED.join(', ')}`,
    )
    expect(refusal(() => suiteToSign('secp256k1', { proofType: 'RsaSignature2018' }))).toBe(
      `proofType: unsupported proof type "RsaSignature2018"; the registered suites: ${REGISTERED.join(', ')}`,
    )
    expect(refusal(() => suiteToSign('secp256k1', { proofType: KOBLITZ, cryptosuite: 'ecdsa-rdfc-2019' }))).toBe(
      `cryptosuite: only with proofType "DataIntegrityProof" (or alone), not with "${KOBLITZ}"`,
    )
    expect(refusal(() => suiteToSign('Ed25519', { proofType: RECOVERY }))).toBe(
      `proofType: ${RECOVERY} signs with secp256k1 keys, not Ed25519; for Ed25519 keys: ${DI('eddsa-rdfc-2022')}, ${DI('eddsa-jcs-2022')}`,
    )
    expect(refusal(() => suiteToSign('P-256', { cryptosuite: 'bbs-2023' }))).toBe(
      `cryptosuite: ${DI('bbs-2023')} signs with Bls12381G2 keys, not P-256; for P-256 keys: ` +
        ['ecdsa-rdfc-2019', 'ecdsa-jcs-2019', 'ecdsa-sd-2023'].map(DI).join(', '),
    )
    expect(refusal(() => suiteToSign('Bls12381G2', { cryptosuite: 'ecdsa-rdfc-2019' }))).toBe(
      `cryptosuite: ${DI('ecdsa-rdfc-2019')} signs with P-256 keys, not Bls12381G2; for Bls12381G2 keys: ${DI('bbs-2023')}`,
    )
    expect(refusal(() => suiteToSign('Bls12381G2', {}, 'presentation'))).toBe(
      `proofType: ${DI('bbs-2023')} takes no challenge, so it cannot sign a presentation; for Bls12381G2 keys: none registered`,
    )
    expect(refusal(() => suiteToSign('Ed25519', { cryptosuite: 'ecdsa-sd-2023' }))).toBe(
      `cryptosuite: ${DI('ecdsa-sd-2023')} signs with P-256 keys, not Ed25519; for Ed25519 keys: ${DI('eddsa-rdfc-2022')}, ${DI('eddsa-jcs-2022')}`,
    )
    expect(refusal(() => suiteToSign('secp256k1', { cryptosuite: 'eddsa-rdfc-2022' }))).toBe(
      `cryptosuite: ${DI('eddsa-rdfc-2022')} signs with Ed25519 keys, not secp256k1; for secp256k1 keys: ${KOBLITZ}, ${RECOVERY}`,
    )
    expect(refusal(() => suiteToSign('secp256k1', { proofType: 'DataIntegrityProof' }))).toBe(
      'cryptosuite: name the cryptosuite of a DataIntegrityProof (for secp256k1 keys: none registered)',
    )
    expect(refusal(() => suiteToSign('secp256k1', { proofType: KOBLITZ }, 'presentation'))).toBe(
      `proofType: ${KOBLITZ} takes no challenge, so it cannot sign a presentation; for secp256k1 keys: ${RECOVERY}`,
    )
  })

  it('a Data Integrity proof: its options as signed, verified under its purpose only and through a resolver only; no nonce', async () => {
    const dataIntegrity = proofSuites().filter((suite) => suite.type === 'DataIntegrityProof')
    expect(dataIntegrity).toHaveLength(6)
    for (const suite of dataIntegrity) {
      const keyType = suite.keyTypes[0]
      const { signer, did, verificationMethod } =
        keyType === 'Bls12381G2' ? await bbsPortIdentity(port.keys) : await portIdentity(port.keys, keyType)
      const document = {
        '@context': ['https://www.w3.org/ns/credentials/v2'],
        type: ['VerifiableCredential'],
        issuer: did,
        validFrom: '2026-01-01T00:00:00Z',
        credentialSubject: { id: 'did:example:subject' },
      }
      const created = new Date('2026-01-01T00:00:00.250Z')
      const signed = await suite.sign(document, signer, { creator: verificationMethod, created })
      expect(signed.proof).toMatchObject({
        type: 'DataIntegrityProof',
        cryptosuite: suite.cryptosuite,
        // bbs-2023 writes no `created` (it would tell derived proofs of one credential apart).
        ...(suite.cryptosuite !== 'bbs-2023' && { created: '2026-01-01T00:00:00Z' }),
        verificationMethod,
        proofPurpose: 'assertionMethod',
      })
      const none = async () => []
      // An ecdsa-sd-2023 or bbs-2023 base proof is the holder's to derive from; what a verifier gets is the derived one.
      const sd = { 'ecdsa-sd-2023': ecdsaSd2023, 'bbs-2023': bbs2023 }[suite.cryptosuite as string]
      const checked = sd === undefined ? signed : await sd.derive(signed, ['/validFrom'])
      if (checked !== signed) expect(await verifyJsonLd(signed, { resolveSigningKeys: none, resolver })).toMatchObject({ verified: false })
      if (suite.cryptosuite === 'ecdsa-sd-2023') {
        expect(await verifyJsonLd(signed, { resolveSigningKeys: none, resolver })).toMatchObject({
          verified: false,
          error: 'proof 0: signature: The proof does not include a valid "proofValue" property.',
        })
      }
      const asPresentation = await verifyJsonLd(checked, { resolveSigningKeys: none, resolver, proofPurpose: 'authentication' })
      expect(asPresentation).toMatchObject({ verified: false, error: 'proof 0: purpose: the proof is not made for authentication' })
      expect(await verifyJsonLd(checked, { resolveSigningKeys: none })).toMatchObject({
        verified: false,
        error: `proof 0: a ${suite.cryptosuite} proof is verified through a DID resolver; none was given`,
      })
      await expect(suite.sign(document, signer, { creator: verificationMethod, nonce: 'n' })).rejects.toMatchObject({
        statusCode: 422,
        message: `nonce: not supported with DataIntegrityProof (${suite.cryptosuite}) proofs`,
      })
    }
  })
})

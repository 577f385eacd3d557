/**
 * The proof-suite registry (src/proofs/suites/index.ts): lookup of a proof's suite by `type` and `cryptosuite`, the
 * suite a new proof takes — named by `proofType` / `cryptosuite` or by default from the key type —, and the 422s
 * naming what fits when a name is unknown, a suite does not sign with the key's type, or cannot sign a presentation.
 * Every registered suite signs through a wallet's `KeySigner` and its proof verifies.
 */
import { describe, expect, it } from 'vitest'
import { IdentityError } from '../../src/errors.js'
import { digestKeySigner } from '../../src/keys/port-signers.js'
import { LocalSigner } from '../../src/keys/secp256k1.js'
import { CREDENTIALS_V1_URL, verifyJsonLd } from '../../src/proofs/jsonld/index.js'
import { proofSuites, suiteOfProof, suitesFor, suiteToSign } from '../../src/proofs/suites/index.js'

const KOBLITZ = 'EcdsaKoblitzSignature2016'
const RECOVERY = 'EcdsaSecp256k1RecoverySignature2020'

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
    expect(proofSuites().map((s) => s.type)).toEqual([KOBLITZ, RECOVERY])
    expect(suitesFor('secp256k1', 'presentation').map((s) => s.type)).toEqual([RECOVERY])
  })

  it('picks the named suite, else the key type’s default (a presentation: one that takes a challenge)', () => {
    expect(suiteToSign('secp256k1').type).toBe(KOBLITZ)
    expect(suiteToSign('secp256k1', {}, 'presentation').type).toBe(RECOVERY)
    expect(suiteToSign('secp256k1', { proofType: RECOVERY }).type).toBe(RECOVERY)
  })

  it('refuses with 422 naming what fits: unknown names, a suite of another key type, cryptosuite with another proofType', () => {
    expect(refusal(() => suiteToSign('secp256k1', { cryptosuite: 'no-such-suite-2099' }))).toBe(
      `cryptosuite: unsupported cryptosuite "no-such-suite-2099"; the registered suites: ${KOBLITZ}, ${RECOVERY}`,
    )
    expect(refusal(() => suiteToSign('secp256k1', { proofType: 'RsaSignature2018' }))).toBe(
      `proofType: unsupported proof type "RsaSignature2018"; the registered suites: ${KOBLITZ}, ${RECOVERY}`,
    )
    expect(refusal(() => suiteToSign('secp256k1', { proofType: KOBLITZ, cryptosuite: 'ecdsa-rdfc-2019' }))).toBe(
      `cryptosuite: only with proofType "DataIntegrityProof" (or alone), not with "${KOBLITZ}"`,
    )
    expect(refusal(() => suiteToSign('Ed25519', { proofType: RECOVERY }))).toBe(
      `proofType: ${RECOVERY} signs with secp256k1 keys, not Ed25519; for Ed25519 keys: none registered`,
    )
    expect(refusal(() => suiteToSign('secp256k1', { proofType: 'DataIntegrityProof' }))).toBe(
      'cryptosuite: name the cryptosuite of a DataIntegrityProof (for secp256k1 keys: none registered)',
    )
    expect(refusal(() => suiteToSign('secp256k1', { proofType: KOBLITZ }, 'presentation'))).toBe(
      `proofType: ${KOBLITZ} takes no challenge, so it cannot sign a presentation; for secp256k1 keys: ${RECOVERY}`,
    )
  })

  it('a key type whose default suite is not registered is 422 naming that suite and the registered ones', () => {
    expect(refusal(() => suiteToSign('P-256'))).toBe(
      'a P-256 key cannot sign a JSON-LD proof here: its suite DataIntegrityProof (ecdsa-rdfc-2019) is not registered; ' +
        `the registered suites (${KOBLITZ}, ${RECOVERY}) sign with secp256k1 keys; Data Integrity suites for P-256 keys ` +
        'are not registered. Sign as a JWT (format: "JWT")',
    )
    expect(refusal(() => suiteToSign('Ed25519', {}, 'presentation'))).toContain('its suite DataIntegrityProof (eddsa-rdfc-2022)')
  })

  it('every registered suite signs through a wallet’s KeySigner and its proof verifies (and not under another key)', async () => {
    const signer = digestKeySigner(new LocalSigner(new Uint8Array(32).fill(7)))
    const did = `did:ethr:${signer.digest!.address}`
    const document = {
      '@context': [CREDENTIALS_V1_URL],
      type: ['VerifiableCredential'],
      issuer: did,
      issuanceDate: '2026-01-01T00:00:00Z',
      credentialSubject: { id: 'did:example:subject' },
    }
    for (const suite of proofSuites()) {
      const signed = await suite.sign(document, signer, { creator: `${did}#controller`, created: new Date('2026-01-01T00:00:00Z') })
      expect(signed.proof).toMatchObject({ type: suite.type })
      const keys = async () => [{ ethereumAddress: signer.digest!.address }]
      expect(await verifyJsonLd(signed, { resolveSigningKeys: keys })).toMatchObject({ verified: true })
      const other = async () => [{ ethereumAddress: '0x0000000000000000000000000000000000000001' }]
      expect(await verifyJsonLd(signed, { resolveSigningKeys: other })).toMatchObject({ verified: false })
    }
  })
})

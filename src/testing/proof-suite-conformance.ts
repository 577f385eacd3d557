/**
 * The proof-suite conformance suite of `didvault/testing`: what every JSON-LD proof suite behind the proof-suite port
 * (`ProofSuite`, src/proofs/suites/port.ts) must do, asserted through the port and the proof set that verifies a
 * document's proofs — sign a credential (and, when it authenticates, a presentation with a challenge) with each key
 * type it declares, verify it, and refuse it with a byte of the document or of the proof changed, its proof copied onto
 * another document, and a key type it does not declare. Every registered suite runs it
 * (test/proofs/suites-conformance.test.ts); a new suite runs it with one call.
 */
import { describe, expect, it } from 'vitest'
import { IdentityError } from '../errors.js'
import { KEY_TYPES } from '../keys/key-types.js'
import { CREDENTIALS_V2_URL } from '../proofs/jsonld/contexts.js'
import { verifyProofSet } from '../proofs/jsonld/proof-set.js'
import type { JsonLdDocument, VerifyOptions } from '../proofs/jsonld/types.js'
import type { ProofObject, ProofSigner, ProofSuite, SuiteKeyType } from '../proofs/suites/port.js'
import { fixturePerTest } from './fixture-per-test.js'

/** A key of one type and the DID it is a verification method of. */
export interface ProofSuiteIdentity {
  signer: ProofSigner
  /** The DID whose document lists the key under `assertionMethod` and `authentication`. */
  did: string
  /** The key's DID URL: the proofs' `creator` / `verificationMethod`. */
  verificationMethod: string
}

/** What the factory given to {@link runProofSuiteConformance} returns. */
export interface ProofSuiteFixture {
  /**
   * A new identity with a key of `keyType`: every type of `KEY_TYPES` (those the suite does not declare are refused),
   * and `Bls12381G2` for a suite that declares it (bbs-2023).
   */
  identityFor(keyType: SuiteKeyType): Promise<ProofSuiteIdentity>
  /** What verifies the identities' proofs: `resolveSigningKeys` and/or a `resolver` of their DIDs. */
  verifyOptions: Pick<VerifyOptions, 'resolveSigningKeys' | 'resolver'>
  /**
   * What a verifier is given of a document the suite signed; default the document itself (ecdsa-sd-2023, bbs-2023: a
   * proof derived from the base proof, disclosing every member).
   */
  verifiable?(signed: JsonLdDocument): Promise<JsonLdDocument>
  /** Called after each test. */
  cleanup?: () => Promise<void>
}

const CREATED = new Date('2026-01-01T00:00:00Z')
const CHALLENGE = 'c0ffee-challenge'
/** The members of a proof that hold its signature, in the suites' forms (RDFC/JCS `proofValue`, detached `jws`, hex). */
const SIGNATURE_MEMBERS = ['proofValue', 'jws', 'signatureValue'] as const

function credential(issuer: string, name = 'Alice'): JsonLdDocument {
  return {
    '@context': [CREDENTIALS_V2_URL],
    type: ['VerifiableCredential'],
    issuer,
    validFrom: '2026-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:holder', name },
  }
}

function presentation(holder: string): JsonLdDocument {
  return { '@context': [CREDENTIALS_V2_URL], type: ['VerifiablePresentation'], holder }
}

/** The one proof of `document`. */
function proofOf(document: JsonLdDocument): ProofObject {
  const { proof } = document
  if (typeof proof !== 'object' || proof === null || Array.isArray(proof)) throw new Error('the document has not exactly one proof')
  return proof as ProofObject
}

/** `text` with the character at `at` changed to another of the base58, base64url and hex alphabets. */
function changedAt(text: string, at: number): string {
  return text.slice(0, at) + (text[at] === '2' ? '3' : '2') + text.slice(at + 1)
}

/** `document` with a character in the middle of its proof's signature (of a JWS, its signature part) changed. */
function withChangedSignature(document: JsonLdDocument): JsonLdDocument {
  const proof = proofOf(document)
  const member = SIGNATURE_MEMBERS.find((name) => typeof proof[name] === 'string')
  if (member === undefined) throw new Error(`the proof has none of ${SIGNATURE_MEMBERS.join(', ')}`)
  const value = proof[member] as string
  const start = value.lastIndexOf('.') + 1
  return { ...document, proof: { ...proof, [member]: changedAt(value, start + Math.floor((value.length - start) / 2)) } }
}

/**
 * Declares the conformance suite of `suite`. `factory` makes the identities' key source and what verifies their proofs
 * before each test.
 */
export function runProofSuiteConformance(suite: ProofSuite, factory: () => Promise<ProofSuiteFixture>): void {
  const name = suite.cryptosuite === undefined ? suite.type : `${suite.type} (${suite.cryptosuite})`
  describe(`proof suite conformance: ${name}`, () => {
    const fixture = fixturePerTest(factory, 'proof suite')
    const select = (type: string, cryptosuite?: string) =>
      type === suite.type && (suite.cryptosuite === undefined || cryptosuite === suite.cryptosuite) ? suite : undefined
    const verify = (document: JsonLdDocument, proofPurpose: VerifyOptions['proofPurpose'] = 'assertionMethod') =>
      verifyProofSet(document, { ...fixture().verifyOptions, proofPurpose }, select)
    const verifiable = (signed: JsonLdDocument) => fixture().verifiable?.(signed) ?? Promise.resolve(signed)
    const signCredential = async (keyType: SuiteKeyType, name?: string) => {
      const { signer, did, verificationMethod } = await fixture().identityFor(keyType)
      return suite.sign(credential(did, name), signer, { creator: verificationMethod, created: CREATED })
    }

    it('declares the key types it signs with', () => {
      expect(suite.keyTypes.length).toBeGreaterThan(0)
      for (const keyType of suite.keyTypes) expect([...KEY_TYPES, 'Bls12381G2']).toContain(keyType)
    })

    for (const keyType of suite.keyTypes) {
      it(`signs a credential with a ${keyType} key: its proof verifies; a changed claim or signature does not`, async () => {
        const signed = await signCredential(keyType)
        expect(proofOf(signed)).toMatchObject({ type: suite.type, ...(suite.cryptosuite && { cryptosuite: suite.cryptosuite }) })
        const checked = await verifiable(signed)
        const verified = await verify(checked)
        expect(verified, verified.error).toMatchObject({ verified: true })
        const subject = checked.credentialSubject as Record<string, unknown>
        const changedClaim = { ...checked, credentialSubject: { ...subject, name: 'Alicf' } }
        for (const refused of [changedClaim, withChangedSignature(checked)]) {
          const outcome = await verify(refused)
          expect(outcome.verified).toBe(false)
          expect(outcome.error).toEqual(expect.any(String))
        }
      })

      it(`refuses a proof (${keyType} key) copied onto another document`, async () => {
        const signed = await verifiable(await signCredential(keyType))
        const other = await verifiable(await signCredential(keyType, 'Bob'))
        const copied = { ...other, issuer: signed.issuer, proof: signed.proof }
        expect((await verify(copied)).verified).toBe(false)
      })

      if (suite.authenticates) {
        it(`signs a presentation with a ${keyType} key for authentication with a challenge; a changed challenge is refused`, async () => {
          const { signer, did, verificationMethod } = await fixture().identityFor(keyType)
          const signed = await suite.sign(presentation(did), signer, {
            creator: verificationMethod,
            created: CREATED,
            proofPurpose: 'authentication',
            challenge: CHALLENGE,
          })
          expect(proofOf(signed)).toMatchObject({ proofPurpose: 'authentication', challenge: CHALLENGE })
          const checked = await verifiable(signed)
          const verified = await verify(checked, 'authentication')
          expect(verified, verified.error).toMatchObject({ verified: true })
          const changed = { ...checked, proof: { ...proofOf(checked), challenge: `${CHALLENGE}-2` } }
          expect((await verify(changed, 'authentication')).verified).toBe(false)
        })
      } else {
        it(`refuses to sign for authentication with a challenge (${keyType} key): it signs no presentation`, async () => {
          const { signer, did, verificationMethod } = await fixture().identityFor(keyType)
          const options = { creator: verificationMethod, proofPurpose: 'authentication' as const, challenge: CHALLENGE }
          await expect(suite.sign(presentation(did), signer, options)).rejects.toThrow()
        })
      }
    }

    for (const keyType of KEY_TYPES.filter((type) => !suite.keyTypes.includes(type))) {
      it(`refuses to sign with a ${keyType} key, a type it does not declare: a rejected 422`, async () => {
        const { signer, did, verificationMethod } = await fixture().identityFor(keyType)
        const signing = suite.sign(credential(did), signer, { creator: verificationMethod, created: CREATED })
        await expect(signing).rejects.toBeInstanceOf(IdentityError)
        await expect(signing).rejects.toMatchObject({ statusCode: 422 })
      })
    }
  })
}

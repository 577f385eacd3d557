/**
 * The SD-JWT test vectors of test/fixtures/sd-jwt/ (see its SOURCE.md): the SD-JWT and SD-JWT VC drafts' examples,
 * cases derived from them, and SD-JWTs signed with the examples' keys that break one rule each, each with what a
 * verifier needs and what it must conclude. Any SD-JWT verifier runs over
 * them through {@link sdJwtVectorSuite}: the @sd-jwt reference (test/vectors/sd-jwt-vectors.test.ts) and the service's.
 */
import { type JsonWebKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'

/**
 * Why a verifier must refuse a case (RFC 9901 §7, and issue 31 for a Disclosure given twice): the Issuer-signed JWT
 * is unsecured (`alg: none`); its signature does not verify with `issuerJwk`; its `_sd_alg` is not understood; it is
 * past its `exp` at `verifyAt`; Key Binding is required (`kb` given) but there is no KB-JWT; the KB-JWT is not a valid
 * `kb+jwt` (another `typ`, `alg: none`, a required claim missing); its `iat` is not within a day before `verifyAt` (the
 * cases stay a year or a day off, so any sane window decides them alike); its signature does not verify with the holder's key; its nonce or aud is not the verifier's; its sd_hash
 * is not the presentation's; a Disclosure's digest is referenced nowhere in the payload; a Disclosure is given twice; a
 * digest is found twice in the payload; a disclosed claim is named `_sd` or `...`, or as a claim already at its level;
 * a Disclosure has three elements where an array element is disclosed, or two where an `_sd` digest points to it. An
 * SD-JWT VC verifier also refuses (draft-ietf-oauth-sd-jwt-vc §2.2) a `typ` other than `dc+sd-jwt`, a missing `vct`, and
 * a claim that must stay plain (`exp` …) made selectively disclosable.
 */
export type SdJwtRefusal =
  | 'alg-none'
  | 'issuer-signature'
  | 'sd-alg'
  | 'expired'
  | 'kb-invalid'
  | 'kb-iat'
  | 'kb-missing'
  | 'kb-signature'
  | 'kb-nonce'
  | 'kb-aud'
  | 'kb-sd-hash'
  | 'unreferenced-disclosure'
  | 'duplicate-disclosure'
  | 'duplicate-digest'
  | 'reserved-claim-name'
  | 'claim-name-collision'
  | 'disclosure-shape'
  | 'vc-typ'
  | 'vc-vct'
  | 'vc-reserved-disclosed'

/** One vector: an SD-JWT (or SD-JWT+KB) in compact form, the keys to verify it with, and the verdict. */
export interface SdJwtVector {
  name: string
  /** The document and section it comes from (and the alteration, for a derived case). */
  source: string
  sdJwt: string
  /** The Issuer's public key. */
  issuerJwk: JsonWebKey
  /** The holder's public key (the SD-JWT's `cnf.jwk`), which verifies the KB-JWT. */
  holderJwk?: JsonWebKey
  /** When given, Key Binding is required, with this nonce and audience. */
  kb?: { nonce: string; aud: string }
  /** The time (seconds since the epoch) to verify at: the KB-JWT's `iat`, else the SD-JWT's; absent when it has neither. */
  verifyAt?: number
  /** The verified payload (disclosed claims and the plain ones, without `_sd`, `_sd_alg` or digests), or the refusal. */
  expect: { disclosed: Record<string, unknown> } | { refused: SdJwtRefusal }
  /** Set where @sd-jwt 0.19 is known to conclude otherwise than the specification: why. */
  libraryGap?: string
  /** `sd-jwt-vc`: the verdict is an SD-JWT VC verifier's (a plain SD-JWT verifier may accept the case). */
  profile?: 'sd-jwt-vc'
}

/** What a verifier under test is given with each SD-JWT. */
export interface SdJwtVectorOptions {
  issuerJwk: JsonWebKey
  holderJwk?: JsonWebKey
  kb?: { nonce: string; aud: string }
  verifyAt?: number
}

/** A verifier under test: resolves to the verified payload, rejects when it refuses the SD-JWT. */
export type SdJwtVectorVerifier = (sdJwt: string, options: SdJwtVectorOptions) => Promise<Record<string, unknown>>

const FILES = ['sd-jwt-draft-examples.json', 'sd-jwt-vc-draft-examples.json', 'derived-cases.json', 'constructed-cases.json']

/**
 * Whether an SD-JWT VC verifier runs a vector: its verdict is an SD-JWT VC verifier's, or its Issuer-signed JWT's `typ`
 * is `dc+sd-jwt` (the SD-JWT draft's other examples' is `example+sd-jwt`).
 */
export function isSdJwtVc({ sdJwt, profile }: SdJwtVector): boolean {
  const header = JSON.parse(Buffer.from(sdJwt.split('.')[0], 'base64url').toString('utf8')) as { typ?: unknown }
  return profile === 'sd-jwt-vc' || header.typ === 'dc+sd-jwt'
}

/** Whether a plain SD-JWT verifier runs a vector: its verdict is not an SD-JWT VC verifier's only. */
export function isForSdJwt({ profile }: SdJwtVector): boolean {
  return profile === undefined
}

/** Every vector of test/fixtures/sd-jwt/. */
export function loadSdJwtVectors(): SdJwtVector[] {
  return FILES.flatMap((file) => {
    const { cases } = JSON.parse(readFileSync(new URL(`../fixtures/sd-jwt/${file}`, import.meta.url), 'utf8')) as { cases: SdJwtVector[] }
    return cases
  })
}

/**
 * Declares one test per vector (call it inside a `describe`): `verify` must resolve to the expected payload, or reject
 * with an error `refusalOf` classifies as the expected refusal. With `skipLibraryGaps`, the cases @sd-jwt 0.19 gets
 * wrong are declared skipped, their reason in the title; a verifier of our own runs them all. `only` picks the vectors a
 * verifier is for ({@link isSdJwtVc}).
 */
export function sdJwtVectorSuite(
  verify: SdJwtVectorVerifier,
  refusalOf: (error: unknown) => SdJwtRefusal | undefined,
  { skipLibraryGaps = false, only = () => true }: { skipLibraryGaps?: boolean; only?: (vector: SdJwtVector) => boolean } = {},
): void {
  for (const vector of loadSdJwtVectors().filter(only)) {
    const { sdJwt, issuerJwk, holderJwk, kb, verifyAt } = vector
    const options = { issuerJwk, holderJwk, kb, verifyAt }
    if (skipLibraryGaps && vector.libraryGap) {
      it.skip(`${vector.name} (library gap: ${vector.libraryGap})`, () => {})
      continue
    }
    it(vector.name, async () => {
      if ('disclosed' in vector.expect) {
        expect(await verify(sdJwt, options)).toEqual(vector.expect.disclosed)
        return
      }
      const error: unknown = await verify(sdJwt, options).then(
        (payload) => new Error(`accepted, disclosing ${Object.keys(payload).join(', ')}`),
        (refusal: unknown) => refusal,
      )
      expect(refusalOf(error), String(error)).toBe(vector.expect.refused)
    })
  }
}

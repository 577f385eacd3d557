/**
 * The credential-format conformance suite of `didvault/testing`: what every format behind the credential-format port
 * (`CredentialFormat`, docs/architecture.md) must do, asserted through the port and the format registry — issue content
 * it accepts, recognise what it issued (and be the registry's answer for it), parse it into the index fields, hash its
 * content, verify it into named checks, and refuse it changed, expired, unresolvable, or not a credential at all.
 * Every registered format runs it (test/credentials/formats.test.ts); a new format runs it with one call.
 */
import type { Resolvable } from 'did-resolver'
import { describe, expect, it } from 'vitest'
import { fixturePerTest } from './fixture-per-test.js'
import { carriedBy, credentialFormatOf, memberOf } from '../credentials/formats/index.js'
import type { CredentialContent, CredentialFormat, EncodedCredential, FormatLimits } from '../credentials/formats/index.js'
import { IdentityError } from '../errors.js'
import type { KeySigner } from '../keys/signer.js'

/** What the factory given to {@link runCredentialFormatConformance} returns. */
export interface CredentialFormatFixture {
  /** The issuer's key: of a type the format signs with. */
  signer: KeySigner
  /** The issuer's DID, whose document lists `signer`'s key under `assertionMethod`. */
  issuer: string
  /** Resolves `issuer`. */
  resolver: Resolvable
  /** Called after each test. */
  cleanup?: () => Promise<void>
}

const LIMITS: FormatLimits = {
  depth: 64,
  jsonld: { maxNodes: 10_000, maxArrayLength: 1_000, maxStringLength: 100_000, maxDepth: 32 },
}
const ISSUED_AT = Date.UTC(2026, 0, 1)
const EXPIRES_AT = ISSUED_AT + 86_400_000
const SUBJECT = 'did:example:holder'
const CLAIMS = { degree: 'BSc', school: 'TU' }
/** The holder's public key, for formats that bind one (SD-JWT VC's `cnf.jwk`). */
const HOLDER_JWK = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' } as const

/** Resolves no DID. */
const NOTHING_RESOLVED: Resolvable = {
  resolve: () => Promise.resolve({ didResolutionMetadata: { error: 'notFound' }, didDocument: null, didDocumentMetadata: {} }),
}

/** Inputs no format may take for a credential: each format is given those it recognises by shape. */
const NOT_CREDENTIALS: EncodedCredential[] = [
  'not a credential',
  'a.b.c',
  'not.a.jwt~',
  'a.b.c~d~e.f.g',
  // A compact JWS that says it is a VC-JOSE credential (`typ: vc+jwt`) with an empty payload.
  `${Buffer.from('{"alg":"ES256","typ":"vc+jwt"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.c2ln`,
  {},
  { type: ['VerifiableCredential'] },
]

/** The content the suite issues: the format's contexts for it, one subject, two claims, a day's validity. */
function contentFor(format: CredentialFormat, issuer: string): CredentialContent {
  return {
    id: 'urn:uuid:5b7c9d1e-0000-4000-8000-00000000c0f0',
    issuer,
    subject: SUBJECT,
    claims: { ...CLAIMS },
    contexts: format.contextsOf({ claims: { ...CLAIMS }, named: [], withStatus: false }, 'claims.0'),
    types: [],
    issuedAt: ISSUED_AT,
    expiresAt: EXPIRES_AT,
    // What only SD-JWT VC issues; the other formats ignore it.
    sdJwt: { vct: 'https://credentials.example.com/degree', holderJwk: HOLDER_JWK },
  }
}

/**
 * `encoded` with its claim `degree` changed from `BSc` to `PhD` wherever its signed content says it (a JSON document's
 * member; a base64url JSON part of a compact JWS or of an SD-JWT's disclosures), its signatures kept.
 */
function changed(encoded: EncodedCredential): EncodedCredential {
  const swap = (text: string) => text.replaceAll('"BSc"', '"PhD"')
  if (typeof encoded !== 'string') return JSON.parse(swap(JSON.stringify(encoded))) as EncodedCredential
  const part = (segment: string) => {
    const text = Buffer.from(segment, 'base64url').toString('utf8')
    return Buffer.from(text, 'utf8').toString('base64url') === segment ? Buffer.from(swap(text), 'utf8').toString('base64url') : segment
  }
  return encoded
    .split('~')
    .map((piece) => piece.split('.').map(part).join('.'))
    .join('~')
}

/**
 * Declares the conformance suite of `format` (it must be registered: recognising what it issued is the registry's
 * answer). `factory` makes the issuer's key and DID, and a resolver, before each test.
 */
export function runCredentialFormatConformance(format: CredentialFormat, factory: () => Promise<CredentialFormatFixture>): void {
  describe(`credential format conformance: ${format.name}`, () => {
    const fixture = fixturePerTest(factory, 'credential format')

    const issue = async () => {
      const { signer, issuer, resolver } = fixture()
      const content = contentFor(format, issuer)
      format.assertSigns(signer.keyType)
      format.checkContent(content, 'claims.0', LIMITS)
      return format.issue(content, signer, { resolver })
    }
    const verifyAt = (encoded: EncodedCredential, now: number, resolver = fixture().resolver) => format.verify(encoded, { resolver, now })

    it('issues content it accepts and recognises what it issued, as the registry does', async () => {
      const encoded = await issue()
      expect(format.is(encoded)).toBe(true)
      expect(credentialFormatOf(encoded)).toBe(format)
      expect(Object.keys(memberOf(encoded))).toEqual([format.member])
      expect(carriedBy(memberOf(encoded))).toEqual({ format, encoded })
      expect(() => format.checkInput(encoded, 'vcs.0', LIMITS)).not.toThrow()
    })

    it('parses what it issued into its index fields and the parts a record keeps; hashes it; names its subject', async () => {
      const encoded = await issue()
      const parsed = await format.parse(encoded, LIMITS)
      expect(format.assemble(parsed.encoded, parsed.disclosures ?? [])).toEqual(encoded)
      expect(parsed).toMatchObject({
        format: format.name,
        issuer: fixture().issuer,
        subject: SUBJECT,
        issuanceDate: new Date(ISSUED_AT).toISOString(),
        expirationDate: new Date(EXPIRES_AT).toISOString(),
        hash: format.contentHash(encoded),
      })
      expect(format.subjects(encoded)).toEqual([SUBJECT])
      // Parsed as just issued (the checks against outside input skipped), it gives the same.
      expect(await format.parse(encoded, LIMITS, { issued: true })).toEqual(parsed)
    })

    it('hashes content: the same for the same credential, another once a claim changed', async () => {
      const encoded = await issue()
      const hash = format.contentHash(encoded)
      expect(hash).toMatch(/^\S{16,}$/)
      expect(format.contentHash(structuredClone(encoded))).toBe(hash)
      const other = changed(encoded)
      expect(other).not.toEqual(encoded)
      expect(format.contentHash(other)).not.toBe(hash)
    })

    it('verifies what it issued into named checks, every one passed', async () => {
      const verified = await verifyAt(await issue(), ISSUED_AT + 1000)
      expect(verified).toMatchObject({ verified: true, issuer: fixture().issuer })
      expect(verified.error).toBeUndefined()
      expect(verified.checks.length).toBeGreaterThan(0)
      for (const check of verified.checks) expect(check, check.check).toMatchObject({ verified: true })
    })

    it('refuses it with a claim changed, past its expiry, and with its issuer unresolved: a failed check, never a throw', async () => {
      const encoded = await issue()
      const refusals = [
        await verifyAt(changed(encoded), ISSUED_AT + 1000),
        await verifyAt(encoded, EXPIRES_AT + 86_400_000),
        await verifyAt(encoded, ISSUED_AT + 1000, NOTHING_RESOLVED),
      ]
      for (const refused of refusals) {
        expect(refused.verified).toBe(false)
        expect(refused.error).toEqual(expect.any(String))
        expect(refused.checks.some((check) => !check.verified)).toBe(true)
      }
    })

    it('refuses with a 422 naming its member what has its shape but is no credential; verify says not verified', async () => {
      const shaped = NOT_CREDENTIALS.filter((candidate) => format.is(candidate))
      expect(shaped.length).toBeGreaterThan(0)
      for (const candidate of shaped) {
        let error: unknown
        try {
          await format.parse(candidate, LIMITS)
        } catch (err) {
          error = err
        }
        expect(error, JSON.stringify(candidate)).toBeInstanceOf(IdentityError)
        expect((error as IdentityError).statusCode).toBe(422)
        expect((error as IdentityError).message.startsWith(`${format.member}: `), (error as IdentityError).message).toBe(true)
        expect((await verifyAt(candidate, ISSUED_AT + 1000)).verified, JSON.stringify(candidate)).toBe(false)
      }
    })
  })
}

/**
 * The W3C VC Data Model 2.0 test suite's input credentials (test/fixtures/vcdm2-test-suite/) through didvault's API
 * (router on loopback HTTP over a SQLite file): each input is signed with eddsa-rdfc-2022 by a did:key issuer whose
 * Ed25519 key is in the key port (our suite, src/proofs/data-integrity/), then
 * - `POST /claims/verify`: an `-ok` input is verified; a `-fail` one is `verified: false`, its failed check named
 *   (`format` for the data model's rules, `proof` where safe-mode JSON-LD refuses the document);
 * - `POST /claims` with `verify: true`: a `-fail` input is a per-item error and nothing is written (every collection
 *   of the SQLite file hashed before and after); an `-ok` one is stored.
 * Inputs our signer refuses (safe-mode JSON-LD cannot read them; the suite's context is missing) carry instead the
 * proof of `credential-ok.json` signed by the same key — what a forger can do. `/claims/sign` answers the cases its
 * fields can express (context order, dates). The service's clock is set to each input's `validFrom` (the inputs are
 * dated February 2023). Inputs that do not apply, and why: {@link NOT_APPLICABLE}.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eddsaRdfc2022, type JsonLdDocument } from '../../src/proofs/data-integrity/index.js'
import { registerContext } from '../../src/proofs/jsonld/contexts.js'
import { expectError, snapshot, startHarness, type Harness } from '../helpers/harness.js'
import { loadVcdm2Inputs, vcdm2IssuanceRequest, W3C_DI_CONTEXTS, type Vcdm2Input } from '../helpers/w3c-di-vectors.js'
import { openSealedKeys, portIdentity } from '../proofs/data-integrity/helpers.js'

const V2 = 'https://www.w3.org/ns/credentials/v2'
const EXAMPLES = 'https://www.w3.org/ns/credentials/examples/v2'
const V1 = 'https://www.w3.org/2018/credentials/v1'
const DATA_INTEGRITY_V2 = 'https://w3id.org/security/data-integrity/v2'

/** Inputs whose expectation the API cannot be asked about as the suite asks it, and why. */
const NOT_APPLICABLE: Record<string, string> = {
  'names-and-descriptions/credential-description-language-direction-en-ok.json':
    '`@direction`: safe-mode canonicalization without rdfDirection refuses it ("rdfDirection not set"); our RDF suites do not sign it',
  'names-and-descriptions/credential-name-language-direction-en-ok.json': 'as above (`@direction`)',
  'names-and-descriptions/issuer-description-language-direction-en-ok.json': 'as above (`@direction`)',
  'names-and-descriptions/issuer-name-language-direction-en-ok.json': 'as above (`@direction`)',
}

/** `-ok` inputs whose status entry has a type the service does not read: every check passes but `status` (unsupportedEntry). */
const UNREAD_STATUS = new Set(['credential-status-ok.json', 'credential-status-missing-id-ok.json'])

const clock = { at: Date.now() }
let h: Harness
let port: Awaited<ReturnType<typeof openSealedKeys>>
let issuer: Awaited<ReturnType<typeof portIdentity>>
let wallet: { did: string; jwt: string }
let forgedProof: Record<string, unknown>

beforeAll(async () => {
  for (const [url, context] of W3C_DI_CONTEXTS) registerContext(url, context)
  h = await startHarness({ storage: 'sqlite', service: { now: () => clock.at } })
  port = await openSealedKeys()
  issuer = await portIdentity(port.keys, 'Ed25519')
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'key', keyType: 'Ed25519' } } })
  const did: string = made.body.wallet.did
  wallet = { did, jwt: (await h.request('POST', '/did-auth-jwt', { json: { iss: did } })).body.jwt }
  const ok = loadVcdm2Inputs().find(({ name }) => name === 'credential-ok.json')!
  forgedProof = (await sign(vcdm2IssuanceRequest(ok, issuer.did)))!.proof as Record<string, unknown>
})
afterAll(async () => {
  await h?.close()
  await port?.close()
})

/** The input signed by our eddsa-rdfc-2022 suite, or undefined when the suite refuses it. */
async function sign(credential: Record<string, unknown>): Promise<JsonLdDocument | undefined> {
  return eddsaRdfc2022
    .sign(credential as JsonLdDocument, issuer.signer, { verificationMethod: issuer.verificationMethod })
    .catch(() => undefined)
}

/** The signed input (or the input with a copied proof), the service's clock set to its `validFrom`. */
async function prepared(input: Vcdm2Input) {
  const request = vcdm2IssuanceRequest(input, issuer.did)
  const validFrom = typeof request.validFrom === 'string' ? Date.parse(request.validFrom) : Number.NaN
  clock.at = Number.isNaN(validFrom) ? Date.now() : validFrom
  // A DID-auth token of the service's time.
  wallet.jwt = (await h.request('POST', '/did-auth-jwt', { json: { iss: wallet.did } })).body.jwt
  const signed = await sign(request)
  return { credential: signed ?? { ...request, proof: forgedProof }, signedByUs: signed !== undefined }
}

type Check = { check: string; verified: boolean; error?: string; reason?: string }

describe('W3C VC Data Model 2.0 test-suite inputs through /claims/verify and Store (verify: true)', () => {
  for (const input of loadVcdm2Inputs()) {
    const title = `${input.sections.join(', ')}: ${input.name}`
    if (NOT_APPLICABLE[input.name] !== undefined) {
      it.skip(`${title} (does not apply: ${NOT_APPLICABLE[input.name]})`, () => {})
      continue
    }
    it(title, async () => {
      const { credential, signedByUs } = await prepared(input)
      const verified = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld: credential }] }, didAuth: wallet.jwt })
      const before = await snapshot(h)
      const stored = await h.request('POST', '/claims', { json: { claims: [{ jsonld: credential }], verify: true }, didAuth: wallet.jwt })
      if (input.expect === 'accept') {
        expect(signedByUs, 'our suite signs it').toBe(true)
        expect(verified.status, JSON.stringify(verified.body)).toBe(200)
        const failed = (verified.body.vcs[0].checks as Check[]).filter((c) => !c.verified)
        if (UNREAD_STATUS.has(input.name)) {
          expect(failed.map(({ check, reason }) => ({ check, reason }))).toEqual([{ check: 'status', reason: 'unsupportedEntry' }])
          return
        }
        expect(failed).toEqual([])
        expect(verified.body.vcs[0]).toMatchObject({ verified: true, issuer: issuer.did })
        expect(stored.status, JSON.stringify(stored.body)).toBe(200)
        expect(stored.body.errors).toEqual([])
        expect(stored.body.claims ?? stored.body.vcs).toHaveLength(1)
        return
      }
      // reject / reject-or-inject: refused by verify (a named failed check, or the unknown context as a 422) and by Store.
      if (verified.status === 200) {
        const result = verified.body.vcs[0]
        expect(result.verified, JSON.stringify(result)).toBe(false)
        const failed = (result.checks as Check[]).filter((c) => !c.verified)
        expect(failed.length).toBeGreaterThan(0)
        if (signedByUs)
          expect(
            failed.map((c) => c.check),
            JSON.stringify(failed),
          ).toContain('format')
      } else {
        expectError(verified, 422, 'VALIDATION_ERROR')
      }
      if (stored.status === 200) {
        expect(stored.body.errors, JSON.stringify(stored.body)).toHaveLength(1)
        expect(stored.body.errors[0]).toMatchObject({ claim: 0 })
      } else {
        expectError(stored, 422, 'VALIDATION_ERROR')
      }
      expect(await snapshot(h)).toEqual(before)
    })
  }
})

describe('the cases /claims/sign can express', () => {
  const signWith = async (fields: Record<string, unknown>) => {
    clock.at = Date.now()
    wallet.jwt = (await h.request('POST', '/did-auth-jwt', { json: { iss: wallet.did } })).body.jwt
    const body = { iss: wallet.did, claims: [{ payload: { name: 'Alice' } }], ...fields }
    return h.request('POST', '/claims/sign', { json: body, didAuth: wallet.jwt })
  }

  it('context order (4.03, credential-missing-base-context-fail-or-inject): the base context is put first, or injected', async () => {
    const injected = await signWith({ context: [EXAMPLES, V2] })
    expect(injected.status, JSON.stringify(injected.body)).toBe(200)
    expect(injected.body.vcs[0].jsonld['@context']).toEqual([V2, EXAMPLES])
    // Without any base context, Sign injects its default one (credentials v1: data model 1.1), and the Data Integrity
    // suite appends its v2 context, as its specification asks of a 1.1 document; the credential verifies.
    const v1 = await signWith({ context: [EXAMPLES] })
    expect(v1.status, JSON.stringify(v1.body)).toBe(200)
    const credential = v1.body.vcs[0].jsonld
    expect(credential['@context']).toEqual([V1, EXAMPLES, DATA_INTEGRITY_V2])
    const verified = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld: credential }] }, didAuth: wallet.jwt })
    expect(verified.body.vcs[0].verified, JSON.stringify(verified.body)).toBe(true)
  })

  it.each([
    ['credential-validuntil-invalid-fail.json', 'Sun, 26 Feb 2023 01:22:14 +0000'],
    ['a date without a time', '2023-02-26'],
  ])('dates (4.09, %s): an expirationDate that is not a date-time is 422 with the message, nothing written', async (_case, date) => {
    const before = await snapshot(h)
    const res = await signWith({ context: [V2], expirationDate: date })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toBe('invalid request: expirationDate: Invalid ISO datetime')
    expect(await snapshot(h)).toEqual(before)
  })
})

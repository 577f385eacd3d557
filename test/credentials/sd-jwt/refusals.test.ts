/**
 * What the SD-JWT VC codec refuses (issue 31, *Bad input and attacks*): at verify a named failed check in
 * `verified: false`, never a throw — a disclosure given twice or referenced by no digest (both of which the library
 * 0.19 lets through: asserted beside), one swapped from another credential, a digest repeated, a disclosed name already
 * a claim, `alg: none` and unknown algorithms, another `typ`, a tampered payload, a signature by another key, dates,
 * `_sd_alg`; a KB-JWT over another `sd_hash`, for another nonce or audience, too old, missing, or signed by another key.
 * At issue and present a 422 (403 for a presenting key that is not `cnf.jwk`).
 */
import { createHash } from 'node:crypto'
import { Jwt } from '@sd-jwt/core'
import { digest } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueSdJwtVc, presentSdJwtVc, verifySdJwtVc, type SdJwtVcIssueInput } from '../../../src/credentials/formats/sd-jwt/index.js'
import { sdJwtSigner } from '../../../src/credentials/formats/sd-jwt/jws-signer.js'
import type { BackendKeyManager } from '../../../src/keys/port.js'
import type { KeySigner } from '../../../src/keys/signer.js'
import { nodeVerifier, nowSeconds, openKeyPort, partsOf, portIdentity, resolver } from './helpers.js'

let keys: BackendKeyManager
let close: () => Promise<void>
let issuer: Awaited<ReturnType<typeof portIdentity>>
let holder: Awaited<ReturnType<typeof portIdentity>>
let other: Awaited<ReturnType<typeof portIdentity>>
let credential: string
beforeAll(async () => {
  ;({ keys, close } = await openKeyPort())
  issuer = await portIdentity(keys, 'P-256', 'key')
  holder = await portIdentity(keys, 'Ed25519', 'jwk')
  other = await portIdentity(keys, 'P-256', 'key')
  credential = await issue()
})
afterAll(() => close())

const PAYLOAD = { given_name: 'Erika', family_name: 'Mustermann', address: { locality: 'Köln', country: 'DE' } }
const KB = { nonce: 'nonce-1', aud: 'https://verifier.example.org' }

const issue = (input: Partial<SdJwtVcIssueInput> = {}) =>
  issueSdJwtVc({
    signer: issuer.signer,
    issuer: issuer.did,
    vct: 'urn:example:vct',
    payload: PAYLOAD,
    holderJwk: holder.signer.publicJwk,
    iat: nowSeconds(),
    ...input,
  })

const verify = (compact: unknown, kb?: { nonce: string; aud: string; maxAgeSeconds?: number }) =>
  verifySdJwtVc(compact, { resolver, now: Date.now(), ...(kb && { kb }) })

/** The failed checks of a verification, by name. */
async function failed(compact: unknown, kb?: { nonce: string; aud: string; maxAgeSeconds?: number }): Promise<string[]> {
  const result = await verify(compact, kb)
  expect(result.verified).toBe(false)
  expect(result.disclosed).toBeUndefined()
  expect(result.error).toBe(result.checks.find((c) => !c.verified)!.error)
  return result.checks.filter((c) => !c.verified).map((c) => c.check)
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const decoded = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url')

/** A JWT signed by `signer` (ES256 for P-256 keys). */
const signed = (header: Record<string, unknown>, payload: Record<string, unknown>, signer: KeySigner = issuer.signer) =>
  new Jwt({ header: { alg: 'ES256', ...header }, payload }).sign(sdJwtSigner(signer, 'ES256'))

/** The issuer's header and a payload as issued, re-signed after `change`. */
async function resigned(
  change: (payload: Record<string, unknown>, header: Record<string, unknown>) => void,
  signer?: KeySigner,
): Promise<string> {
  const { jwt, disclosures } = partsOf(credential)
  const [h, p] = jwt.split('.')
  const header = decoded(h)
  const payload = decoded(p)
  change(payload, header)
  return [await signed(header, payload, signer), ...disclosures, ''].join('~')
}

const theLibrary = () => new SDJwtVcInstance({ hasher: digest, verifier: nodeVerifier(issuer.signer.publicJwk) })

describe('verify: disclosures', () => {
  it('the credential as issued verifies', async () => {
    expect((await verify(credential)).verified).toBe(true)
  })

  it('a disclosure given twice is refused (the library accepts it)', async () => {
    const { jwt, disclosures } = partsOf(credential)
    const twice = [jwt, ...disclosures, disclosures[0], ''].join('~')
    expect(await failed(twice)).toEqual(['disclosures'])
    expect((await verify(twice)).error).toMatch(/given twice/)
    await expect(theLibrary().verify(twice)).resolves.toBeDefined()
  })

  it('a disclosure no digest references is refused (the library drops it silently)', async () => {
    const { jwt, disclosures } = partsOf(credential)
    const extra = [jwt, ...disclosures, b64(['c2FsdHNhbHRzYWx0c2FsdA', 'admin', true]), ''].join('~')
    expect(await failed(extra)).toEqual(['disclosures'])
    expect((await verify(extra)).error).toMatch(/referenced by no digest/)
    expect((await theLibrary().verify(extra)).payload).not.toHaveProperty('admin')
  })

  it('a disclosure swapped from another credential of the same issuer is refused', async () => {
    const another = await issue({ payload: { ...PAYLOAD, given_name: 'Eve' } })
    const swapped = partsOf(another).disclosures.find((d) => JSON.stringify(decoded(d)).includes('Eve'))!
    const { jwt, disclosures } = partsOf(credential)
    const mixed = [jwt, ...disclosures.filter((d) => !JSON.stringify(decoded(d)).includes('Erika')), swapped, ''].join('~')
    expect(await failed(mixed)).toEqual(['disclosures'])
  })

  it('a digest that occurs twice in the payload is refused', async () => {
    const disclosure = b64(['c2FsdHNhbHRzYWx0c2FsdA', 'given_name', 'Erika'])
    const jwt = await signed(
      { typ: 'dc+sd-jwt', kid: issuer.kid },
      { iss: issuer.did, vct: 'urn:example:vct', _sd_alg: 'sha-256', _sd: [sha256(disclosure), sha256(disclosure)] },
    )
    expect(await failed(`${jwt}~${disclosure}~`)).toEqual(['disclosures'])
    expect((await verify(`${jwt}~${disclosure}~`)).error).toMatch(/more than once/)
  })

  it('a disclosed name that is already a claim of its object is refused', async () => {
    const disclosure = b64(['c2FsdHNhbHRzYWx0c2FsdA', 'given_name', 'Eve'])
    const jwt = await signed(
      { typ: 'dc+sd-jwt', kid: issuer.kid },
      { iss: issuer.did, vct: 'urn:example:vct', given_name: 'Erika', _sd: [sha256(disclosure)] },
    )
    expect(await failed(`${jwt}~${disclosure}~`)).toEqual(['disclosures'])
  })

  it('a disclosure that is not [salt, name, value] or [salt, value] is refused, even when a digest references it', async () => {
    for (const value of [
      'abc',
      ['c2FsdA', 'given_name', 'Erika', 'extra'],
      ['c2FsdA'],
      [1, 'given_name', 'Erika'],
      ['c2FsdA', 7, 'Erika'],
    ]) {
      const disclosure = b64(value)
      const jwt = await signed(
        { typ: 'dc+sd-jwt', kid: issuer.kid },
        { iss: issuer.did, vct: 'urn:example:vct', _sd: [sha256(disclosure)] },
      )
      expect(await failed(`${jwt}~${disclosure}~`)).toEqual(expect.arrayContaining([expect.stringMatching(/^(disclosures|format)$/)]))
    }
  })

  it('an _sd_alg other than sha-256 is refused', async () => {
    expect(await failed(await resigned((payload) => (payload._sd_alg = 'sha-512')))).toEqual(['sd_alg'])
  })
})

describe('verify: the issuer-signed JWT', () => {
  it('alg none, with or without a signature, is refused', async () => {
    const { jwt, disclosures } = partsOf(credential)
    const [h, p, s] = jwt.split('.')
    const none = b64({ ...decoded(h), alg: 'none' })
    expect(await failed([`${none}.${p}.${s}`, ...disclosures, ''].join('~'))).toEqual(['alg'])
    expect((await verify([`${none}.${p}.${s}`, ...disclosures, ''].join('~'))).error).toBe('alg none is refused')
    // an unsecured JWT (empty signature, RFC 9901 §7.1) is refused for its alg too
    expect(await failed([`${none}.${p}.`, ...disclosures, ''].join('~'))).toEqual(['alg'])
    expect((await verify([`${none}.${p}.`, ...disclosures, ''].join('~'))).error).toBe('alg none is refused')
    // another alg with no signature: the signature fails
    expect(await failed([`${h}.${p}.`, ...disclosures, ''].join('~'))).toEqual(['signature'])
  })

  it('an algorithm not accepted (HS256, ES256K-R) is refused', async () => {
    for (const alg of ['HS256', 'ES256K-R']) {
      const { jwt, disclosures } = partsOf(credential)
      const [h, p, s] = jwt.split('.')
      expect(await failed([`${b64({ ...decoded(h), alg })}.${p}.${s}`, ...disclosures, ''].join('~'))).toContain('alg')
    }
  })

  it('another typ is refused', async () => {
    expect(await failed(await resigned((_, header) => (header.typ = 'JWT')))).toEqual(['typ'])
  })

  it('a changed payload, a signature by another key, a kid of another DID, an iss that is no DID are refused', async () => {
    const { jwt, disclosures } = partsOf(credential)
    const [h, , s] = jwt.split('.')
    const tampered = b64({ ...decoded(jwt.split('.')[1]), vct: 'urn:example:other' })
    expect(await failed([`${h}.${tampered}.${s}`, ...disclosures, ''].join('~'))).toEqual(['signature'])
    expect(await failed(await resigned(() => undefined, other.signer))).toEqual(['signature'])
    expect(await failed(await resigned((_, header) => (header.kid = other.kid), other.signer))).toEqual(['signature'])
    expect(await failed(await resigned((payload) => (payload.iss = 'https://issuer.example.com')))).toEqual(['signature'])
  })

  it('an expired credential, one not valid yet, and one issued in the future are refused', async () => {
    const now = nowSeconds()
    expect(await failed(await issue({ iat: now - 7200, exp: now - 3600 }))).toEqual(['exp'])
    expect(await failed(await issue({ nbf: now + 3600 }))).toEqual(['nbf'])
    expect(await failed(await issue({ iat: now + 3600 }))).toEqual(['iat'])
  })

  it('dates within the skew pass; skewSeconds sets it', async () => {
    const early = await issue({ iat: nowSeconds() + 30 })
    expect((await verify(early)).verified).toBe(true)
    const strict = await verifySdJwtVc(early, { resolver, now: Date.now(), skewSeconds: 0 })
    expect(strict.checks.filter((c) => !c.verified).map((c) => c.check)).toEqual(['iat'])
  })

  it('a missing vct is refused', async () => {
    expect(await failed(await resigned((payload) => delete payload.vct))).toEqual(['vct'])
  })

  it('what is no SD-JWT, or past the bounds, is a failed check, not a throw', async () => {
    for (const input of ['', 'abc', 'a.b.c~', 42, null, `${credential.split('~')[0]}~%%%~`]) expect(await failed(input)).toEqual(['format'])
    expect(await failed('x'.repeat(600_000))).toEqual(['bounds'])
    expect(await failed(`${partsOf(credential).jwt}~${'a~'.repeat(1100)}`)).toEqual(['bounds'])
  })
})

describe('verify: key binding', () => {
  const present = (disclose: string[], claims: Partial<typeof KB & { iat: number }> = {}) =>
    presentSdJwtVc(credential, { disclose, holderSigner: holder.signer, ...KB, iat: nowSeconds(), ...claims })

  it('a presentation verifies with its nonce and audience', async () => {
    const result = await verify(await present(['/given_name']), KB)
    expect(result.verified).toBe(true)
    expect(result.disclosed).toEqual({ given_name: 'Erika', iss: issuer.did, iat: expect.any(Number), vct: 'urn:example:vct' })
  })

  it('a KB-JWT over another sd_hash (another disclosure set) is refused', async () => {
    const first = partsOf(await present(['/given_name']))
    const second = partsOf(await present(['/family_name']))
    expect(await failed([second.jwt, ...second.disclosures, first.kb].join('~'), KB)).toEqual(['sd_hash'])
  })

  it('a KB-JWT made for another nonce (a replay), another audience, or too long ago is refused', async () => {
    const presentation = await present(['/given_name'])
    expect(await failed(presentation, { ...KB, nonce: 'nonce-2' })).toEqual(['nonce'])
    expect(await failed(presentation, { ...KB, aud: 'https://other.example.org' })).toEqual(['aud'])
    expect(await failed(await present(['/given_name'], { iat: nowSeconds() - 3600 }), KB)).toEqual(['kbIat'])
    expect(await failed(await present(['/given_name'], { iat: nowSeconds() - 100 }), { ...KB, maxAgeSeconds: 30 })).toEqual(['kbIat'])
    expect(await failed(await present(['/given_name'], { iat: nowSeconds() + 3600 }), KB)).toEqual(['kbIat'])
  })

  it('a presentation without a KB-JWT, or with one signed by another key, of another typ, or alg none, is refused', async () => {
    expect(await failed(credential, KB)).toEqual(['kb'])
    const { jwt, disclosures, kb } = partsOf(await present(['/given_name']))
    const [h, p] = kb.split('.')
    const otherHeader = await new Jwt({ header: { ...decoded(h), alg: 'ES256' }, payload: decoded(p) }).sign(
      sdJwtSigner(other.signer, 'ES256'),
    )
    expect(await failed([jwt, ...disclosures, otherHeader].join('~'), KB)).toEqual(['kbSignature'])
    const typJwt = await new Jwt({ header: { ...decoded(h), typ: 'JWT' }, payload: decoded(p) }).sign(sdJwtSigner(holder.signer, 'EdDSA'))
    expect(await failed([jwt, ...disclosures, typJwt].join('~'), KB)).toEqual(['kb'])
    const none = `${b64({ ...decoded(h), alg: 'none' })}.${p}.${kb.split('.')[2]}`
    expect(await failed([jwt, ...disclosures, none].join('~'), KB)).toEqual(['kb'])
  })
})

describe('issue refuses with 422', () => {
  const refused = async (input: Partial<SdJwtVcIssueInput>, message: RegExp) => {
    const err = await issue(input).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toMatchObject({ statusCode: 422, errorType: 'VALIDATION_ERROR', errorMessage: expect.stringMatching(message) })
  }

  it('a missing or empty vct', async () => {
    await refused({ vct: undefined }, /vct is required/)
    await refused({ vct: '' }, /vct is required/)
  })

  it('a disclose path not in the payload', async () => {
    for (const path of ['/nope', '/address/street', '/given_name/0', 'given_name', '/address/locality/x'])
      await refused({ disclose: [path] }, /not a claim of the payload|JSON pointer/)
    await refused({ payload: { list: ['a'] }, disclose: ['/list/1'] }, /not a claim/)
    await refused({ payload: { list: ['a'] }, disclose: ['/list/01'] }, /not a claim/)
  })

  it('reserved claims made disclosable or given in the payload, and names SD-JWT reserves', async () => {
    for (const claim of ['iss', 'cnf', 'status', 'vct', 'exp', 'nbf', 'iat']) {
      await refused({ disclose: [`/${claim}`] }, /never selectively disclosable/)
      await refused({ payload: { ...PAYLOAD, [claim]: 'x' } }, /set by the issuer/)
    }
    await refused({ payload: { ...PAYLOAD, address: { _sd: ['x'] } } }, /SD-JWT reserves/)
    await refused({ payload: JSON.parse('{"a": {"__proto__": {"x": 1}}}') as Record<string, unknown> }, /SD-JWT reserves/)
  })

  it('more paths or decoys than the bounds, a path given twice', async () => {
    const payload = Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`c${i}`, i]))
    await refused({ payload }, /at most 256 paths/)
    await refused({ decoys: 65 }, /decoys/)
    await refused({ decoys: -1 }, /decoys/)
    await refused({ disclose: ['/given_name', '/given_name'] }, /twice/)
  })

  it('a holder key with its private part, or no key', async () => {
    await refused({ holderJwk: { ...holder.signer.publicJwk, d: 'AAAA' } as never }, /private part/)
    await refused({ holderJwk: { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' } }, /a valid public JWK/)
  })
})

describe('present refuses', () => {
  it('a key that is not the credential’s cnf.jwk (403), a path not in the credential, a presentation (422)', async () => {
    const input = { disclose: ['/given_name'], holderSigner: holder.signer, ...KB, iat: nowSeconds() }
    await expect(presentSdJwtVc(credential, { ...input, holderSigner: other.signer })).rejects.toMatchObject({
      statusCode: 403,
      errorType: 'FORBIDDEN',
    })
    await expect(presentSdJwtVc(credential, { ...input, disclose: ['/nope'] })).rejects.toMatchObject({ statusCode: 422 })
    await expect(presentSdJwtVc(await presentSdJwtVc(credential, input), input)).rejects.toMatchObject({ statusCode: 422 })
    await expect(presentSdJwtVc(await issue({ holderJwk: undefined }), input)).rejects.toMatchObject({
      statusCode: 422,
      errorMessage: /cnf/,
    })
  })
})

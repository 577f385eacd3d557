/**
 * The encrypted response's key and decryption (`direct_post.jwt`, OID4VP 1.0 §8.3): JWEs made with jose as a wallet
 * makes them decrypt; one made to another key, with another alg, enc or kid, altered, oversized or compressed does not;
 * the payload must be one bounded JSON object. The private key round-trips through the service's sealing.
 */
import { CompactEncrypt, importJWK } from 'jose'
import { describe, expect, it } from 'vitest'
import { decryptVpResponse, generateVpResponseKey, type VpResponseEnc } from '../../src/oid4vp/protocol/index.js'
import { openVpKey, sealVpKey } from '../../src/oid4vp/ephemeral-key.js'
import { KeyCustody } from '../../src/custody/key-custody.js'
import { Keyring } from '../../src/keys/keyring.js'
import { randomMasterKey } from '../../src/keys/keyring.js'

const text = new TextEncoder()

/** A JWE as a wallet makes it: ECDH-ES to `publicJwk`, the header's `kid` and `enc` as given. */
async function jweTo(publicJwk: Record<string, unknown>, payload: string | object, header: Record<string, unknown> = {}): Promise<string> {
  const key = await importJWK({ ...publicJwk, alg: 'ECDH-ES' }, 'ECDH-ES')
  const bytes = text.encode(typeof payload === 'string' ? payload : JSON.stringify(payload))
  return new CompactEncrypt(bytes)
    .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: publicJwk.kid as string, ...header })
    .encrypt(key)
}

const ENC: VpResponseEnc[] = ['A128GCM', 'A256GCM']

describe('generateVpResponseKey', () => {
  it('makes a P-256 ECDH-ES key with a random kid; the public JWK has no private member', async () => {
    const a = await generateVpResponseKey()
    const b = await generateVpResponseKey()
    expect(a.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES' })
    expect(a.publicJwk.kid).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(a.publicJwk.kid).not.toBe(b.publicJwk.kid)
    expect(a.publicJwk).not.toHaveProperty('d')
    expect(a.privateJwk).toMatchObject({ ...a.publicJwk, d: expect.any(String) })
  })
})

describe('decryptVpResponse', () => {
  it('decrypts a JWE to the request key, with each offered enc', async () => {
    const { publicJwk, privateJwk } = await generateVpResponseKey()
    for (const enc of ENC) {
      const payload = { vp_token: { q: ['ey…'] }, state: 's' }
      const result = await decryptVpResponse(await jweTo(publicJwk, payload, { enc }), privateJwk, {
        kid: publicJwk.kid as string,
        enc: ENC,
      })
      expect(result).toEqual({ ok: true, payload })
    }
  })

  it('refuses a JWE made to another key, even naming this key’s kid', async () => {
    const mine = await generateVpResponseKey()
    const other = await generateVpResponseKey()
    const jwe = await jweTo({ ...other.publicJwk, kid: mine.publicJwk.kid }, { state: 's' })
    const result = await decryptVpResponse(jwe, mine.privateJwk, { kid: mine.publicJwk.kid as string, enc: ENC })
    expect(result).toEqual({ ok: false, error: expect.stringMatching(/could not be decrypted/) })
  })

  it('refuses another kid, an enc not offered, another alg, compression', async () => {
    const { publicJwk, privateJwk } = await generateVpResponseKey()
    const kid = publicJwk.kid as string
    const cases: Array<[Record<string, unknown>, VpResponseEnc[], RegExp]> = [
      [{ kid: 'another' }, ENC, /kid/],
      [{ enc: 'A256GCM' }, ['A128GCM'], /enc must be one of A128GCM/],
      [{ alg: 'ECDH-ES+A128KW' }, ENC, /alg must be ECDH-ES/],
    ]
    for (const [header, enc, error] of cases) {
      const result = await decryptVpResponse(await jweTo(publicJwk, { state: 's' }, header), privateJwk, { kid, enc })
      expect(result).toEqual({ ok: false, error: expect.stringMatching(error) })
    }
    // A header naming zip: refused before decryption (jose would not make one).
    const [, ...rest] = (await jweTo(publicJwk, { state: 's' })).split('.')
    const zipped = Buffer.from(
      JSON.stringify({ alg: 'ECDH-ES', enc: 'A128GCM', kid, zip: 'DEF', epk: { kty: 'EC', crv: 'P-256' } }),
    ).toString('base64url')
    expect(await decryptVpResponse([zipped, ...rest].join('.'), privateJwk, { kid, enc: ENC })).toEqual({
      ok: false,
      error: expect.stringMatching(/zip/),
    })
  })

  it('refuses an altered ciphertext, a JSON serialization, an oversized JWE', async () => {
    const { publicJwk, privateJwk } = await generateVpResponseKey()
    const kid = publicJwk.kid as string
    const parts = (await jweTo(publicJwk, { state: 's' })).split('.')
    const flipped = parts[3].startsWith('A') ? `B${parts[3].slice(1)}` : `A${parts[3].slice(1)}`
    expect((await decryptVpResponse([...parts.slice(0, 3), flipped, parts[4]].join('.'), privateJwk, { kid, enc: ENC })).ok).toBe(false)
    expect((await decryptVpResponse('{"protected":"x"}', privateJwk, { kid, enc: ENC })).ok).toBe(false)
    const big = await jweTo(publicJwk, { pad: 'x'.repeat(5000) })
    expect(await decryptVpResponse(big, privateJwk, { kid, enc: ENC, maxBytes: 4096 })).toEqual({
      ok: false,
      error: expect.stringMatching(/over 4096 bytes/),
    })
  })

  it('takes only a JSON object as payload, nested within the bound, no member twice', async () => {
    const { publicJwk, privateJwk } = await generateVpResponseKey()
    const kid = publicJwk.kid as string
    const decrypt = async (payload: string, maxDepth?: number) =>
      decryptVpResponse(await jweTo(publicJwk, payload), privateJwk, { kid, enc: ENC, ...(maxDepth && { maxDepth }) })
    expect(await decrypt('[1]')).toEqual({ ok: false, error: expect.stringMatching(/JSON object/) })
    expect(await decrypt('not json')).toEqual({ ok: false, error: expect.stringMatching(/not JSON/) })
    expect(await decrypt('{"a":1,"a":2}')).toEqual({ ok: false, error: expect.stringMatching(/twice/) })
    expect(await decrypt(`{"a":${'['.repeat(10)}${']'.repeat(10)}}`, 8)).toEqual({ ok: false, error: expect.stringMatching(/deeper/) })
    expect((await decrypt(`{"a":${'['.repeat(5)}${']'.repeat(5)}}`, 8)).ok).toBe(true)
  })

  it('decrypts with the private key after the service sealed and opened it; the envelope holds no key material', async () => {
    const custody = new KeyCustody(new Keyring(randomMasterKey()))
    const { publicJwk, privateJwk } = await generateVpResponseKey()
    const record = { tenantId: 'tenant-a', id: 'request-record-1' }
    const sealed = sealVpKey({ custody }, record, privateJwk)
    expect(sealed).not.toContain(privateJwk.d as string)
    const opened = openVpKey({ custody }, record, sealed)
    expect(opened).toEqual(privateJwk)
    const result = await decryptVpResponse(await jweTo(publicJwk, { state: 's' }), opened, { kid: publicJwk.kid as string, enc: ENC })
    expect(result.ok).toBe(true)
    // Another keyring (another master key) cannot open it.
    expect(() => openVpKey({ custody: new KeyCustody(new Keyring(randomMasterKey())) }, record, sealed)).toThrow()
    // Nor does another record's context (an envelope moved to another request).
    expect(() => openVpKey({ custody }, { ...record, id: 'request-record-2' }, sealed)).toThrow()
    expect(() => openVpKey({ custody }, { ...record, tenantId: 'tenant-b' }, sealed)).toThrow()
  })
})

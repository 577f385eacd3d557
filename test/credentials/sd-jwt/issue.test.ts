/**
 * The shape of an issued SD-JWT VC: by default every top-level payload claim is selectively disclosable (privacy by
 * default), `[]` makes none, nested members and array elements take their own disclosures, decoys add digests only;
 * `_sd_alg: sha-256` always; the issuer's claims are never in a disclosure.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { issueSdJwtVc, verifySdJwtVc } from '../../../src/credentials/formats/sd-jwt/index.js'
import type { BackendKeyManager } from '../../../src/keys/port.js'
import { decodeDisclosure, nowSeconds, openKeyPort, partsOf, portIdentity, resolver } from './helpers.js'

let keys: BackendKeyManager
let close: () => Promise<void>
let issuer: Awaited<ReturnType<typeof portIdentity>>
beforeAll(async () => {
  ;({ keys, close } = await openKeyPort())
  issuer = await portIdentity(keys, 'secp256k1', 'jwk')
})
afterAll(() => close())

const PAYLOAD = { name: 'Erika', address: { locality: 'Köln', country: 'DE' }, langs: ['de', 'fr', 'en'] }

const issue = (disclose?: string[], decoys?: number) =>
  issueSdJwtVc({ signer: issuer.signer, issuer: issuer.did, vct: 'urn:example:vct', payload: PAYLOAD, disclose, decoys, iat: nowSeconds() })

const payloadOf = (compact: string) =>
  JSON.parse(Buffer.from(partsOf(compact).jwt.split('.')[1], 'base64url').toString()) as Record<string, unknown>

it('default: every top-level payload claim is a disclosure, the issuer claims stay visible', async () => {
  const compact = await issue()
  expect(
    partsOf(compact)
      .disclosures.map((d) => decodeDisclosure(d)[1])
      .sort(),
  ).toEqual(['address', 'langs', 'name'])
  const payload = payloadOf(compact)
  expect(payload).toMatchObject({ iss: issuer.did, vct: 'urn:example:vct', _sd_alg: 'sha-256' })
  expect(payload).not.toHaveProperty('name')
  expect((payload._sd as string[]).length).toBe(3)
  expect((await verifySdJwtVc(compact, { resolver, now: Date.now() })).disclosed).toMatchObject(PAYLOAD)
})

it('[]: no disclosure, every claim in the signed payload, still _sd_alg', async () => {
  const compact = await issue([])
  expect(partsOf(compact).disclosures).toEqual([])
  expect(payloadOf(compact)).toMatchObject({ ...PAYLOAD, _sd_alg: 'sha-256' })
  expect((await verifySdJwtVc(compact, { resolver, now: Date.now() })).verified).toBe(true)
})

it('nested members and array elements, with decoys', async () => {
  const compact = await issue(['/address/locality', '/langs/0', '/langs/2'], 4)
  const payload = payloadOf(compact)
  expect(payload.address).toEqual({ country: 'DE', _sd: [expect.any(String)] })
  expect(payload.langs).toEqual([{ '...': expect.any(String) }, 'fr', { '...': expect.any(String) }])
  expect(payload._sd).toHaveLength(4)
  expect(partsOf(compact).disclosures.map((d) => decodeDisclosure(d).slice(1))).toEqual([['locality', 'Köln'], ['de'], ['en']])
  const verified = await verifySdJwtVc(compact, { resolver, now: Date.now() })
  expect(verified.disclosed).toEqual({ ...PAYLOAD, iss: issuer.did, iat: expect.any(Number), vct: 'urn:example:vct' })
})

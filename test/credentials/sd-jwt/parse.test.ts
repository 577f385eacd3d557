/**
 * Parsing an SD-JWT VC for a store: index fields only from the always-visible claims (a disclosable `sub` is not
 * indexed), the parts, and a content hash that is the same for the same disclosure set in any order and differs for
 * another set; a presentation or disclosures that do not fit are a 422.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { issueSdJwtVc, parseSdJwtVc, presentSdJwtVc, sdJwtVcContentHash } from '../../../src/credentials/formats/sd-jwt/index.js'
import type { BackendKeyManager } from '../../../src/keys/port.js'
import { nowSeconds, openKeyPort, partsOf, portIdentity } from './helpers.js'

let keys: BackendKeyManager
let close: () => Promise<void>
let issuer: Awaited<ReturnType<typeof portIdentity>>
beforeAll(async () => {
  ;({ keys, close } = await openKeyPort())
  issuer = await portIdentity(keys, 'Ed25519')
})
afterAll(() => close())

const issue = (payload: Record<string, unknown>, disclose?: string[]) =>
  issueSdJwtVc({
    signer: issuer.signer,
    issuer: issuer.did,
    vct: 'urn:example:vct',
    payload,
    disclose,
    holderJwk: issuer.signer.publicJwk,
    iat: 1_800_000_000,
    exp: 1_900_000_000,
    status: { status_list: { idx: 7, uri: 'https://issuer.example.com/status/1' } },
  })

it('index fields come from the always-visible claims only', async () => {
  const visible = await parseSdJwtVc(await issue({ sub: 'did:example:holder', name: 'Erika' }, ['/name']))
  expect(visible).toMatchObject({
    issuer: issuer.did,
    vct: 'urn:example:vct',
    subject: 'did:example:holder',
    iat: 1_800_000_000,
    exp: 1_900_000_000,
    status: { status_list: { idx: 7, uri: 'https://issuer.example.com/status/1' } },
  })
  expect(visible.disclosures).toHaveLength(1)
  const hidden = await parseSdJwtVc(await issue({ sub: 'did:example:holder', name: 'Erika' }))
  expect(hidden).not.toHaveProperty('subject')
})

it('the content hash: same set in any order the same, another set another', async () => {
  const compact = await issue({ a: 1, b: 2, c: 3 })
  const { jwt, disclosures } = partsOf(compact)
  const hash = sdJwtVcContentHash(await parseSdJwtVc(compact))
  expect(sdJwtVcContentHash(await parseSdJwtVc([jwt, ...[...disclosures].reverse(), ''].join('~')))).toBe(hash)
  expect(sdJwtVcContentHash(await parseSdJwtVc([jwt, ...disclosures.slice(1), ''].join('~')))).not.toBe(hash)
})

it('a presentation, a stray disclosure, or no SD-JWT is a 422', async () => {
  const compact = await issue({ a: 1 })
  const presentation = await presentSdJwtVc(compact, {
    disclose: ['/a'],
    holderSigner: issuer.signer,
    nonce: 'n',
    aud: 'v',
    iat: nowSeconds(),
  })
  await expect(parseSdJwtVc(presentation)).rejects.toMatchObject({ statusCode: 422 })
  const { jwt, disclosures } = partsOf(compact)
  await expect(parseSdJwtVc([jwt, ...disclosures, ...disclosures, ''].join('~'))).rejects.toMatchObject({ statusCode: 422 })
  await expect(parseSdJwtVc('not an sd-jwt')).rejects.toMatchObject({ statusCode: 422 })
})

/**
 * Salts: every disclosure's salt is 16 or more bytes from node:crypto (128 bits; the library's own Node generator gives
 * 64 bits for `generateSalt(16)`), and none repeats across 1,000 disclosures (four credentials of 250 claims, nested
 * ones and decoys' salts aside).
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { issueSdJwtVc } from '../../../src/credentials/formats/sd-jwt/index.js'
import type { BackendKeyManager } from '../../../src/keys/port.js'
import { decodeDisclosure, nowSeconds, openKeyPort, partsOf, portIdentity } from './helpers.js'

let keys: BackendKeyManager
let close: () => Promise<void>
beforeAll(async () => ({ keys, close } = await openKeyPort()))
afterAll(() => close())

it('salts are 16+ random bytes and never repeat across 1,000 disclosures', async () => {
  const issuer = await portIdentity(keys, 'Ed25519')
  const payload = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`claim${i}`, 'same value']))
  const salts: string[] = []
  for (let n = 0; n < 4; n++) {
    const compact = await issueSdJwtVc({ signer: issuer.signer, issuer: issuer.did, vct: 'urn:example:vct', payload, iat: nowSeconds() })
    salts.push(...partsOf(compact).disclosures.map((d) => decodeDisclosure(d)[0] as string))
  }
  expect(salts).toHaveLength(1000)
  for (const salt of salts) {
    expect(salt).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(Buffer.from(salt, 'base64url').length).toBeGreaterThanOrEqual(16)
  }
  expect(new Set(salts).size).toBe(1000)
})

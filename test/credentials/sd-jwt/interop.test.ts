/**
 * SD-JWT VC interoperability, both ways, with `@sd-jwt/sd-jwt-vc` 0.19 (an independent implementation) and node:crypto
 * keys on its side: credentials issued here through the key port (sealed backend, real SQLite file) by Ed25519, P-256
 * and secp256k1 issuers on did:key and did:jwk — with nested and array-element disclosures and decoys — verify in the
 * library with the disclosed claims, and so do our KB presentations; credentials and presentations the library makes
 * verify here with the claims it disclosed.
 */
import { digest, ES256 } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BackendKeyManager } from '../../../src/keys/port.js'
import { issueSdJwtVc, presentSdJwtVc, verifySdJwtVc } from '../../../src/credentials/formats/sd-jwt/index.js'
import { didJwkOf, KEY_TYPES, nodeVerifier, nowSeconds, openKeyPort, outsideKey, partsOf, portIdentity, resolver } from './helpers.js'

let keys: BackendKeyManager
let close: () => Promise<void>
beforeAll(async () => ({ keys, close } = await openKeyPort()))
afterAll(() => close())

const PAYLOAD = {
  given_name: 'Erika',
  family_name: 'Mustermann',
  address: { street_address: 'Heidestraße 17', locality: 'Köln', country: 'DE' },
  nationalities: ['DE', 'FR'],
  age_over_18: true,
}
const DISCLOSE = ['/given_name', '/family_name', '/address', '/address/street_address', '/nationalities/1', '/age_over_18']

/**
 * The library, verifying the issuer's key for the credential and `cnf.jwk` for the KB-JWT: with `@sd-jwt/crypto-nodejs`'s
 * own ES256 verifier for P-256 keys, with node:crypto for Ed25519 and secp256k1 (which that package does not cover).
 */
const library = async (issuerJwk: { crv?: string }) => {
  const verifierOf = async (jwk: { crv?: string }) => (jwk.crv === 'P-256' ? ES256.getVerifier(jwk) : nodeVerifier(jwk))
  const verifier = await verifierOf(issuerJwk)
  return new SDJwtVcInstance({
    hasher: digest,
    verifier,
    kbVerifier: async (data, sig, payload) => (await verifierOf(payload.cnf!.jwk))(data, sig),
  })
}

describe('our SD-JWT VCs verify in @sd-jwt/sd-jwt-vc', () => {
  for (const type of KEY_TYPES) {
    for (const method of ['key', 'jwk']) {
      it(`${type} issuer on did:${method}: the credential, then a KB presentation of some claims`, async () => {
        const issuer = await portIdentity(keys, type, method)
        const holder = await portIdentity(keys, 'P-256')
        const iat = nowSeconds()
        const compact = await issueSdJwtVc({
          signer: issuer.signer,
          issuer: issuer.did,
          vct: 'https://credentials.example.com/identity_credential',
          payload: PAYLOAD,
          disclose: DISCLOSE,
          decoys: 3,
          holderJwk: holder.signer.publicJwk,
          iat,
          exp: iat + 3600,
        })
        const [header] = partsOf(compact).jwt.split('.')
        expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({
          typ: 'dc+sd-jwt',
          alg: expectedAlg(type),
          kid: issuer.kid,
        })
        expect(partsOf(compact).disclosures).toHaveLength(6)

        const theirs = await (await library(issuer.signer.publicJwk)).verify(compact)
        expect(theirs.payload).toMatchObject({ ...PAYLOAD, iss: issuer.did, vct: 'https://credentials.example.com/identity_credential' })
        const ours = await verifySdJwtVc(compact, { resolver, now: Date.now() })
        expect(ours).toMatchObject({ verified: true, issuer: issuer.did, signer: issuer.kid })
        expect(ours.disclosed).toEqual({
          ...PAYLOAD,
          iss: issuer.did,
          iat,
          exp: iat + 3600,
          vct: 'https://credentials.example.com/identity_credential',
        })

        const presentation = await presentSdJwtVc(compact, {
          disclose: ['/address/street_address', '/nationalities/1'],
          holderSigner: holder.signer,
          nonce: 'n-0S6_WzA2Mj',
          aud: 'https://verifier.example.org',
          iat: nowSeconds(),
        })
        const shown = await (await library(issuer.signer.publicJwk)).verify(presentation, { keyBindingNonce: 'n-0S6_WzA2Mj' })
        expect(shown.kb?.payload).toMatchObject({ aud: 'https://verifier.example.org', nonce: 'n-0S6_WzA2Mj' })
        // the address's own disclosure is needed to reach its street; nothing else of it, nor other claims, is shown
        expect(shown.payload).toMatchObject({
          address: { street_address: 'Heidestraße 17', locality: 'Köln', country: 'DE' },
          nationalities: ['DE', 'FR'],
        })
        expect(shown.payload).not.toHaveProperty('given_name')
        const verified = await verifySdJwtVc(presentation, {
          resolver,
          now: Date.now(),
          kb: { nonce: 'n-0S6_WzA2Mj', aud: 'https://verifier.example.org' },
        })
        expect(verified.checks.filter((c) => !c.verified)).toEqual([])
        expect(verified.checks.map((c) => c.check)).toEqual(
          expect.arrayContaining(['signature', 'disclosures', 'kbSignature', 'sd_hash', 'nonce', 'aud', 'kbIat']),
        )
        expect(verified.disclosed).toEqual({
          address: { street_address: 'Heidestraße 17', locality: 'Köln', country: 'DE' },
          nationalities: ['DE', 'FR'],
          iss: issuer.did,
          iat,
          exp: iat + 3600,
          vct: 'https://credentials.example.com/identity_credential',
        })
      })
    }
  }
})

describe('SD-JWT VCs and presentations of @sd-jwt/sd-jwt-vc verify here', () => {
  for (const type of KEY_TYPES) {
    it(`${type} issuer on did:jwk, Ed25519 holder`, async () => {
      const issuerKey = type === 'P-256' ? await es256Key() : outsideKey(type)
      const holderKey = outsideKey('Ed25519')
      const { did, kid } = await didJwkOf(issuerKey.publicJwk)
      const theirs = new SDJwtVcInstance({
        signer: issuerKey.signer,
        signAlg: issuerKey.alg,
        hasher: digest,
        saltGenerator: () => Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64url'),
        kbSigner: holderKey.signer,
        kbSignAlg: holderKey.alg,
      })
      const iat = nowSeconds()
      const compact = await theirs.issue(
        { iss: did, iat, vct: 'urn:eudi:pid:1', cnf: { jwk: holderKey.publicJwk }, ...PAYLOAD },
        {
          _sd: ['given_name', 'family_name', 'address', 'nationalities'],
          address: { _sd: ['locality'] },
          nationalities: { _sd: [0] },
          _sd_decoy: 2,
        },
        { header: { kid } },
      )
      const credential = await verifySdJwtVc(compact, { resolver, now: Date.now() })
      expect(credential).toMatchObject({ verified: true, issuer: did, signer: kid })
      expect(credential.disclosed).toEqual({ ...PAYLOAD, iss: did, iat, vct: 'urn:eudi:pid:1' })

      // without kid: the signature is checked against the issuer's assertion keys
      const noKid = await theirs.issue({ iss: did, iat, vct: 'urn:eudi:pid:1', ...PAYLOAD }, { _sd: ['given_name'] })
      expect(await verifySdJwtVc(noKid, { resolver, now: Date.now() })).toMatchObject({ verified: true, signer: kid })

      const presentation = await theirs.present(
        compact,
        { family_name: true, nationalities: { 0: true } },
        {
          kb: { payload: { iat: nowSeconds(), aud: 'https://verifier.example.org', nonce: 'abc-123' } },
        },
      )
      const verified = await verifySdJwtVc(presentation, {
        resolver,
        now: Date.now(),
        kb: { nonce: 'abc-123', aud: 'https://verifier.example.org' },
      })
      expect(verified.checks.filter((c) => !c.verified)).toEqual([])
      expect(verified.disclosed).toEqual({
        family_name: 'Mustermann',
        nationalities: ['DE', 'FR'],
        age_over_18: true,
        iss: did,
        iat,
        vct: 'urn:eudi:pid:1',
      })
    })
  }
})

const expectedAlg = (type: string) => ({ Ed25519: 'EdDSA', 'P-256': 'ES256', secp256k1: 'ES256K' })[type]

/** A P-256 key made and used by the library's own node crypto (`@sd-jwt/crypto-nodejs` ES256). */
async function es256Key() {
  const { publicKey, privateKey } = await ES256.generateKeyPair()
  const { kty, crv, x, y } = publicKey as { kty: 'EC'; crv: 'P-256'; x: string; y: string }
  return { publicJwk: { kty, crv, x, y }, alg: 'ES256' as const, signer: await ES256.getSigner(privateKey) }
}

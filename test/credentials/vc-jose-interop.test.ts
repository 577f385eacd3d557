/**
 * VC-JOSE interop with `jose` 6 (panva's JOSE implementation, independent of didvault), through the router on loopback
 * HTTP (SQLite file), for ES256 (P-256) and EdDSA (Ed25519) keys of did:jwk DIDs:
 *
 * - ours → jose: a credential signed with `format: "VC-JOSE"` verifies with jose's `compactVerify` and `jwtVerify`
 *   (requiring `typ: vc+jwt`) against the public JWK of the issuer's verification method named by the header's `kid`,
 *   resolved through didvault's DID resolver; its header carries `cty: vc`; changed, jose refuses it. A `vp+jwt` signed
 *   on `/presentations/sign` likewise (`typ: vp+jwt`, `cty: vp`, its `nonce` and `aud`).
 * - jose → ours: a `vc+jwt` signed by jose with a key the test owns verifies on `/claims/verify` (and, changed, does not);
 *   a `vp+jwt` signed by jose enveloping it verifies on `/presentations/verify` with its nonce, audience and holder
 *   binding.
 */
import { compactVerify, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type CryptoKey, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { KeyType, PublicJwk } from '../../src/keys/key-types.js'
import { CREDENTIALS_V2_URL } from '../../src/proofs/jsonld/index.js'
import { startHarness, type Harness } from '../helpers/harness.js'
import { didJwkOf, resolver } from './sd-jwt/helpers.js'

const KEYS: Array<{ keyType: KeyType; alg: 'ES256' | 'EdDSA' }> = [
  { keyType: 'P-256', alg: 'ES256' },
  { keyType: 'Ed25519', alg: 'EdDSA' },
]

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
})
afterAll(() => h?.close())

type Party = { did: string; jwt: string }

/** A did:jwk wallet of the tenant with a key of `keyType`, and its DID-auth token. */
async function walletOf(keyType: KeyType): Promise<Party> {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'jwk', keyType } } })
  expect(made.status).toBe(200)
  const did: string = made.body.wallet.did
  const token = await h.request('POST', '/did-auth-jwt', { json: { iss: did } })
  expect(token.status).toBe(200)
  return { did, jwt: token.body.jwt }
}

const decodePart = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, any>

/** `jws` with its payload's `credentialSubject.degree` (or `holder`) changed, its signature kept. */
function changed(jws: string): string {
  const [header, payload, signature] = jws.split('.')
  const swapped = Buffer.from(payload, 'base64url').toString('utf8').replace('"BSc"', '"PhD"').replace('"did:', '"did:x')
  return `${header}.${Buffer.from(swapped).toString('base64url')}.${signature}`
}

/** The public key of the verification method a JWS header's `kid` names, through didvault's resolver. */
async function keyOfKid(kid: string, alg: string): Promise<CryptoKey> {
  const { didDocument } = await resolver.resolve(kid.split('#')[0])
  const method = didDocument?.verificationMethod?.find((m) => m.id === kid || `${didDocument.id}${m.id}` === kid)
  if (!method?.publicKeyJwk) throw new Error(`no publicKeyJwk for ${kid}`)
  return (await importJWK(method.publicKeyJwk as JWK, alg)) as CryptoKey
}

/** A key the test owns, made by jose, and its did:jwk. */
async function joseParty(alg: 'ES256' | 'EdDSA') {
  const { privateKey, publicKey } = await generateKeyPair(alg, { crv: alg === 'EdDSA' ? 'Ed25519' : undefined })
  const { kty, crv, x, y } = await exportJWK(publicKey)
  const publicJwk = (y === undefined ? { kty, crv, x } : { kty, crv, x, y }) as PublicJwk
  const { did, kid } = await didJwkOf(publicJwk)
  return { privateKey, did, kid }
}

describe('VC-JOSE with jose 6', () => {
  for (const { keyType, alg } of KEYS) {
    it(`${alg}: our vc+jwt verifies with jose's compactVerify and jwtVerify against the issuer's resolved JWK; changed, it does not`, async () => {
      const issuer = await walletOf(keyType)
      const res = await h.request('POST', '/claims/sign', {
        json: { iss: issuer.did, format: 'VC-JOSE', sub: 'did:example:holder', claims: [{ payload: { degree: 'BSc' } }] },
        didAuth: issuer.jwt,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const jws: string = res.body.vcs[0].jwt
      const { kid } = decodePart(jws.split('.')[0])
      const key = await keyOfKid(kid as string, alg)

      const compact = await compactVerify(jws, key, { algorithms: [alg] })
      expect(compact.protectedHeader).toEqual({ alg, typ: 'vc+jwt', cty: 'vc', kid: `${issuer.did}#0` })
      const { payload, protectedHeader } = await jwtVerify(jws, key, { typ: 'vc+jwt', algorithms: [alg] })
      expect(protectedHeader.cty).toBe('vc')
      expect(payload).toMatchObject({
        '@context': [CREDENTIALS_V2_URL],
        issuer: issuer.did,
        credentialSubject: { id: 'did:example:holder', degree: 'BSc' },
      })
      expect(JSON.parse(Buffer.from(compact.payload).toString('utf8'))).toEqual(payload)
      await expect(jwtVerify(changed(jws), key, { typ: 'vc+jwt' })).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' })
    })

    it(`${alg}: a vc+jwt signed by jose verifies on /claims/verify; changed, it does not`, async () => {
      const verifier = await walletOf('Ed25519')
      const theirs = await joseParty(alg)
      const jws = await new SignJWT({
        '@context': [CREDENTIALS_V2_URL],
        type: ['VerifiableCredential'],
        issuer: theirs.did,
        validFrom: '2026-01-01T00:00:00Z',
        credentialSubject: { id: 'did:example:holder', degree: 'BSc' },
      })
        .setProtectedHeader({ alg, typ: 'vc+jwt', cty: 'vc', kid: theirs.kid })
        .sign(theirs.privateKey)
      const verify = (jwt: string) => h.request('POST', '/claims/verify', { json: { claims: [{ jwt }] }, didAuth: verifier.jwt })
      const verified = await verify(jws)
      expect(verified.status, JSON.stringify(verified.body)).toBe(200)
      expect(verified.body.vcs[0], JSON.stringify(verified.body)).toMatchObject({ verified: true, issuer: theirs.did })
      const refused = await verify(changed(jws))
      expect(refused.body.vcs[0]).toMatchObject({ verified: false })
    })

    it(`${alg}: our vp+jwt verifies with jose (typ vp+jwt, nonce, aud); jose's vp+jwt verifies on /presentations/verify`, async () => {
      const issuer = await walletOf('P-256')
      const holder = await walletOf(keyType)
      const signed = await h.request('POST', '/claims/sign', {
        json: { iss: issuer.did, format: 'VC-JOSE', sub: holder.did, claims: [{ payload: { degree: 'BSc' } }] },
        didAuth: issuer.jwt,
      })
      const vc: string = signed.body.vcs[0].jwt
      const binding = { nonce: 'n-32-jose', aud: 'https://verifier.example' }
      const ours = await h.request('POST', '/presentations/sign', {
        json: { holder: holder.did, format: 'VC-JOSE', vcs: [{ jwt: vc }], ...binding, expiresIn: 600_000 },
        didAuth: holder.jwt,
      })
      expect(ours.status, JSON.stringify(ours.body)).toBe(200)
      const vp: string = ours.body.presentation.jwt
      const holderKey = await keyOfKid(decodePart(vp.split('.')[0]).kid as string, alg)
      const { payload, protectedHeader } = await jwtVerify(vp, holderKey, { typ: 'vp+jwt', audience: binding.aud, algorithms: [alg] })
      expect(protectedHeader).toMatchObject({ alg, typ: 'vp+jwt', cty: 'vp' })
      expect(payload).toMatchObject({ holder: holder.did, nonce: binding.nonce })
      await expect(jwtVerify(changed(vp), holderKey, { typ: 'vp+jwt' })).rejects.toMatchObject({
        code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      })

      const theirs = await joseParty(alg)
      const forThem = await h.request('POST', '/claims/sign', {
        json: { iss: issuer.did, format: 'VC-JOSE', sub: theirs.did, claims: [{ payload: { degree: 'BSc' } }] },
        didAuth: issuer.jwt,
      })
      const theirVc: string = forThem.body.vcs[0].jwt
      const iat = Math.floor(Date.now() / 1000)
      const theirVp = await new SignJWT({
        '@context': [CREDENTIALS_V2_URL],
        type: ['VerifiablePresentation'],
        holder: theirs.did,
        verifiableCredential: [
          { '@context': CREDENTIALS_V2_URL, type: 'EnvelopedVerifiableCredential', id: `data:application/vc+jwt,${theirVc}` },
        ],
        nonce: binding.nonce,
      })
        .setProtectedHeader({ alg, typ: 'vp+jwt', cty: 'vp', kid: theirs.kid })
        .setAudience(binding.aud)
        .setIssuedAt(iat)
        .setExpirationTime(iat + 600)
        .sign(theirs.privateKey)
      const verify = (jwt: string) =>
        h.request('POST', '/presentations/verify', {
          json: { presentation: { jwt }, ...binding, holderBinding: true },
          didAuth: holder.jwt,
        })
      const verified = await verify(theirVp)
      expect(verified.status, JSON.stringify(verified.body)).toBe(200)
      expect(verified.body, JSON.stringify(verified.body)).toMatchObject({ verified: true, holder: theirs.did })
      expect(verified.body.vcs).toMatchObject([{ jwt: theirVc, verified: true, issuer: issuer.did }])
      const refused = await verify(changed(theirVp))
      expect(refused.body).toMatchObject({ verified: false })
    })
  }
})

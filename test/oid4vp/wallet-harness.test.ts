/**
 * Proves the OID4VP wallet helpers (test/helpers/oid4vp-wallets.ts) against a test-only reference verifier built on
 * `@openid4vc/openid4vp` (test/helpers/oid4vp-reference-verifier.ts), over https on loopback: both wallet clients answer
 * an SD-JWT VC request (`direct_post` and `direct_post.jwt`) and a VP-JWT request, and each negative knob makes the
 * verifier refuse — so the verifier tests that use these wallets can fail.
 */
import { readFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as jose from 'jose'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { digest, ES256 } from '@sd-jwt/crypto-nodejs'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import { ES256Signer } from 'did-jwt'
import { makeTestCa, type TestCa } from '../helpers/tls.js'
import { didJwkOf, startReferenceVerifier, type RefClientIdPrefix, type ReferenceVerifier } from '../helpers/oid4vp-reference-verifier.js'
import {
  loadDigitalbazaarLibraries,
  w3cDiDocumentLoader,
  didKeyDocumentOf,
  multikeyMethodOf,
  type LibraryDocumentLoader,
  type W3cKeyPair,
} from '../helpers/w3c-di-vectors.js'
import { multibaseOfJwk } from '../helpers/multikey-of-jwk.js'
import { oid4ClientWallet, openid4vcWallet, type HeldCredential, type VpWallet, type WalletTrust } from '../helpers/oid4vp-wallets.js'

const VCT = 'https://credentials.example/identity'

const newKey = async () => {
  const { publicKey, privateKey } = await jose.generateKeyPair('ES256', { extractable: true })
  return { publicJwk: await jose.exportJWK(publicKey), privateJwk: await jose.exportJWK(privateKey) }
}

/** An SD-JWT VC (issuer did:jwk, every claim selectively disclosable) bound to the holder's key. */
async function makeSdJwtVc(issuer: { publicJwk: jose.JWK; privateJwk: jose.JWK }, holder: { publicJwk: jose.JWK }) {
  const sdjwt = new SDJwtVcInstance({
    hasher: digest,
    signAlg: 'ES256',
    signer: await ES256.getSigner(issuer.privateJwk),
    saltGenerator: (length: number) => randomBytes(length).toString('base64url'),
  })
  const claims = { given_name: 'Ada', family_name: 'Lovelace', birthdate: '1815-12-10' }
  return sdjwt.issue(
    { iss: didJwkOf(issuer.publicJwk), iat: Math.floor(Date.now() / 1000), vct: VCT, cnf: { jwk: holder.publicJwk }, ...claims },
    { _sd: ['given_name', 'family_name', 'birthdate'] },
  )
}

const sdJwtQuery = (claims = ['given_name', 'family_name']) => ({
  credentials: [{ id: 'identity', format: 'dc+sd-jwt', meta: { vct_values: [VCT] }, claims: claims.map((name) => ({ path: [name] })) }],
})

const vcJwtQuery = {
  credentials: [
    {
      id: 'degree',
      format: 'jwt_vc_json',
      meta: { type_values: [['VerifiableCredential', 'UniversityDegreeCredential']] },
      claims: [{ path: ['credentialSubject', 'degree'] }],
    },
  ],
}

const diQuery = {
  credentials: [
    {
      id: 'identity',
      format: 'ldp_vc',
      meta: { type_values: [['VerifiableCredential', 'ExampleIdentityCredential']] },
      claims: [{ path: ['credentialSubject', 'given_name'] }],
    },
  ],
}

let ca: TestCa
let verifier: ReferenceVerifier
let trust: WalletTrust
let held: HeldCredential[]
let documentLoader: LibraryDocumentLoader
let diCredential: HeldCredential

/** A did:key (P-256) for a fresh key: its private JWK, DID and verification method id. */
async function didKeyHolder() {
  const { publicJwk, privateJwk } = await newKey()
  const multibase = await multibaseOfJwk(publicJwk as { kty: string; crv: string; x: string; y: string })
  const did = `did:key:${multibase}`
  return { publicJwk, privateJwk, did, keyId: `${did}#${multibase}`, multibase }
}

/**
 * An ecdsa-sd-2023 credential issued to a did:key holder and derived to disclose `given_name`, and a document loader
 * knowing both did:key documents (besides the contexts of test/helpers/w3c-di-vectors.ts).
 */
async function makeDerivedDiCredential() {
  const libraries = await loadDigitalbazaarLibraries()
  const issuer = await didKeyHolder()
  const holder = await didKeyHolder()
  const base = w3cDiDocumentLoader()
  const documents = new Map<string, unknown>()
  for (const key of [issuer, holder]) {
    const keyPair = { controller: key.did, verificationMethod: key.keyId, publicKeyMultibase: key.multibase } as W3cKeyPair
    documents.set(key.did, didKeyDocumentOf(keyPair))
    documents.set(key.keyId, multikeyMethodOf(keyPair))
  }
  const loader: LibraryDocumentLoader = async (url) => {
    const document = documents.get(url) ?? documents.get(url.split('#')[0])
    return document ? { contextUrl: null, documentUrl: url, document: structuredClone(document) } : base(url)
  }
  const issuerKeyPair = await libraries.EcdsaMultikey.fromJwk({
    jwk: issuer.privateJwk,
    secretKey: true,
    id: issuer.keyId,
    controller: issuer.did,
  })
  const credential = {
    '@context': ['https://www.w3.org/ns/credentials/v2', 'https://www.w3.org/ns/credentials/examples/v2'],
    type: ['VerifiableCredential', 'ExampleIdentityCredential'],
    issuer: issuer.did,
    credentialSubject: { id: holder.did, given_name: 'Ada', family_name: 'Lovelace' },
  }
  const signed = await libraries.vc.issue({
    credential,
    suite: new libraries.DataIntegrityProof({
      cryptosuite: libraries.signing('ecdsa-sd-2023', ['/issuer']),
      signer: issuerKeyPair.signer(),
    }),
    documentLoader: loader,
  })
  const derived = (await libraries.vc.derive({
    verifiableCredential: signed,
    suite: new libraries.DataIntegrityProof({ cryptosuite: libraries.disclose(['/credentialSubject/given_name']) }),
    documentLoader: loader,
  })) as Record<string, unknown>
  return {
    loader,
    held: { format: 'ldp_vc', credential: derived, holderDid: holder.did, holderKey: holder.privateJwk } satisfies HeldCredential,
  }
}

beforeAll(async () => {
  ca = makeTestCa()
  const di = await makeDerivedDiCredential()
  documentLoader = di.loader
  diCredential = di.held
  verifier = await startReferenceVerifier(ca, { documentLoader })
  trust = {
    ca: readFileSync(ca.caFile, 'utf8'),
    resolveDidKey: verifier.resolveDidKey,
    trustedCertificates: [verifier.certificatePem],
    documentLoader,
  }
  const issuer = await newKey()
  const holder = await newKey()
  const holderDid = didJwkOf(holder.publicJwk)
  const vcJwt = await createVerifiableCredentialJwt(
    {
      sub: holderDid,
      nbf: Math.floor(Date.now() / 1000) - 5,
      vc: {
        '@context': ['https://www.w3.org/2018/credentials/v1'],
        type: ['VerifiableCredential', 'UniversityDegreeCredential'],
        credentialSubject: { degree: { type: 'BachelorDegree', name: 'Mathematics' } },
      },
    },
    { did: didJwkOf(issuer.publicJwk), signer: ES256Signer(Buffer.from(String(issuer.privateJwk.d), 'base64url')), alg: 'ES256' },
  )
  held = [
    { format: 'dc+sd-jwt', sdjwt: await makeSdJwtVc(issuer, holder), holderKey: holder.privateJwk },
    { format: 'jwt_vc_json', jwt: vcJwt, holderDid, holderKid: `${holderDid}#0`, holderKey: holder.privateJwk },
  ]
})

afterAll(async () => {
  await verifier?.close()
  ca?.remove()
})

/**
 * Each wallet with the client id prefixes it accepts, and whether the verifier may put a `state` in its requests:
 * oid4-client 5.10.0 refuses decentralized_identifier and x509_hash request objects and never sends `state` back
 * (see oid4vp-wallets.md and the tests at the end).
 */
const matrix: { label: string; wallet: () => VpWallet; prefix: RefClientIdPrefix; withState: boolean }[] = [
  { label: 'oid4-client', wallet: () => oid4ClientWallet(trust), prefix: 'x509_san_dns', withState: false },
  { label: 'openid4vc', wallet: () => openid4vcWallet(trust), prefix: 'decentralized_identifier', withState: true },
  { label: 'openid4vc', wallet: () => openid4vcWallet(trust), prefix: 'x509_san_dns', withState: true },
  { label: 'openid4vc', wallet: () => openid4vcWallet(trust), prefix: 'x509_hash', withState: true },
]

describe.each(matrix)('$label wallet, $prefix verifier', ({ wallet: makeWallet, prefix, withState }) => {
  for (const responseMode of ['direct_post', 'direct_post.jwt'] as const) {
    it(`answers an SD-JWT VC request (${responseMode}) with only the asked claims, bound to the request`, async () => {
      const wallet = makeWallet()
      const request = await verifier.createRequest({ dcqlQuery: sdJwtQuery(), responseMode, prefix, withState })
      const answer = await wallet.answer(request.uri, held)
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      expect(answer.request.nonce).toBe(request.nonce)
      if (responseMode === 'direct_post.jwt') expect(Object.keys(answer.sent)).toEqual(['response'])
      else expect(answer.sent.vp_token).toBeDefined()
      const outcome = verifier.outcome(request.id)
      expect(outcome.status).toBe('fulfilled')
      const claims = outcome.status === 'fulfilled' ? outcome.credentials.identity[0].claims : {}
      expect(claims).toMatchObject({ vct: VCT, given_name: 'Ada', family_name: 'Lovelace' })
      expect(claims).not.toHaveProperty('birthdate')
    })
  }

  it('answers a VP-JWT request (direct_post)', async () => {
    const request = await verifier.createRequest({ dcqlQuery: vcJwtQuery, responseMode: 'direct_post', prefix, withState })
    const answer = await makeWallet().answer(request.uri, held)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    const outcome = verifier.outcome(request.id)
    expect(outcome.status).toBe('fulfilled')
    if (outcome.status === 'fulfilled')
      expect(outcome.credentials.degree[0].claims).toMatchObject({ credentialSubject: { degree: { name: 'Mathematics' } } })
  })

  it('answers a Data Integrity request (ecdsa-sd-2023 derived credential in a holder-signed VP, direct_post.jwt)', async () => {
    const request = await verifier.createRequest({ dcqlQuery: diQuery, responseMode: 'direct_post.jwt', prefix, withState })
    const answer = await makeWallet().answer(request.uri, [...held, diCredential])
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    const outcome = verifier.outcome(request.id)
    if (outcome.status !== 'fulfilled') throw new Error(JSON.stringify(outcome))
    expect(outcome.credentials.identity[0].claims).toMatchObject({ credentialSubject: { given_name: 'Ada' } })
  })

  it('is refused when its Data Integrity presentation has another challenge', async () => {
    const request = await verifier.createRequest({ dcqlQuery: diQuery, responseMode: 'direct_post', prefix, withState })
    const answer = await makeWallet().answer(request.uri, [diCredential], { tamper: { nonce: 'another-challenge' } })
    expect(answer.status).toBe(400)
  })

  it('fetches the request object by POST when request_uri_method=post', async () => {
    const before = verifier.requestObjectPosts.length
    const request = await verifier.createRequest({
      dcqlQuery: sdJwtQuery(),
      responseMode: 'direct_post',
      prefix,
      withState,
      requestUriMethod: 'post',
    })
    const wallet = makeWallet()
    const answer = await wallet.answer(request.uri, held)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(verifier.requestObjectPosts.length).toBe(before + 1)
    const posted = verifier.requestObjectPosts[before]
    // oid4-client posts the spec's body (and checks its wallet_nonce came back); openid4vc 0.4.6 posts the metadata's
    // members as top-level fields and no wallet_nonce.
    if (wallet.name === 'digitalbazaar/oid4-client') expect(Object.keys(posted).sort()).toEqual(['wallet_metadata', 'wallet_nonce'])
    else expect(posted).toHaveProperty('vp_formats_supported')
  })

  it.each([
    ['another nonce', { nonce: 'not-the-request-nonce' }],
    ['another audience', { aud: 'decentralized_identifier:did:example:someone-else' }],
    ['a claim the query asks for left out', { omitClaim: 'family_name' }],
  ])('is refused when it sends %s', async (_label, tamper) => {
    const request = await verifier.createRequest({ dcqlQuery: sdJwtQuery(), responseMode: 'direct_post', prefix, withState })
    const answer = await makeWallet().answer(request.uri, held, { tamper })
    expect(answer.status).toBe(400)
    expect(verifier.outcome(request.id).status).toBe('failed')
  })

  it('has nothing to send for another vct, and is refused when it sends a credential of another vct anyway', async () => {
    const query = { credentials: [{ ...sdJwtQuery().credentials[0], meta: { vct_values: ['https://credentials.example/other'] } }] }
    const request = await verifier.createRequest({ dcqlQuery: query, responseMode: 'direct_post', prefix, withState })
    await expect(makeWallet().answer(request.uri, held)).rejects.toThrow(/no credential for the credential query "identity"/)
    const answer = await makeWallet().answer(request.uri, held, { sendUnmatched: true })
    expect(answer.status).toBe(400)
    expect(verifier.outcome(request.id).status).toBe('failed')
  })

  it('is refused when it encrypts the response to another key', async () => {
    const request = await verifier.createRequest({ dcqlQuery: sdJwtQuery(), responseMode: 'direct_post.jwt', prefix, withState })
    const other = await jose.generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true })
    const encryptTo = { ...(await jose.exportJWK(other.publicKey)), kid: String(request.encryptionJwk?.kid), use: 'enc', alg: 'ECDH-ES' }
    const answer = await makeWallet().answer(request.uri, held, { tamper: { encryptTo } })
    expect(answer.status).toBe(400)
  })

  it('discloses a claim not asked for when told to (the verifier sees it)', async () => {
    const request = await verifier.createRequest({ dcqlQuery: sdJwtQuery(['given_name']), responseMode: 'direct_post', prefix, withState })
    const answer = await makeWallet().answer(request.uri, held, { tamper: { extraDisclose: 'birthdate' } })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    const outcome = verifier.outcome(request.id)
    if (outcome.status !== 'fulfilled') throw new Error(JSON.stringify(outcome))
    expect(outcome.credentials.identity[0].claims).toHaveProperty('birthdate', '1815-12-10')
  })

  it('replays a response: refused on the answered request and on another request', async () => {
    const first = await verifier.createRequest({ dcqlQuery: sdJwtQuery(), responseMode: 'direct_post', prefix, withState })
    const answered = await makeWallet().answer(first.uri, held)
    expect(answered.status).toBe(200)
    const onAnswered = await makeWallet().answer(first.uri, held, { tamper: { replay: answered.sent } })
    expect(onAnswered.status).toBe(400)
    const second = await verifier.createRequest({ dcqlQuery: sdJwtQuery(), responseMode: 'direct_post', prefix, withState })
    const replayed = await makeWallet().answer(second.uri, held, { tamper: { replay: answered.sent } })
    expect(replayed.status).toBe(400)
    expect(verifier.outcome(second.id).status).toBe('failed')
    expect(verifier.outcome(first.id).status).toBe('fulfilled')
  })
})

describe('@digitalbazaar/oid4-client 5.10.0 (limits the verifier must live with; see oid4vp-wallets.md)', () => {
  it('refuses a decentralized_identifier: request object (its kid check drops the "d" of "did:")', async () => {
    const request = await verifier.createRequest({
      dcqlQuery: sdJwtQuery(),
      responseMode: 'direct_post',
      prefix: 'decentralized_identifier',
    })
    await expect(oid4ClientWallet(trust).answer(request.uri, held)).rejects.toThrow(
      /does not reference a verification method controlled by the DID/,
    )
  })

  it('refuses an x509_hash: request object (it calls a toBER() pkijs certificates do not have)', async () => {
    const request = await verifier.createRequest({ dcqlQuery: sdJwtQuery(), responseMode: 'direct_post', prefix: 'x509_hash' })
    await expect(oid4ClientWallet(trust).answer(request.uri, held)).rejects.toThrow(/toBER is not a function/)
  })

  it("does not send the request's state back, so a verifier checking state refuses its response", async () => {
    const request = await verifier.createRequest({
      dcqlQuery: sdJwtQuery(),
      responseMode: 'direct_post',
      prefix: 'x509_san_dns',
      withState: true,
    })
    const answer = await oid4ClientWallet(trust).answer(request.uri, held)
    expect(answer.sent).not.toHaveProperty('state')
    expect(answer.status).toBe(400)
  })
})

describe('trust', () => {
  it.each([
    ['oid4-client', () => oid4ClientWallet({ ...trust, trustedCertificates: [ca.cert] })],
    ['openid4vc', () => openid4vcWallet({ ...trust, trustedCertificates: [ca.cert] })],
  ])('%s refuses an x509 request object whose chain does not lead to a trust anchor', async (_name, makeWallet) => {
    const request = await verifier.createRequest({ dcqlQuery: sdJwtQuery(), responseMode: 'direct_post', prefix: 'x509_san_dns' })
    await expect(makeWallet().answer(request.uri, held)).rejects.toThrow()
    expect(verifier.outcome(request.id).status).toBe('pending')
  })

  it('openid4vc refuses a DID-signed request object when the DID resolves to another key', async () => {
    const other = await newKey()
    const wallet = openid4vcWallet({ ...trust, resolveDidKey: async () => other.publicJwk })
    const request = await verifier.createRequest({
      dcqlQuery: sdJwtQuery(),
      responseMode: 'direct_post',
      prefix: 'decentralized_identifier',
    })
    await expect(wallet.answer(request.uri, held)).rejects.toThrow()
  })
})

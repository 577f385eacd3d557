/**
 * Issue 29, items 3–6: status that verifiers outside didvault can check, and that didvault
 * checks from the moment of issue.
 *
 * - Item 3: the JSON-LD list credential, fetched over HTTP from the router, verifies with
 *   `@digitalbazaar/vc-bitstring-status-list`'s `checkStatus` (its `@digitalbazaar/vc`
 *   verification, the transmute EcdsaSecp256k1RecoverySignature2020 suite); a tampered list is
 *   refused. A list an earlier release signed with EcdsaKoblitzSignature2016 is signed again
 *   with the 2020 suite when next served, its version unchanged.
 * - Item 4: a VC-JWT with `credentialStatus`, and its JWT list, name the status context:
 *   digitalbazaar's library recognises the entry of the VC-JWT's `vc` and reads it (revoked only
 *   after `POST /claims/status`); did-jwt-vc and a Veramo 7 agent (its status plugin backed by
 *   that library) verify it, and Veramo refuses it once revoked.
 * - Item 5: with the publisher's interval an hour, a credential verifies (status checked) right
 *   after issue through `POST /claims/verify` and in a presentation, and fails as revoked right
 *   after its revocation.
 * - Item 6: the default JSON-LD request plus `status` is issued in data model 2.0; an explicit
 *   credentials/v1 context with status stays 422.
 */
import { createRequire } from 'node:module'
import { gunzipSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyCredential as digitalbazaarVerify } from '@digitalbazaar/vc'
import { checkStatus, statusTypeMatches } from '@digitalbazaar/vc-bitstring-status-list'
import { CONTEXT as STATUS_CONTEXT } from '@digitalbazaar/vc-bitstring-status-list-context'
import { createAgent, type ICredentialPlugin, type IAgentPlugin, type TAgent } from '@veramo/core'
import { CredentialPlugin } from '@veramo/credential-w3c'
import { CredentialProviderJWT } from '@veramo/credential-jwt'
import { decodeJWT } from 'did-jwt'
import { normalizeCredential, verifyCredential } from 'did-jwt-vc'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import {
  CREDENTIALS_STATUS_V1_URL,
  CREDENTIALS_V1_URL,
  CREDENTIALS_V2_URL,
  getContext,
  signKoblitz2016,
  type JsonLdDocument,
} from '../../src/proofs/jsonld/index.js'
import { expectError, snapshot, startHarness, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'
import { transmuteDocumentLoader } from '../helpers/transmute.js'

const require = createRequire(import.meta.url)
const { EcdsaSecp256k1RecoverySignature2020 } = require('@transmute/lds-ecdsa-secp256k1-recovery2020')

const PUBLIC_URL = 'https://status.example.com/identity'
const RECOVERY_2020 = 'EcdsaSecp256k1RecoverySignature2020'

let h: Harness
let issuer: { did: string; jwt: string }
beforeAll(async () => {
  // The publisher's interval is an hour: nothing in these tests waits for it (publication is asked for where a test needs it).
  h = await startHarness({ service: { publicUrl: PUBLIC_URL, statusPublishIntervalMs: 3_600_000 } })
  issuer = await walletWithToken(h)
})
afterAll(() => h?.close())

/** The list at `url` (under PUBLIC_URL), fetched over HTTP from the router as an outside verifier would. */
async function fetchList(url: string): Promise<{ body: unknown; etag: string | null; contentType: string | null }> {
  if (!url.startsWith(`${PUBLIC_URL}/status/`)) throw new Error(`not one of our lists: ${url}`)
  const res = await fetch(h.url + url.slice(PUBLIC_URL.length))
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`)
  const contentType = res.headers.get('content-type')
  return {
    body: contentType?.startsWith('application/vc+jwt') ? await res.text() : await res.json(),
    etag: res.headers.get('etag'),
    contentType,
  }
}

/** jsonld-signatures document loader: our lists over HTTP (through `edit`), DIDs from the resolver, contexts from the bundle. */
const loaderFor =
  (edit: (list: any) => any = (list) => list) =>
  async (url: string) => {
    if (url.startsWith(`${PUBLIC_URL}/status/`)) return { contextUrl: null, documentUrl: url, document: edit((await fetchList(url)).body) }
    return transmuteDocumentLoader(h.service.resolver, url)
  }

/** digitalbazaar's status check of a JSON-LD credential, verifying its list with the transmute 2020 suite. */
const outsideCheck = (credential: JsonLdDocument, edit?: (list: any) => any) =>
  checkStatus({ credential, documentLoader: loaderFor(edit), suite: new EcdsaSecp256k1RecoverySignature2020() } as never)

const sign = (json: Record<string, unknown>) =>
  h.request('POST', '/claims/sign', { json: { iss: issuer.did, ...json }, didAuth: issuer.jwt })
const revoke = (id: string) =>
  h.request('POST', '/claims/status', { json: { items: [{ id, purpose: 'revocation', value: true }] }, didAuth: issuer.jwt })
const verifyHere = async (claim: { jwt: string } | { jsonld: JsonLdDocument }) =>
  (await h.request('POST', '/claims/verify', { json: { claims: [claim] }, didAuth: issuer.jwt })).body.vcs[0]
const statusChecks = (verification: { checks: Array<{ check: string }> }) => verification.checks.filter((c) => c.check === 'status')

describe('item 3: JSON-LD lists are signed with EcdsaSecp256k1RecoverySignature2020', () => {
  it('digitalbazaar’s checkStatus verifies the list fetched over HTTP (transmute suite): not revoked, then revoked; a tampered list is refused', async () => {
    const id = 'urn:uuid:29000000-0000-4000-8000-000000000003'
    const signed = await sign({ context: CREDENTIALS_V2_URL, status: { purposes: ['revocation'] }, claims: [{ id, payload: { n: 3 } }] })
    expect(signed.status).toBe(200)
    const vc = signed.body.vcs[0].jsonld as JsonLdDocument
    const served = await fetchList((vc.credentialStatus as any).statusListCredential)
    expect(served.body).toMatchObject({ proof: { type: RECOVERY_2020, proofPurpose: 'assertionMethod' } })
    expect(await outsideCheck(vc)).toMatchObject({ verified: true, results: [{ verified: true, status: false }] })

    expect((await revoke(id)).body.errors).toEqual([])
    await h.service.publishStatusLists()
    expect(await outsideCheck(vc)).toMatchObject({ verified: true, results: [{ verified: true, status: true }] })

    // The list with the entry's bit cleared (a revocation hidden), or another issuer named: its signature no longer verifies.
    const cleared = (list: any) => ({ ...list, credentialSubject: { ...list.credentialSubject, encodedList: emptyListLike(list) } })
    const hidden = await outsideCheck(vc, cleared)
    expect(hidden.verified).toBe(false)
    expect(String(hidden.error?.message)).toMatch(/"BitstringStatusListCredential" not verified/)
    const reissued = await outsideCheck(vc, (list) => ({ ...list, issuer: 'did:ethr:dev:0x0000000000000000000000000000000000000001' }))
    expect(reissued.verified).toBe(false)
  })

  it('a list an earlier release signed with EcdsaKoblitzSignature2016 is signed again with the 2020 suite when next served, its version unchanged', async () => {
    // A genuine Koblitz list of the issuer: signed by a delegate key its DID document lists (the issuer's own key is sealed).
    const delegate = new LocalSigner(generatePrivateKey())
    const created = await h.request('POST', '/wallet', {
      json: { walletConfig: { txsInput: [{ delegate: { address: delegate.address, validity: 3_600_000 } }] } },
    })
    expect(created.body.wallet.registry.errors).toEqual([])
    const owner = { did: created.body.wallet.did as string, jwt: await tokenFor(h, created.body.wallet.did) }
    const id = 'urn:uuid:29000000-0000-4000-8000-000000000033'
    const issued = await h.request('POST', '/claims/sign', {
      json: { iss: owner.did, context: CREDENTIALS_V2_URL, status: { purposes: ['revocation'] }, claims: [{ id, payload: { n: 33 } }] },
      didAuth: owner.jwt,
    })
    expect(issued.status).toBe(200)
    const vc = issued.body.vcs[0].jsonld as JsonLdDocument
    const url = (vc.credentialStatus as any).statusListCredential as string
    const listId = url.slice(url.lastIndexOf('/') + 1)
    const first = await fetchList(url)
    const lists = h.storage.collection('status_lists')
    const stored = (await lists.get(listId))!
    // As an earlier release stored it: the same list under credentials/v2 alone, with a Koblitz proof (signed within the interval).
    const { proof: _proof, ...unsigned } = first.body as JsonLdDocument
    const koblitz = await signKoblitz2016({ ...unsigned, '@context': [CREDENTIALS_V2_URL] }, delegate, {
      creator: `${owner.did}#delegate-1`,
    })
    expect(koblitz.proof).toMatchObject({ type: 'EcdsaKoblitzSignature2016' })
    expect((await verifyHere({ jsonld: koblitz })).verified).toBe(true)
    await lists.update(listId, { credential: koblitz, etag: '"earlier-release"', signedAt: stored.signedAt })

    const next = await fetchList(url)
    expect(next.body).toMatchObject({ proof: { type: RECOVERY_2020 }, credentialSubject: (first.body as any).credentialSubject })
    expect(next.etag).not.toBe('"earlier-release"')
    const resigned = (await lists.get(listId))!
    expect(resigned).toMatchObject({ version: stored.version, signedVersion: stored.signedVersion })
    expect(await outsideCheck(vc)).toMatchObject({ verified: true, results: [{ verified: true, status: false }] })
    // Signed once: the next GET serves the stored list as it is.
    expect((await fetchList(url)).etag).toBe(next.etag)
    expect((await lists.get(listId))!.credential).toEqual(resigned.credential)
  })
})

describe('item 4: VC-JWTs with status, and JWT lists, name the status context', () => {
  /** A digitalbazaar-based verifier of VC-JWTs: the list JWT verified by did-jwt-vc, then read as a credential. */
  const jwtListLoader = async (url: string) => {
    const { body } = await fetchList(url)
    const list = await verifyCredential(body as string, h.service.resolver)
    return { contextUrl: null, documentUrl: url, document: list.verifiableCredential }
  }
  const checkJwt = (jwt: string) =>
    checkStatus({
      credential: normalizeCredential(jwt) as object,
      documentLoader: jwtListLoader,
      verifyBitstringStatusListCredential: false,
    })

  /** A Veramo 7 agent verifying VC-JWTs: DIDs from the service's resolver, status from digitalbazaar's library. */
  function veramo(): TAgent<ICredentialPlugin> {
    const resolver: IAgentPlugin = { methods: { resolveDid: ({ didUrl }: { didUrl: string }) => h.service.resolver.resolve(didUrl) } }
    const status: IAgentPlugin = {
      methods: {
        checkCredentialStatus: async ({ credential }: { credential: object }) => {
          const result = await checkStatus({ credential, documentLoader: jwtListLoader, verifyBitstringStatusListCredential: false })
          return { verified: result.verified, revoked: result.results?.some((r: { status: boolean }) => r.status) ?? false }
        },
      },
    }
    return createAgent<ICredentialPlugin>({ plugins: [resolver, status, new CredentialPlugin([new CredentialProviderJWT()])] })
  }

  it('digitalbazaar recognises the entry of the VC-JWT’s vc and reads it: not revoked, then revoked; did-jwt-vc and Veramo verify it, Veramo refuses it revoked', async () => {
    const id = 'urn:uuid:29000000-0000-4000-8000-000000000004'
    const signed = await sign({ format: 'JWT', status: { purposes: ['revocation'] }, claims: [{ id, payload: { n: 4 } }] })
    expect(signed.status).toBe(200)
    const jwt = signed.body.vcs[0].jwt as string
    const { vc } = decodeJWT(jwt).payload as { vc: Record<string, any> }
    expect(vc['@context']).toEqual([CREDENTIALS_V1_URL, CREDENTIALS_STATUS_V1_URL])
    expect(statusTypeMatches({ credential: vc })).toBe(true)
    const list = await fetchList(vc.credentialStatus.statusListCredential)
    expect(list.contentType).toMatch(/^application\/vc\+jwt/)
    expect((decodeJWT(list.body as string).payload as any).vc['@context']).toEqual([CREDENTIALS_V1_URL, CREDENTIALS_STATUS_V1_URL])

    await expect(verifyCredential(jwt, h.service.resolver)).resolves.toMatchObject({ verified: true, issuer: issuer.did })
    const agent = veramo()
    expect(await checkJwt(jwt)).toMatchObject({ verified: true, results: [{ verified: true, status: false }] })
    expect(await agent.verifyCredential({ credential: normalizeCredential(jwt) })).toMatchObject({ verified: true })

    expect((await revoke(id)).body.errors).toEqual([])
    await h.service.publishStatusLists()
    expect(await checkJwt(jwt)).toMatchObject({ verified: true, results: [{ verified: true, status: true }] })
    expect(await agent.verifyCredential({ credential: normalizeCredential(jwt) })).toMatchObject({
      verified: false,
      error: { errorCode: 'revoked' },
    })
    // The signature is unchanged: did-jwt-vc, which reads no status, still verifies it.
    await expect(verifyCredential(jwt, h.service.resolver)).resolves.toMatchObject({ verified: true })
  })

  it('the status context is bundled: the one W3C publishes, from digitalbazaar’s context package', () => {
    expect(getContext(CREDENTIALS_STATUS_V1_URL)).toEqual(STATUS_CONTEXT)
  })
})

describe('item 5: the service’s own lists are read from storage at once', () => {
  it('a credential verifies right after issue (JWT and JSON-LD, alone and presented) and fails as revoked right after revocation', async () => {
    const ids = { jwt: 'urn:uuid:29000000-0000-4000-8000-000000000051', jsonld: 'urn:uuid:29000000-0000-4000-8000-000000000052' }
    const jwt = (await sign({ format: 'JWT', status: { purposes: ['revocation'] }, claims: [{ id: ids.jwt, payload: { n: 5 } }] })).body
      .vcs[0].jwt as string
    const jsonld = (
      await sign({
        context: CREDENTIALS_V2_URL,
        status: { purposes: ['revocation', 'suspension'] },
        claims: [{ id: ids.jsonld, payload: { n: 5 } }],
      })
    ).body.vcs[0].jsonld as JsonLdDocument
    // A VP-JWT of the VC-JWT (data model 1.1), a JSON-LD presentation (with the verifier's challenge) of the 2.0 credential.
    const present = async (credential: { jwt: string } | { jsonld: JsonLdDocument }) => {
      const binding = 'jwt' in credential ? { format: 'JWT' } : { format: 'JSON-LD', challenge: 'c-29-5' }
      const vp = await h.request('POST', '/presentations/sign', {
        json: { holder: issuer.did, ...binding, vcs: [credential] },
        didAuth: issuer.jwt,
      })
      expect(vp.status, JSON.stringify(vp.body)).toBe(200)
      const { format: _format, ...expected } = binding
      return (
        await h.request('POST', '/presentations/verify', { json: { presentation: vp.body.presentation, ...expected }, didAuth: issuer.jwt })
      ).body
    }

    for (const claim of [{ jwt }, { jsonld }]) {
      const verified = await verifyHere(claim)
      expect(verified.verified).toBe(true)
      expect(statusChecks(verified).length).toBeGreaterThan(0)
      for (const check of statusChecks(verified)) expect(check).toMatchObject({ verified: true, value: false })
      expect(await present(claim)).toMatchObject({ verified: true, vcs: [{ verified: true }] })
    }

    for (const id of Object.values(ids)) expect((await revoke(id)).body.errors).toEqual([])
    for (const claim of [{ jwt }, { jsonld }]) {
      const verified = await verifyHere(claim)
      expect(verified.verified).toBe(false)
      expect(statusChecks(verified)).toContainEqual(expect.objectContaining({ purpose: 'revocation', verified: false, reason: 'revoked' }))
      expect(await present(claim)).toMatchObject({ verified: false, vcs: [{ verified: false }] })
    }
  })
})

describe('item 6: JSON-LD with status and no context is data model 2.0', () => {
  it('the default request plus status is issued in data model 2.0 and verifies, here and in digitalbazaar’s status check; explicit v1 stays 422', async () => {
    const id = 'urn:uuid:29000000-0000-4000-8000-000000000006'
    const signed = await sign({
      type: 'MembershipCredential',
      status: { purposes: ['revocation'] },
      claims: [{ id, payload: { member: true } }],
    })
    expect(signed.status).toBe(200)
    const vc = signed.body.vcs[0].jsonld as JsonLdDocument
    expect((vc['@context'] as unknown[])[0]).toBe(CREDENTIALS_V2_URL)
    expect(vc).toHaveProperty('validFrom')
    expect(vc).not.toHaveProperty('issuanceDate')
    expect(statusTypeMatches({ credential: vc })).toBe(true)
    expect(await verifyHere({ jsonld: vc })).toMatchObject({ verified: true })
    expect(await outsideCheck(vc)).toMatchObject({ verified: true, results: [{ verified: true, status: false }] })

    // Signed with the 2020 suite, which @digitalbazaar/vc can verify (the transmute suite): it verifies, its status checked.
    const recovery = await sign({
      type: 'MembershipCredential',
      proofType: RECOVERY_2020,
      status: { purposes: ['revocation'] },
      claims: [{ id: `${id}-2020`, payload: { member: true } }],
    })
    expect(recovery.status).toBe(200)
    const vc2020 = recovery.body.vcs[0].jsonld as JsonLdDocument
    expect((vc2020['@context'] as unknown[])[0]).toBe(CREDENTIALS_V2_URL)
    const suite = new EcdsaSecp256k1RecoverySignature2020()
    const outside = await digitalbazaarVerify({
      credential: vc2020,
      suite,
      documentLoader: loaderFor(),
      checkStatus: (options) => checkStatus({ ...options, suite } as never),
    })
    expect(outside.error).toBeUndefined()
    expect(outside).toMatchObject({ verified: true, statusResult: { verified: true, results: [{ status: false }] } })

    const before = await snapshot(h)
    const v1 = await sign({ context: CREDENTIALS_V1_URL, status: { purposes: ['revocation'] }, claims: [{ payload: { member: true } }] })
    expectError(v1, 422, 'VALIDATION_ERROR')
    expect(v1.body.errorMessage).toContain(CREDENTIALS_V2_URL)
    expect(await snapshot(h)).toEqual(before)
  })
})

/** `encodedList` of a list of the same length with no bit set (multibase base64url of its GZIP). */
function emptyListLike(list: any): string {
  const bits = gunzipSync(Buffer.from(String(list.credentialSubject.encodedList).slice(1), 'base64url'))
  return `u${gzipSync(Buffer.alloc(bits.length)).toString('base64url')}`
}

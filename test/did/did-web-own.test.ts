/**
 * The service's own did:web documents over HTTP: `/dids/<walletId>/did.json` and `/1.0/identifiers/<DID>` answer the
 * same bytes, from storage only; `walletConfig.txsInput` (service, delegate given or generated, newOwner) makes
 * versions, resolvable by `versionId` / `versionTime`; a deleted wallet's DID is deactivated (410 at both routes);
 * bad input is 422 with nothing written, and unknown or malformed ids are resolution errors, never a 500.
 * Wallets are made through the API; control is vault control (DID-auth tokens of did:web wallets are another part's).
 */
import { p256 } from '@noble/curves/nist.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PublicJwk } from '../../src/keys/key-types.js'
import { expectError, snapshot, startHarness, tokenFor, type Harness } from '../helpers/harness.js'
import { multikeyMethod } from '../helpers/multikey-of-jwk.js'

const PUBLIC_URL = 'https://issuer.example:8443/identity'
/** A response's JSON body, untyped (tests read what they assert). */
const body = async (res: Response | Promise<Response>): Promise<any> => (await res).json()
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')

/** A P-256 public JWK. */
function p256Jwk(): { kty: string; crv: string; x: string; y: string } {
  const point = p256.getPublicKey(p256.utils.randomSecretKey(), false)
  return { kty: 'EC', crv: 'P-256', x: b64(point.subarray(1, 33)), y: b64(point.subarray(33)) }
}

for (const storage of ['memory', 'sqlite'] as const) {
  describe(`the service's own did:web documents (${storage})`, () => {
    let h: Harness
    beforeAll(async () => {
      h = await startHarness({ storage, service: { publicUrl: PUBLIC_URL } })
    })
    afterAll(() => h.close())

    /** A did:web wallet of a BIP44 vault; `jwt` proves control of its vault (a token of the vault's did:ethr root wallet). */
    async function didWebWallet(keyType = 'P-256'): Promise<{ id: string; did: string; jwt: string; publicKeyJwk: PublicJwk }> {
      const vault = (await h.request('POST', '/vaults', { json: { name: `web-${Math.random()}`, hierarchy: 'BIP44' } })).body.vault
      const jwt = await tokenFor(h, vault.wallets[0].did)
      const walletConfig = { didMethod: 'web', keyType }
      const created = await h.request('POST', `/vaults/${vault.id}/wallet`, { json: { walletConfig }, didAuth: jwt })
      expect(created.status, JSON.stringify(created.body)).toBe(200)
      const { _id: id, did, publicKeyJwk } = created.body.wallet
      return { id, did, jwt, publicKeyJwk }
    }

    const identifiers = (did: string, query = '', accept = 'application/did+ld+json') =>
      fetch(`${h.url}/1.0/identifiers/${encodeURIComponent(did)}${query}`, { headers: { accept } })
    const didJson = (id: string, init: RequestInit = {}) => fetch(`${h.url}/dids/${id}/did.json`, init)
    const configure = (did: string, walletConfig: unknown, didAuth: string) =>
      h.request('POST', '/wallet/configure', { json: { wallet: { did }, walletConfig }, didAuth })

    it('did.json is the document /1.0/identifiers answers under application/did+ld+json, byte for byte', async () => {
      const w = await didWebWallet()
      expect(w.did).toBe(`did:web:issuer.example%3A8443:identity:dids:${w.id}`)
      const served = await didJson(w.id)
      const resolved = await identifiers(w.did)
      expect(served.status).toBe(200)
      expect(served.headers.get('content-type')).toMatch(/^application\/did\+ld\+json/)
      const bytes = await served.text()
      expect(bytes).toBe(await resolved.text())
      const document = JSON.parse(bytes)
      expect(document).toEqual({
        '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
        id: w.did,
        verificationMethod: [await multikeyMethod(`${w.did}#key-0`, w.did, w.publicKeyJwk)],
        authentication: [`${w.did}#key-0`],
        assertionMethod: [`${w.did}#key-0`],
      })
    })

    it('a secp256k1 key, which the Multikey format does not define, stays JsonWebKey2020 (publicKeyJwk) under the JWS 2020 context', async () => {
      const w = await didWebWallet('secp256k1')
      expect(w.publicKeyJwk).toMatchObject({ kty: 'EC', crv: 'secp256k1' })
      expect(await body(didJson(w.id))).toEqual({
        '@context': [
          'https://www.w3.org/ns/did/v1',
          'https://w3id.org/security/multikey/v1',
          'https://w3id.org/security/suites/jws-2020/v1',
        ],
        id: w.did,
        verificationMethod: [{ id: `${w.did}#key-0`, type: 'JsonWebKey2020', controller: w.did, publicKeyJwk: w.publicKeyJwk }],
        authentication: [`${w.did}#key-0`],
        assertionMethod: [`${w.did}#key-0`],
      })
    })

    it('txsInput: a service, a given delegate and a generated one, then newOwner: each a version, resolvable later', async () => {
      const w = await didWebWallet('Ed25519')
      const given = p256Jwk()
      const res = await configure(
        w.did,
        {
          txsInput: [
            { service: { name: 'LinkedDomains', value: 'https://issuer.example/', validity: 86_400_000 } },
            { delegate: { publicKeyJwk: given, validity: 3_600_000 } },
            { delegate: { validity: 3_600_000 } },
          ],
        },
        w.jwt,
      )
      expect(res.status).toBe(200)
      const report = res.body.wallet.registry
      expect(report.apiUrl).toBe(`https://issuer.example:8443/identity/dids/${w.id}/did.json`)
      expect(report.errors).toEqual([])
      expect(report.transactions.map((t: any) => [t.index, t.op, t.versionId])).toEqual([
        [0, 'addService', '1'],
        [1, 'addDelegate', '2'],
        [2, 'addDelegate', '3'],
      ])
      const generated = report.transactions[2].delegate
      expect(Object.keys(generated).sort()).toEqual(['delegateType', 'id', 'publicKeyJwk', 'validTo'])
      expect(generated.publicKeyJwk.crv).toBe('Ed25519') // the wallet's key type
      expect(JSON.stringify(res.body)).not.toMatch(/"d":/)

      const document = await body(didJson(w.id))
      expect(document.service).toEqual([{ id: `${w.did}#service-1`, type: 'LinkedDomains', serviceEndpoint: 'https://issuer.example/' }])
      expect(document.verificationMethod.map((m: any) => m.id)).toEqual([`${w.did}#key-0`, `${w.did}#key-2`, `${w.did}#key-3`])
      expect(document.verificationMethod[0]).toEqual(await multikeyMethod(`${w.did}#key-0`, w.did, w.publicKeyJwk))
      expect(document.verificationMethod[1]).toEqual(await multikeyMethod(`${w.did}#key-2`, w.did, given))
      expect(document.verificationMethod[2]).toEqual(await multikeyMethod(`${w.did}#key-3`, w.did, generated.publicKeyJwk))
      expect(document.authentication).toEqual([`${w.did}#key-0`])
      expect(document.assertionMethod).toEqual([`${w.did}#key-0`, `${w.did}#key-2`, `${w.did}#key-3`])

      const owner = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'
      const handed = await configure(w.did, { txsInput: { newOwner: owner } }, w.jwt)
      expect(handed.status).toBe(200)
      expect(handed.body.wallet.registry.transactions).toEqual([{ index: 0, op: 'changeController', versionId: '4' }])
      const after = await body(didJson(w.id))
      expect(after.controller).toBe(owner)
      expect(after.authentication).toBeUndefined()
      expect(after.verificationMethod.map((m: any) => m.id)).toEqual([`${w.did}#key-2`, `${w.did}#key-3`])
      expect(after.assertionMethod).toEqual([`${w.did}#key-2`, `${w.did}#key-3`])

      // The document is no longer the service's to change: its controller is a DID no wallet of the tenant holds.
      const before = await snapshot(h)
      const again = await configure(w.did, { txsInput: { service: { name: 'X', value: 'https://x.example/', validity: 1_000 } } }, w.jwt)
      expectError(again, 403, 'FORBIDDEN')
      expect(again.body.errorMessage).toContain(owner)
      expect(await snapshot(h)).toEqual(before)

      const v1 = await body(identifiers(w.did, '?versionId=1', 'application/did-resolution'))
      expect(v1.didDocument.service).toHaveLength(1)
      expect(v1.didDocument.verificationMethod).toHaveLength(1)
      expect(v1.didDocumentMetadata).toMatchObject({ versionId: '1', nextVersionId: '2' })
      const v0 = await body(identifiers(w.did, '?versionId=0', 'application/did-resolution'))
      expect(v0.didDocument.service).toBeUndefined()
      expect(v0.didDocumentMetadata.versionId).toBe('0')
      const current = await body(identifiers(w.did, '', 'application/did-resolution'))
      expect(current.didDocumentMetadata).toMatchObject({ versionId: '4' })
      expect(current.didDocumentMetadata.nextVersionId).toBeUndefined()
      const past = await identifiers(w.did, '?versionTime=2001-01-01T00:00:00Z', 'application/did-resolution')
      expect(past.status).toBe(404)
      expect((await identifiers(w.did, '?versionId=5', 'application/did-resolution')).status).toBe(404)
      const now = await body(identifiers(w.did, `?versionTime=${new Date(Date.now() + 5_000).toISOString().slice(0, 19)}Z`))
      expect(now.controller).toBe(owner)
    })

    it('Generate Identity Wallet applies txsInput to a did:web wallet at creation; a bad one is 422 with nothing written', async () => {
      const txsInput = [
        { service: { name: 'Inbox', value: 'https://inbox.example/', validity: 60_000 } },
        { delegate: { validity: 60_000 } },
      ]
      const res = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'web', keyType: 'secp256k1', txsInput } } })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const { did, _id: id, registry } = res.body.wallet
      expect(did).toBe(`did:web:issuer.example%3A8443:identity:dids:${id}`)
      expect(registry.transactions.map((t: any) => t.op)).toEqual(['addService', 'addDelegate'])
      const document = await body(didJson(id))
      expect(document.service).toEqual([{ id: `${did}#service-1`, type: 'Inbox', serviceEndpoint: 'https://inbox.example/' }])
      expect(document.assertionMethod).toEqual([`${did}#key-0`, `${did}#key-2`])
      expect(document.verificationMethod[1].publicKeyJwk.crv).toBe('secp256k1')

      const before = await snapshot(h)
      const bad = [{ delegate: { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', validity: 1_000 } }]
      const refused = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'web', txsInput: bad } } })
      expectError(refused, 422, 'VALIDATION_ERROR')
      expect(refused.body.errorMessage).toMatch(/txsInput\.0\.delegate\.address/)
      expect(await snapshot(h)).toEqual(before)
    })

    it('bad txsInput on a did:web wallet is 422 and writes nothing', async () => {
      const w = await didWebWallet()
      const before = await snapshot(h)
      const { d: _d, ...offCurve } = { ...p256Jwk(), d: 'x', y: b64(new Uint8Array(32).fill(7)) }
      const cases = [
        [{ delegate: { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', validity: 1_000 } }, /delegate\.address/],
        [{ delegate: { publicKeyJwk: offCurve, validity: 1_000 } }, /not a valid public key/],
        [{ delegate: { publicKeyJwk: { ...p256Jwk(), d: 'c2VjcmV0' }, validity: 1_000 } }, /d/],
        [
          { delegate: { publicKeyJwk: { kty: 'EC', crv: 'P-384', x: 'AA', y: 'AA' }, validity: 1_000 } },
          /not a secp256k1, P-256 or Ed25519/,
        ],
      ] as const
      for (const [tx, message] of cases) {
        const res = await configure(
          w.did,
          { txsInput: [{ service: { name: 'Ok', value: 'https://ok.example/', validity: 1_000 } }, tx] },
          w.jwt,
        )
        expectError(res, 422, 'VALIDATION_ERROR')
        expect(res.body.errorMessage).toMatch(message)
        expect(res.body.errorMessage).not.toMatch(/c2VjcmV0/)
      }
      expect(await snapshot(h)).toEqual(before)
    })

    it('a did:ethr wallet refuses a publicKeyJwk delegate (422, nothing written)', async () => {
      const created = await h.request('POST', '/wallet', { json: {} })
      const jwt = await tokenFor(h, created.body.wallet.did)
      const before = await snapshot(h)
      const res = await configure(created.body.wallet.did, { txsInput: { delegate: { publicKeyJwk: p256Jwk(), validity: 1_000 } } }, jwt)
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage).toMatch(/did:ethr delegate is an address/)
      expect(await snapshot(h)).toEqual(before)
    })

    it('a deleted wallet’s DID is deactivated: 410 at both routes, the same bytes; its past versions still resolve', async () => {
      const w = await didWebWallet()
      const del = await h.request('DELETE', '/wallet', { json: { ids: [w.did] }, didAuth: w.jwt })
      expect(del.status).toBe(200)
      expect(del.body.errors).toEqual([])
      const served = await didJson(w.id)
      const resolved = await identifiers(w.did)
      expect(served.status).toBe(410)
      expect(resolved.status).toBe(410)
      const bytes = await served.text()
      expect(bytes).toBe(await resolved.text())
      expect(JSON.parse(bytes)).toMatchObject({ didDocument: { id: w.did }, didDocumentMetadata: { deactivated: true, versionId: '1' } })
      const v0 = await identifiers(w.did, '?versionId=0', 'application/did-resolution')
      expect(v0.status).toBe(200)
      expect((await body(v0)).didDocument.verificationMethod).toHaveLength(1)
    })

    it('concurrent changes of one document each get their own version (none lost, none shared)', async () => {
      const w = await didWebWallet('secp256k1')
      const service = (n: number) => ({ service: { name: `S${n}`, value: `https://s${n}.example/`, validity: 600_000 } })
      const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => configure(w.did, { txsInput: [service(n)] }, w.jwt)))
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200])
      const versions = answers.map((a) => a.body.wallet.registry.transactions[0].versionId).sort()
      expect(versions).toEqual(['1', '2', '3', '4', '5'])
      expect((await body(didJson(w.id))).service).toHaveLength(5)
    })

    it('deleting a vault deactivates its did:web wallets’ DIDs (410)', async () => {
      const w = await didWebWallet('Ed25519')
      const vaultId = (await h.request('GET', `/wallets?did=${encodeURIComponent(w.did)}`)).body.wallets[0].vaultId
      const del = await h.request('DELETE', '/vaults', { json: { _id: vaultId }, didAuth: w.jwt })
      expect(del.status, JSON.stringify(del.body)).toBe(200)
      expect((await didJson(w.id)).status).toBe(410)
      expect((await identifiers(w.did)).status).toBe(410)
    })

    it('unknown, malformed and oversized ids are resolution errors, never a 500; a query is refused', async () => {
      expect((await didJson('0d4e4c4b-0000-4000-8000-000000000000')).status).toBe(404)
      const oversized = await didJson('a'.repeat(101))
      expect(oversized.status).toBe(400)
      expect((await body(oversized)).didResolutionMetadata.error).toBe('invalidDid')
      expect((await didJson('not%20an%20id')).status).toBe(400)
      expect((await didJson('%E0%A4%A')).status).toBe(400)
      expect((await didJson('x', { headers: { accept: 'text/html' } })).status).toBe(406)
      expect((await fetch(`${h.url}/dids/x/did.json?versionId=1`)).status).toBe(400)
      // Own-path shape, another host: not the service's, and not fetched (no origin is allowed).
      const other = await body(identifiers('did:web:elsewhere.example:identity:dids:x', '', 'application/did-resolution'))
      expect(other.didResolutionMetadata).toMatchObject({ error: 'notFound' })
      expect(other.didResolutionMetadata.message).toMatch(/didWebOrigins/)
    })
  })
}

describe('without publicUrl', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness()
  })
  afterAll(() => h.close())

  it('did.json is notFound (no did:web DIDs)', async () => {
    const res = await fetch(`${h.url}/dids/abc/did.json`)
    expect(res.status).toBe(404)
    expect((await body(res)).didResolutionMetadata.message).toMatch(/publicUrl/)
  })
})

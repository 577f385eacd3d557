/**
 * Status lists against independent implementations: digitalbazaar's `@digitalbazaar/vc-bitstring-status-list`
 * decodes the lists we publish and reads exactly the entries we flipped (its `checkStatus` on our
 * JSON-LD credentials, loading the list from our route); did-jwt-vc verifies our JWT lists. And
 * allocation under concurrency: 200 at once, and two service instances on one SQLite file, unique;
 * a full list rolls over to a new one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkStatus, decodeList, statusTypeMatches } from '@digitalbazaar/vc-bitstring-status-list'
import { decodeJWT } from 'did-jwt'
import { verifyCredential } from 'did-jwt-vc'
import { CREDENTIALS_V2_URL, SECP256K1_RECOVERY_2020_V2_URL } from '../../src/proofs/jsonld/index.js'
import { IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { startHarness, TENANT_A, walletWithToken, type Harness } from '../helpers/harness.js'

const PUBLIC_URL = 'https://status.example.com/identity'

describe('interop with digitalbazaar and did-jwt-vc', () => {
  let h: Harness
  let issuer: { did: string; jwt: string }
  beforeAll(async () => {
    h = await startHarness({ storage: 'sqlite', service: { publicUrl: PUBLIC_URL, statusPublishIntervalMs: 0 } })
    issuer = await walletWithToken(h)
  })
  afterAll(() => h?.close())

  /** Loads our lists from our route (the harness serves PUBLIC_URL's paths); nothing else. */
  const documentLoader = async (url: string) => {
    if (!url.startsWith(`${PUBLIC_URL}/status/`)) throw new Error(`not ours: ${url}`)
    const res = await h.request('GET', url.slice(PUBLIC_URL.length), { token: null })
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`)
    return { contextUrl: null, documentUrl: url, document: res.body }
  }

  it('our JSON-LD lists decode with digitalbazaar’s decoder: the flipped entries, and only they, read as set', async () => {
    const claims = Array.from({ length: 6 }, (_, i) => ({ id: `urn:uuid:00000000-0000-4000-8000-00000000000${i}`, payload: { n: i } }))
    const res = await h.request('POST', '/claims/sign', {
      json: { iss: issuer.did, context: CREDENTIALS_V2_URL, status: { purposes: ['revocation', 'suspension'] }, claims },
      didAuth: issuer.jwt,
    })
    expect(res.status).toBe(200)
    const vcs = res.body.vcs.map((v: any) => v.jsonld)
    for (const credential of vcs) expect(statusTypeMatches({ credential })).toBe(true)
    const flipped = [0, 3, 5]
    const changed = await h.request('POST', '/claims/status', {
      json: { items: flipped.map((i) => ({ id: claims[i].id, purpose: 'revocation', value: true })) },
      didAuth: issuer.jwt,
    })
    expect(changed.body.errors).toEqual([])
    await h.service.publishStatusLists()
    const revocationUrl = vcs[0].credentialStatus[0].statusListCredential
    const served = await documentLoader(revocationUrl)
    expect(served.document).toMatchObject({
      '@context': [CREDENTIALS_V2_URL, SECP256K1_RECOVERY_2020_V2_URL],
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      proof: { type: 'EcdsaSecp256k1RecoverySignature2020' },
      issuer: issuer.did,
      credentialSubject: { id: `${revocationUrl}#list`, type: 'BitstringStatusList', statusPurpose: 'revocation' },
    })
    const list = await decodeList({ encodedList: served.document.credentialSubject.encodedList })
    expect(list.length).toBeGreaterThanOrEqual(131_072)
    const indexes = vcs.map((vc: any) => Number(vc.credentialStatus[0].statusListIndex))
    let set = 0
    for (let i = 0; i < list.length; i++) if (list.getStatus(i)) set++
    expect(set).toBe(flipped.length)
    for (const [i, index] of indexes.entries()) expect(list.getStatus(index)).toBe(flipped.includes(i))
    for (const [i, credential] of vcs.entries()) {
      for (const statusPurpose of ['revocation', 'suspension']) {
        const result = await checkStatus({ credential, documentLoader, statusPurpose, verifyBitstringStatusListCredential: false })
        expect(result.verified).toBe(true)
        const statuses = [result.results ?? [result]].flat()
        const ofPurpose = statuses.find((r: any) => r.credentialStatus.statusPurpose === statusPurpose)
        expect(ofPurpose.status).toBe(statusPurpose === 'revocation' && flipped.includes(i))
      }
    }
  })

  it('our JWT lists verify with did-jwt-vc, and the entries we flip are set in them', async () => {
    const res = await h.request('POST', '/claims/sign', {
      json: {
        iss: issuer.did,
        format: 'JWT',
        status: { purposes: ['suspension'] },
        claims: [{ payload: { a: 1 } }, { payload: { a: 2 } }],
      },
      didAuth: issuer.jwt,
    })
    const [a, b] = res.body.vcs.map((v: any) => (decodeJWT(v.jwt).payload as any).vc.credentialStatus)
    await h.request('POST', '/claims/status', {
      json: {
        items: [{ statusListCredential: a.statusListCredential, statusListIndex: a.statusListIndex, purpose: 'suspension', value: true }],
      },
      didAuth: issuer.jwt,
    })
    const served = await h.request('GET', a.statusListCredential.slice(PUBLIC_URL.length), { token: null })
    expect(served.headers.get('content-type')).toMatch(/^application\/vc\+jwt/)
    const verified = await verifyCredential(served.body, h.service.resolver)
    expect(verified.verified).toBe(true)
    expect(verified.issuer).toBe(issuer.did)
    expect(verified.verifiableCredential.type).toContain('BitstringStatusListCredential')
    const list = await decodeList({ encodedList: (verified.verifiableCredential.credentialSubject as any).encodedList })
    expect(list.getStatus(Number(a.statusListIndex))).toBe(true)
    expect(list.getStatus(Number(b.statusListIndex))).toBe(false)
  })
})

describe('issue, change, publish, verify: /claims/verify reads the lists this service publishes', () => {
  it('a credential passes its status check, then fails it as revoked once its revocation is published', async () => {
    const h = await startHarness({ storage: 'memory', service: { publicUrl: PUBLIC_URL } })
    try {
      const issuer = await walletWithToken(h)
      const signed = await h.request('POST', '/claims/sign', {
        json: { iss: issuer.did, format: 'JWT', status: { purposes: ['revocation'] }, claims: [{ id: 'urn:uuid:e2e', payload: { a: 1 } }] },
        didAuth: issuer.jwt,
      })
      const jwt = signed.body.vcs[0].jwt as string
      await h.service.publishStatusLists()
      const statusCheck = async () => {
        const res = await h.request('POST', '/claims/verify', { json: { claims: [{ jwt }] }, didAuth: issuer.jwt })
        return { verified: res.body.vcs[0].verified, checks: res.body.vcs[0].checks.filter((c: any) => c.check === 'status') }
      }
      expect(await statusCheck()).toMatchObject({ verified: true, checks: [{ verified: true }] })
      await h.request('POST', '/claims/status', {
        json: { items: [{ id: 'urn:uuid:e2e', purpose: 'revocation', value: true }] },
        didAuth: issuer.jwt,
      })
      await h.service.publishStatusLists()
      expect(await statusCheck()).toMatchObject({ verified: false, checks: [{ verified: false, reason: 'revoked' }] })
    } finally {
      await h.close()
    }
  })
})

describe('allocation under concurrency', () => {
  it('200 concurrent allocations get 200 distinct indexes; a full list rolls over to a new one', async () => {
    const h = await startHarness({
      storage: 'sqlite',
      service: { publicUrl: PUBLIC_URL, statusListSize: 64, statusPublishIntervalMs: 60_000 },
    })
    try {
      const issuer = await walletWithToken(h)
      const results = await Promise.all(
        Array.from({ length: 200 }, () =>
          h.request('POST', '/claims/sign', {
            json: { iss: issuer.did, format: 'JWT', status: { purposes: ['revocation'] }, claims: [{ payload: { a: 1 } }] },
            didAuth: issuer.jwt,
          }),
        ),
      )
      const entries = results.map((r) => {
        expect(r.status).toBe(200)
        return (decodeJWT(r.body.vcs[0].jwt).payload as any).vc.credentialStatus
      })
      expect(new Set(entries.map((e) => e.id)).size).toBe(200)
      const perList = new Map<string, number>()
      for (const e of entries) perList.set(e.statusListCredential, (perList.get(e.statusListCredential) ?? 0) + 1)
      // 64 entries a list: 200 fill three and start a fourth.
      expect([...perList.values()].sort((x, y) => y - x)).toEqual([64, 64, 64, 8])
      for (const e of entries) expect(Number(e.statusListIndex)).toBeLessThan(64)
    } finally {
      await h.close()
    }
  }, 120_000)

  it('two service instances on one SQLite file allocate distinct indexes', async () => {
    const masterKey = randomMasterKey()
    const h = await startHarness({ storage: 'sqlite', service: { masterKey, publicUrl: PUBLIC_URL, statusListSize: 256 } })
    const second = await IdentityService.create({
      storage: createSqliteStorage({ path: h.dbPath! }),
      masterKey,
      tenants: staticTenants({ [TENANT_A]: 'tenant-a' }),
      publicUrl: PUBLIC_URL,
      statusListSize: 256,
    })
    try {
      const issuer = await walletWithToken(h)
      const body = {
        iss: issuer.did,
        format: 'JWT' as const,
        status: { purposes: ['revocation' as const] },
        claims: [{ payload: { a: 1 } }],
      }
      const auth = { authorization: `Bearer ${TENANT_A}`, didAuth: issuer.jwt }
      const signed = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? second : h.service).signClaims(body, auth)))
      const ids = signed.map((r) => (decodeJWT((r.vcs[0] as { jwt: string }).jwt).payload as any).vc.credentialStatus.id)
      expect(new Set(ids).size).toBe(100)
    } finally {
      await second.close()
      await h.close()
    }
  }, 120_000)
})

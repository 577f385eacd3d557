import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import { createRouter } from '../../src/http/router.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { startHarness, type Harness } from '../helpers/harness.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(() => h.close())

describe('GET /1.0/identifiers/:did (DIF Universal Resolver format)', () => {
  it("resolves the service's DIDs without authentication", async () => {
    const w = (await h.request('POST', '/wallet', { json: {} })).body.wallet
    const res = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(w.did)}`, { token: null })
    expect(res.status).toBe(200)
    expect(res.body['@context']).toBe('https://w3id.org/did-resolution/v1')
    expect(res.body.didDocument.id).toBe(w.did)
    expect(res.body.didDocument.verificationMethod[0].blockchainAccountId).toBe(`eip155:1337:${w.ethereumAddress}`)
    expect(res.body.didResolutionMetadata.contentType).toBe('application/did+ld+json')
    expect(res.body).toHaveProperty('didDocumentMetadata')
  })

  it('a DID that does not resolve is a resolution result at the binding’s status, never an error body', async () => {
    const invalid = await h.request('GET', '/1.0/identifiers/not-a-did', { token: null })
    expect([invalid.status, invalid.body.didResolutionMetadata.error, invalid.body.didDocument]).toEqual([400, 'invalidDid', null])
    const unknownNetwork = await h.request('GET', `/1.0/identifiers/did:ethr:goerli:0x70997970C51812dc3A010C7d01b50e0d17dc79C8`, {
      token: null,
    })
    expect([unknownNetwork.status, unknownNetwork.body.didResolutionMetadata.error]).toEqual([501, 'methodNotSupported'])
    expect(unknownNetwork.body.didResolutionMetadata.message).toMatch(/^unknownNetwork: /)
    // A DID over the path parameter's bound is refused by its schema: still a result, naming invalidDid.
    const long = await h.request('GET', `/1.0/identifiers/did:ethr:${'a'.repeat(2_100)}`, { token: null })
    expect([long.status, long.body.didResolutionMetadata.error]).toEqual([400, 'invalidDid'])
    // A path that is not valid percent-encoded UTF-8 fails in routing, before the handler: still a result.
    for (const path of ['/1.0/identifiers/%F0', '/1.0/identifiers/did:ethr:%E0%A4%A']) {
      const malformed = await h.request('GET', path, { token: null })
      expect([malformed.status, malformed.body.didResolutionMetadata?.error, malformed.body.didDocument], path).toEqual([
        400,
        'invalidDid',
        null,
      ])
    }
    // An unknown query parameter is part of a DID URL this resolver cannot read.
    const w = (await h.request('POST', '/wallet', { json: {} })).body.wallet
    const odd = await h.request('GET', `/1.0/identifiers/${w.did}?service=files`, { token: null })
    expect([odd.status, odd.body.didResolutionMetadata.error]).toEqual([400, 'invalidDidUrl'])
  })

  it('service.resolveDid resolves — never rejects — to the same results', async () => {
    expect((await h.service.resolveDid({ did: 'not-a-did' })).didResolutionMetadata.error).toBe('invalidDid')
    expect((await h.service.resolveDid({ did: '' })).didResolutionMetadata.error).toBe('invalidDid')
    expect((await h.service.resolveDid({ did: 'did:example:123456' })).didResolutionMetadata.error).toBe('methodNotSupported')
    expect((await h.service.resolveDid({ did: 'did:web:example.com' })).didResolutionMetadata).toEqual({
      error: 'notFound',
      message: 'did:web: origin https://example.com is not allowed (didWebOrigins)',
    })
    // The default resolver: did:key offline, as credential verification resolves it.
    const didKey = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'
    expect((await h.service.resolveDid({ did: didKey })).didDocument?.id).toBe(didKey)
    const w = (await h.request('POST', '/wallet', { json: {} })).body.wallet
    expect((await h.service.resolveDid({ did: w.did, versionId: 'x' })).didResolutionMetadata.error).toBe('invalidDidUrl')
    expect((await h.service.resolveDid({ did: w.did, versionId: 99 })).didResolutionMetadata.error).toBe('notFound')
  })
})

describe('GET /1.0/identifiers/:did when the resolution fails', () => {
  it('500 internalError (a result, no detail) when the storage fails under it; the embedded call resolves to it too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'didvault-resolve-fail-'))
    const storage = createSqliteStorage({ path: join(dir, 'test.db') })
    const failures: string[] = []
    const service = await IdentityService.create({
      storage,
      masterKey: randomMasterKey(),
      tenants: staticTenants({ t: 't' }),
      onError: (operation) => failures.push(operation),
    })
    const server = express().use(createRouter(service)).listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    try {
      const did = (await service.generateWallet({}, { authorization: 'Bearer t' })).wallet.did
      await storage.close()
      const res = await fetch(`http://127.0.0.1:${port}/1.0/identifiers/${did}`)
      const body = (await res.json()) as { didDocument: unknown; didResolutionMetadata: { error?: string; message?: string } }
      expect([res.status, body.didResolutionMetadata.error, body.didDocument]).toEqual([500, 'internalError', null])
      expect(res.headers.get('content-type')).toMatch(/^application\/did-resolution(;|$)/)
      expect(body.didResolutionMetadata.message).toBe('DID resolution failed')
      expect((await service.resolveDid({ did })).didResolutionMetadata.error).toBe('internalError')
      // The operator is told what the caller is not.
      expect(failures).toContain('resolveDid')
    } finally {
      server.close()
      await service.close().catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

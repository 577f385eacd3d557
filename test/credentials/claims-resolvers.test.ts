/**
 * The `resolvers` and `contexts` options. A second didvault server on loopback plays a DIF
 * Universal Resolver (`GET /1.0/identifiers/{did}`): credentials whose keys only it knows
 * verify with the resolver named for it, not with `default`, and every response echoes the
 * name used.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import { CREDENTIALS_V1_URL, signJsonLd } from '../../src/proofs/jsonld/index.js'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { IdentityService, createMemoryStorage, randomMasterKey, universalResolver } from '../../src/index.js'
import { LocalSigner, generatePrivateKey } from '../../src/keys/secp256k1.js'
import { expectError, startHarness, walletWithToken, type Harness } from '../helpers/harness.js'

let remote: Harness
let local: Harness
let silent: Server
let closedUrl: string
beforeAll(async () => {
  remote = await startHarness()
  // A server that accepts connections and never answers, and a port nobody listens on.
  silent = createServer(() => {})
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  closedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`
  await new Promise((resolve) => probe.close(resolve))
  local = await startHarness({
    service: {
      resolvers: {
        uni: universalResolver({ url: remote.url }),
        closed: universalResolver({ url: closedUrl }),
        silent: universalResolver({ url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, timeoutMs: 500 }),
      },
    },
  })
})
afterAll(async () => {
  await local?.close()
  await remote?.close()
  silent?.closeAllConnections()
  await new Promise((resolve) => silent?.close(resolve))
})

describe('resolvers', () => {
  it('a credential signed by a delegate only the remote registry knows verifies with its resolver, not with default', async () => {
    const delegate = new LocalSigner(generatePrivateKey())
    const owner = (
      await remote.request('POST', '/wallet', {
        json: { walletConfig: { txsInput: [{ delegate: { address: delegate.address, validity: 3_600_000 } }] } },
      })
    ).body.wallet
    expect(owner.registry.errors).toEqual([])
    const vc = { '@context': [CREDENTIALS_V1_URL], type: ['VerifiableCredential'], credentialSubject: { id: owner.did } }
    const jwt = await createVerifiableCredentialJwt(
      { vc: { ...vc, credentialSubject: { id: owner.did, degree: 'BSc' } } },
      { did: owner.did, signer: didJwtSigner(delegate), alg: 'ES256K' },
    )
    const jsonld = await signJsonLd({ ...vc, issuer: owner.did, issuanceDate: new Date().toISOString() }, delegate, {
      creator: `${owner.did}#delegate-1`,
    })

    const caller = await walletWithToken(local)
    const check = (resolver?: string) =>
      local.request('POST', '/claims/verify', {
        json: { ...(resolver && { resolver }), claims: [{ jwt }, { jsonld }] },
        didAuth: caller.jwt,
      })
    const viaRemote = await check('uni')
    expect(viaRemote.status).toBe(200)
    expect(viaRemote.body.resolver).toBe('uni')
    expect(viaRemote.body.vcs.map((v: any) => v.verified)).toEqual([true, true])
    const viaDefault = await check()
    expect(viaDefault.body.resolver).toBe('default')
    expect(viaDefault.body.vcs.map((v: any) => v.verified)).toEqual([false, false])
    expect((await check('default')).body.resolver).toBe('default')
  })

  it('an unreachable or silent endpoint is a failed check in a 200, not an error', async () => {
    const caller = await walletWithToken(local)
    const signed = await local.request('POST', '/claims/sign', {
      json: { iss: caller.did, claims: [{ payload: {} }] },
      didAuth: caller.jwt,
    })
    for (const resolver of ['closed', 'silent']) {
      const res = await local.request('PATCH', '/claims', {
        json: { operation: 'verify', resolver, claims: [{ jsonld: signed.body.vcs[0].jsonld }] },
        didAuth: caller.jwt,
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({
        resolver,
        vcs: [
          {
            verified: false,
            checks: [
              { check: 'proof', verified: false },
              { check: 'issuanceDate', verified: true },
            ],
          },
        ],
      })
    }
  })

  it('sign echoes the resolver named; unknown names are 422', async () => {
    const caller = await walletWithToken(local)
    const res = await local.request('POST', '/claims/sign', {
      json: { iss: caller.did, resolver: 'uni', claims: [{ id: 'urn:example:a', payload: {} }] },
      didAuth: caller.jwt,
    })
    expect(res.body.resolver).toBe('uni')
    expectError(
      await local.request('POST', '/claims/sign', {
        json: { iss: caller.did, resolver: 'UNI', claims: [{ payload: {} }] },
        didAuth: caller.jwt,
      }),
      422,
      'VALIDATION_ERROR',
    )
  })

  it('universalResolver answers the remote document, and its resolution errors by name', async () => {
    const uni = universalResolver({ url: `${remote.url}/` })
    const w = await walletWithToken(remote)
    const viaHttp = await uni.resolve(w.did)
    expect(viaHttp.didDocument).toEqual((await remote.service.resolveDid({ did: w.did })).didDocument)
    // A network the remote does not serve: the binding's methodNotSupported (501), the message naming ethr-did-resolver's unknownNetwork.
    expect((await uni.resolve('did:ethr:nowhere:0x8ba1f109551bD432803012645Ac136ddd64DBA72')).didResolutionMetadata).toEqual({
      error: 'methodNotSupported',
      message: 'unknownNetwork: No configuration for network: nowhere',
    })
    expect((await universalResolver({ url: closedUrl }).resolve(w.did)).didResolutionMetadata).toMatchObject({
      error: 'internalError',
      message: 'universal resolver: unreachable',
    })
    expect(() => universalResolver({ url: 'file:///etc/passwd' })).toThrow(TypeError)
  })

  it('create() refuses to replace default and names that are not plain', async () => {
    const base = { storage: createMemoryStorage(), masterKey: randomMasterKey() }
    await expect(IdentityService.create({ ...base, resolvers: { default: universalResolver({ url: remote.url }) } })).rejects.toThrow(
      /cannot be replaced/,
    )
    await expect(
      IdentityService.create({ ...base, storage: createMemoryStorage(), resolvers: { 'a b': universalResolver({ url: remote.url }) } }),
    ).rejects.toThrow(/invalid name/)
  })
})

describe('contexts', () => {
  it('a registered context is usable by sign and verify; a bundled URL cannot be given other content', async () => {
    const url = 'https://example.org/contexts/age/v1'
    const own = await startHarness({ service: { contexts: { [url]: { '@context': { age: 'https://example.org/vocab#age' } } } } })
    try {
      const caller = await walletWithToken(own)
      const signed = await own.request('POST', '/claims/sign', {
        json: { iss: caller.did, context: url, claims: [{ payload: { age: 42 } }] },
        didAuth: caller.jwt,
      })
      expect(signed.status).toBe(200)
      expect(signed.body.vcs[0].jsonld['@context']).toEqual([CREDENTIALS_V1_URL, url])
      const verified = await own.request('POST', '/claims/verify', {
        json: { claims: [{ jsonld: signed.body.vcs[0].jsonld }] },
        didAuth: caller.jwt,
      })
      expect(verified.body.vcs[0].verified).toBe(true)
    } finally {
      await own.close()
    }
    await expect(
      IdentityService.create({
        storage: createMemoryStorage(),
        masterKey: randomMasterKey(),
        contexts: { [CREDENTIALS_V1_URL]: { '@context': { age: 'https://example.org/vocab#age' } } },
      }),
    ).rejects.toThrow(/already registered with different content/)
  })
})

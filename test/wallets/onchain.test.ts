/**
 * The on-chain registry through the service: a network configured with `rpcUrl` + `registry`
 * (a real EthereumDIDRegistry on a local EVM started here) and a gas payer. walletConfig
 * changes are signed by the identity owner's key held by the service, sent by the gas payer,
 * and resolved by ethr-did-resolver from the chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Contract } from 'ethers'
import { EthereumDIDRegistry } from 'ethr-did-resolver'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import { expectError, snapshot, startHarness, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'
import { mintToken } from '../helpers/tokens.js'
import { startEvm, type LocalEvm } from '../helpers/evm.js'

let evm: LocalEvm
let h: Harness
let readOnly: Harness
beforeAll(async () => {
  evm = await startEvm()
  const networks = [{ name: 'dev', chainId: evm.chainId, rpcUrl: evm.rpcUrl, registry: evm.registry }]
  h = await startHarness({ storage: 'sqlite', service: { networks, onchain: { dev: { gasPayer: evm.gasPayer } } } })
  readOnly = await startHarness({ service: { networks } })
})
afterAll(async () => {
  await h?.close()
  await readOnly?.close()
  await evm?.close()
})

const resolve = async (did: string) => (await h.request('GET', `/1.0/identifiers/${encodeURIComponent(did)}`, { token: null })).body
const configure = (did: string, walletConfig: unknown, didAuth?: string) =>
  h.request('POST', '/wallet/configure', { json: { wallet: { did }, walletConfig }, didAuth })

describe('on-chain registry (EthereumDIDRegistry on a local EVM)', () => {
  it("the network's rpcUrl is the registry endpoint; `local` is not one when no network is embedded", async () => {
    expect(h.service.config.apiUrls).toEqual([evm.rpcUrl])
    expectError(await h.request('POST', '/wallet', { json: { walletConfig: { apiUrl: 'local' } } }), 422, 'VALIDATION_ERROR')
  })

  it('Generate Identity Wallet writes to the contract; the document is read back from the chain', async () => {
    const res = await h.request('POST', '/wallet', {
      json: {
        walletConfig: {
          apiUrl: `${evm.rpcUrl}/`,
          txsInput: [
            { service: { name: 'HubService', value: 'https://hub.example.com', validity: 3_600_000 } },
            { delegate: { validity: 3_600_000 } },
          ],
        },
      },
    })
    expect(res.status).toBe(200)
    const w = res.body.wallet
    expect(w.registry.errors).toEqual([])
    expect(w.registry.transactions.map((t: any) => t.txHash)).toEqual([
      expect.stringMatching(/^0x[0-9a-f]{64}$/),
      expect.stringMatching(/^0x[0-9a-f]{64}$/),
    ])
    const contract = new Contract(evm.registry, EthereumDIDRegistry.abi, evm.provider)
    expect(Number(await contract.changed(w.ethereumAddress))).toBe(Number(w.registry.transactions[1].versionId))
    const delegate = w.registry.transactions[1].delegate
    expect(
      await contract.validDelegate(w.ethereumAddress, '0x' + Buffer.from('veriKey').toString('hex').padEnd(64, '0'), delegate.address),
    ).toBe(true)
    const body = await resolve(w.did)
    expect(body.didDocument.service).toEqual([{ id: `${w.did}#service-1`, type: 'HubService', serviceEndpoint: 'https://hub.example.com' }])
    expect(body.didDocument.verificationMethod[1].blockchainAccountId).toBe(`eip155:1337:${delegate.address}`)
    expect(body.didDocumentMetadata.versionId).toBe(w.registry.transactions[1].versionId)
  })

  it("newOwner on chain: the old key's token is refused, the new owner controls and signs", async () => {
    const a = await walletWithToken(h)
    const b = await walletWithToken(h)
    expect((await configure(a.did, { txsInput: [{ newOwner: b.did }] }, a.jwt)).status).toBe(200)
    expect((await resolve(a.did)).didDocument.verificationMethod[0].blockchainAccountId).toBe(`eip155:1337:${b.did.split(':').pop()}`)
    expectError(await configure(a.did, { txsInput: [] }, a.jwt), 403, 'UNAUTHENTICATED')
    const res = await configure(
      a.did,
      { txsInput: [{ service: { name: 'ByB', value: 'https://b.example.com', validity: 60_000 } }] },
      b.jwt,
    )
    expect(res.body.wallet.registry.errors).toEqual([])
    expect((await resolve(a.did)).didDocument.service[0].type).toBe('ByB')
  })

  it('Create Role applies walletConfig to the role DID on chain: the new owner then manages the role', async () => {
    const creator = await walletWithToken(h)
    const owner = await walletWithToken(h)
    const res = await h.request('POST', '/roles', {
      json: {
        permissions: ['Read'],
        walletConfig: {
          txsInput: [{ service: { name: 'RoleHub', value: 'https://roles.example.com', validity: 3_600_000 } }, { newOwner: owner.did }],
        },
      },
      didAuth: creator.jwt,
    })
    expect(res.status).toBe(200)
    const role = res.body.role
    expect(role.registry.errors).toEqual([])
    expect(role.registry.transactions.map((t: any) => t.txHash)).toEqual([
      expect.stringMatching(/^0x[0-9a-f]{64}$/),
      expect.stringMatching(/^0x[0-9a-f]{64}$/),
    ])
    const doc = (await resolve(role.did)).didDocument
    expect(doc.service[0]).toMatchObject({ type: 'RoleHub', serviceEndpoint: 'https://roles.example.com' })
    expect(doc.verificationMethod[0].blockchainAccountId).toBe(`eip155:1337:${owner.did.split(':').pop()}`)
    const updated = await h.request('PUT', '/roles', { json: { did: role.did, description: 'by the on-chain owner' }, didAuth: owner.jwt })
    expect(updated.body).toMatchObject({ roles: [{ description: 'by the on-chain owner' }], errors: [] })
  })

  it('a veriKey delegate on chain authenticates for the DID but gets no owner rights', async () => {
    const w = await walletWithToken(h)
    const key = generatePrivateKey()
    const early = await mintToken({ iss: w.did, signerKey: key })
    expectError(await configure(w.did, { txsInput: [] }, early.jwt), 403, 'UNAUTHENTICATED')
    expect(
      (await configure(w.did, { txsInput: [{ delegate: { address: new LocalSigner(key).address, validity: 600_000 } }] }, w.jwt)).status,
    ).toBe(200)
    const token = await mintToken({ iss: w.did, signerKey: key })
    expectError(await configure(w.did, { txsInput: [] }, token.jwt), 403, 'FORBIDDEN')
    expect((await configure(w.did, { txsInput: [] }, w.jwt)).status).toBe(200)
    expect(await tokenFor(h, w.did)).toBeTypeOf('string')
  })

  it("an embedded and an on-chain network side by side: apiUrl chooses the network of a new DID, and must match an existing DID's", async () => {
    const mixed = await startHarness({
      service: {
        networks: [
          { name: 'dev', chainId: 1337 },
          { name: 'chain', chainId: evm.chainId, rpcUrl: evm.rpcUrl, registry: evm.registry },
        ],
        onchain: { chain: { gasPayer: evm.gasPayer } },
      },
    })
    try {
      expect(mixed.service.config.apiUrls).toEqual(['local', evm.rpcUrl])
      const txsInput = [{ service: { name: 'Where', value: 'https://w.example.com', validity: 60_000 } }]
      const local = (await mixed.request('POST', '/wallet', { json: { walletConfig: { txsInput } } })).body.wallet
      const onChain = (await mixed.request('POST', '/wallet', { json: { walletConfig: { apiUrl: evm.rpcUrl, txsInput } } })).body.wallet
      expect(local.did).toMatch(/^did:ethr:dev:/)
      expect(local.registry.apiUrl).toBe('local')
      expect(onChain.did).toMatch(/^did:ethr:chain:/)
      expect(onChain.registry.transactions[0].txHash).toMatch(/^0x/)
      for (const w of [local, onChain]) {
        const doc = (await mixed.request('GET', `/1.0/identifiers/${encodeURIComponent(w.did)}`, { token: null })).body.didDocument
        expect(doc.service[0].type).toBe('Where')
      }
      const jwt = await tokenFor(mixed, local.did)
      const before = await snapshot(mixed)
      expectError(
        await mixed.request('POST', '/wallet/configure', {
          json: { wallet: { did: local.did }, walletConfig: { apiUrl: evm.rpcUrl, txsInput } },
          didAuth: jwt,
        }),
        422,
        'VALIDATION_ERROR',
      )
      expect(await snapshot(mixed)).toEqual(before)
    } finally {
      await mixed.close()
    }
  })

  it('without a gas payer the registry resolves but each change fails with a clear per-item error; nothing is claimed', async () => {
    const before = await snapshot(readOnly)
    const res = await readOnly.request('POST', '/wallet', { json: { walletConfig: { txsInput: [{ delegate: { validity: 1000 } }] } } })
    expect(res.status).toBe(200)
    expect(res.body.wallet.registry.transactions).toEqual([])
    expect(res.body.wallet.registry.errors[0].error).toMatchObject({
      statusCode: 422,
      errorType: 'VALIDATION_ERROR',
      errorMessage: expect.stringMatching(/no gas payer/),
    })
    const after = await snapshot(readOnly)
    expect(after.delegateKeys).toBe(before.delegateKeys)
    expect(
      (await readOnly.request('GET', `/1.0/identifiers/${encodeURIComponent(res.body.wallet.did)}`, { token: null })).body.didDocument
        .verificationMethod,
    ).toHaveLength(1)
  })
})

/**
 * An MPC wallet's DID document changed on the on-chain registry (a real EthereumDIDRegistry on
 * a local EVM): the `*Signed` calls are signed through the MPC provider with the request's
 * member approvals, sent by the gas payer, and the document resolves with a plain
 * ethr-did-resolver reading the chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Contract } from 'ethers'
import { Resolver } from 'did-resolver'
import { EthereumDIDRegistry, getResolver } from 'ethr-did-resolver'
import { startHarness, type Harness } from '../helpers/harness.js'
import { startEvm, type LocalEvm } from '../helpers/evm.js'
import { approvals, member, mpcVaultBody, type Member } from '../helpers/mpc.js'

let evm: LocalEvm
let h: Harness
let plain: Resolver
let members: Member[]
beforeAll(async () => {
  evm = await startEvm()
  const networks = [{ name: 'dev', chainId: evm.chainId, rpcUrl: evm.rpcUrl, registry: evm.registry }]
  h = await startHarness({ storage: 'sqlite', service: { networks, onchain: { dev: { gasPayer: evm.gasPayer } } } })
  plain = new Resolver(
    getResolver({ networks: [{ name: 'dev', chainId: evm.chainId, registry: evm.registry, provider: evm.provider as never }] }),
  )
  members = await Promise.all([member(), member(), member()])
})
afterAll(async () => {
  await h?.close()
  await evm?.close()
})

describe('MPC wallets on the on-chain registry', () => {
  it('the vault template and a Configure Identity Wallet change land on chain, signed with 2 of 3 approvals; with 1 nothing is sent', async () => {
    const walletConfig = { txsInput: [{ service: { name: 'MpcHub', value: 'https://hub.example.com/mpc', validity: 3_600_000 } }] }
    const created = await h.request('POST', '/vaults', { json: mpcVaultBody(members, { walletConfig }) })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const vaultId = created.body.vault.id
    expect(
      (await h.request('POST', `/vaults/${vaultId}/initialize`, { json: {}, didAuth: await approvals(members[0], members[1]) })).status,
    ).toBe(200)
    const res = await h.request('POST', `/vaults/${vaultId}/wallet`, { json: {}, didAuth: await approvals(members[1], members[2]) })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const wallet = res.body.wallet
    expect(wallet.registry.errors).toEqual([])
    expect(wallet.registry.transactions[0].txHash).toMatch(/^0x[0-9a-f]{64}$/)

    const contract = new Contract(evm.registry, EthereumDIDRegistry.abi, evm.provider)
    const changed = Number(await contract.changed(wallet.ethereumAddress))
    expect(changed).toBeGreaterThan(0)
    const resolved = await plain.resolve(wallet.did)
    expect(resolved.didDocument?.service).toEqual([
      { id: `${wallet.did}#service-1`, type: 'MpcHub', serviceEndpoint: 'https://hub.example.com/mpc' },
    ])

    // Configure Identity Wallet: control by the MPC wallet's own token (itself minted with a quorum), plus the quorum for the change.
    const own = await h.request('POST', '/did-auth-jwt', { json: { iss: wallet.did }, didAuth: await approvals(members[0], members[2]) })
    expect(own.status, JSON.stringify(own.body)).toBe(200)
    const delegate = '0x' + '33'.repeat(20)
    const body = { wallet: { did: wallet.did }, walletConfig: { txsInput: [{ delegate: { address: delegate, validity: 3_600_000 } }] } }

    const short = await h.request('POST', '/wallet/configure', { json: body, didAuth: [own.body.jwt, await members[0].token()].join(',') })
    expect(short.status).toBe(200)
    expect(short.body.wallet.registry.errors[0].error).toMatchObject({ statusCode: 403, errorType: 'FORBIDDEN' })
    expect(Number(await contract.changed(wallet.ethereumAddress))).toBe(changed)

    const applied = await h.request('POST', '/wallet/configure', {
      json: body,
      didAuth: [own.body.jwt, await approvals(members[0], members[1])].join(','),
    })
    expect(applied.status).toBe(200)
    expect(applied.body.wallet.registry.errors).toEqual([])
    expect(Number(await contract.changed(wallet.ethereumAddress))).toBeGreaterThan(changed)
    const after = await plain.resolve(wallet.did)
    const accounts = (after.didDocument?.verificationMethod ?? []).map((vm) => vm.blockchainAccountId?.toLowerCase())
    expect(accounts).toContain(`eip155:${evm.chainId}:${delegate}`)
  }, 60_000)
})

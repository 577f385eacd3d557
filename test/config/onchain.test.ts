/**
 * An on-chain network configured in a config file only: `didvault serve --config` (a real process
 * on loopback) against ganache (in-process, with the ERC-1056 registry deployed). `POST
 * /wallet/configure` sends the DID-document change to the chain (an independent
 * ethr-did-resolver reads it there), and `GET /1.0/identifiers/:did` reads the chain (a change
 * made on chain behind the service's back shows).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Resolver } from 'did-resolver'
import { Contract, encodeBytes32String, parseEther, toUtf8Bytes, Wallet } from 'ethers'
import { EthereumDIDRegistry, getResolver } from 'ethr-did-resolver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEvm, type LocalEvm } from '../helpers/evm.js'
import { http, killAll } from '../helpers/spawn.js'
import { configCli } from './cli.js'

const CHAIN_ID = 31337
const NETWORK = 'ganache'
const KEY = 'acme-key-0123456789'
const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)"/

let evm: LocalEvm
let dir: string
let url: string
/** Reads the chain with no didvault code. */
let chain: Resolver

beforeAll(async () => {
  evm = await startEvm(CHAIN_ID)
  dir = mkdtempSync(join(tmpdir(), 'didvault-config-chain-'))
  // A gas payer of its own, funded by ganache's account 0: the service reads its key from a file.
  const gasPayer = Wallet.createRandom()
  await (await evm.gasPayer.sendTransaction({ to: gasPayer.address, value: parseEther('10') })).wait()
  writeFileSync(join(dir, 'gas.key'), `${gasPayer.privateKey}\n`)
  chmodSync(join(dir, 'gas.key'), 0o600)
  writeFileSync(
    join(dir, 'didvault.yaml'),
    [
      'storage: sqlite:./didvault.db',
      'networks:',
      `  - name: ${NETWORK}`,
      `    chainId: ${CHAIN_ID}`,
      `    rpcUrl: ${evm.rpcUrl}`,
      `    registry: '${evm.registry}'`,
      '    gasPayerKeyFile: gas.key',
      '',
    ].join('\n'),
  )
  // Started from another directory: the file's relative paths are its own directory's.
  const proc = configCli(['serve', '--config', join(dir, 'didvault.yaml'), '--port', '0'], tmpdir(), { DIDVAULT_API_KEYS: `acme:${KEY}` })
  url = (await proc.waitFor(LISTENING, 60_000))[1]
  chain = new Resolver(getResolver({ networks: [{ name: NETWORK, chainId: CHAIN_ID, rpcUrl: evm.rpcUrl, registry: evm.registry }] }))
}, 120_000)

afterAll(async () => {
  await killAll()
  await evm?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('an on-chain network from the config file', () => {
  it('POST /wallet/configure writes the DID-document change on chain; GET /1.0/identifiers/:did reads it', async () => {
    const created = await http(`${url}/wallet`, { method: 'POST', token: KEY, json: {} })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const did: string = created.body.wallet.did
    expect(did).toMatch(new RegExp(`^did:ethr:${NETWORK}:0x[0-9a-fA-F]{40}$`))
    const jwt = (await http(`${url}/did-auth-jwt`, { method: 'POST', token: KEY, json: { iss: did } })).body.jwt
    expect(typeof jwt).toBe('string')

    const endpoint = 'https://hub.example.com/inbox'
    const configured = await http(`${url}/wallet/configure`, {
      method: 'POST',
      token: KEY,
      headers: { 'x-did-auth': jwt },
      json: { wallet: { did }, walletConfig: { txsInput: [{ service: { name: 'Hub', value: endpoint, validity: 86_400_000 } }] } },
    })
    expect(configured.status, JSON.stringify(configured.body)).toBe(200)
    const report = configured.body.wallet.registry
    expect(report.apiUrl).toBe(evm.rpcUrl)
    expect(report.errors).toEqual([])
    const [tx] = report.transactions
    expect(tx.op).toBe('setAttribute')
    expect(tx.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    const receipt = await evm.provider.getTransactionReceipt(tx.txHash)
    expect(receipt?.status).toBe(1)
    expect(receipt?.to?.toLowerCase()).toBe(evm.registry.toLowerCase())

    // On chain: a resolver with no didvault code sees the service.
    const onChain = await chain.resolve(did)
    expect(onChain.didDocument?.service?.map((s) => s.serviceEndpoint)).toEqual([endpoint])

    const resolved = await http(`${url}/1.0/identifiers/${encodeURIComponent(did)}`, { token: KEY })
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200)
    expect(resolved.body.didDocument).toEqual(JSON.parse(JSON.stringify(onChain.didDocument)))
    expect(resolved.body.didDocumentMetadata.versionId).toBe(String(receipt!.blockNumber))
  }, 120_000)

  it('GET /1.0/identifiers/:did shows a change made on chain without the service', async () => {
    const owner = Wallet.createRandom().connect(evm.provider)
    await (await evm.gasPayer.sendTransaction({ to: owner.address, value: parseEther('1') })).wait()
    const registry = new Contract(evm.registry, EthereumDIDRegistry.abi, owner)
    const endpoint = 'https://elsewhere.example.com/hub'
    const name = encodeBytes32String('did/svc/Elsewhere')
    await (await registry.getFunction('setAttribute')(owner.address, name, toUtf8Bytes(endpoint), 86_400)).wait()

    const did = `did:ethr:${NETWORK}:${owner.address}`
    const resolved = await http(`${url}/1.0/identifiers/${encodeURIComponent(did)}`, { token: KEY })
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200)
    expect(resolved.body.didDocument.service.map((s: { serviceEndpoint: string }) => s.serviceEndpoint)).toEqual([endpoint])
  }, 60_000)
})

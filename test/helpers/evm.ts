/**
 * A real local EVM for tests: ganache 7 in-process, serving JSON-RPC on 127.0.0.1 (a free
 * port), with the `EthereumDIDRegistry` bytecode that `ethr-did-resolver` ships deployed on it.
 * Ganache stamps blocks with the process clock, so faking `Date` in a test moves the chain's
 * block time, `ethr-did-resolver`'s "now" and the embedded registry's clock together.
 */
import type { AddressInfo } from 'node:net'
import ganache from 'ganache'
import { ContractFactory, JsonRpcProvider, type Signer } from 'ethers'
import { EthereumDIDRegistry } from 'ethr-did-resolver'

export interface LocalEvm {
  rpcUrl: string
  chainId: number
  /** Address of the deployed EthereumDIDRegistry. */
  registry: string
  provider: JsonRpcProvider
  /** A funded account (ganache's deterministic account 0). */
  gasPayer: Signer
  close(): Promise<void>
}

export async function startEvm(chainId = 1337): Promise<LocalEvm> {
  const server = ganache.server({ chain: { chainId }, wallet: { deterministic: true }, logging: { quiet: true } })
  await server.listen(0, '127.0.0.1')
  const { port } = (server as unknown as { address(): AddressInfo }).address()
  const rpcUrl = `http://127.0.0.1:${port}`
  const provider = new JsonRpcProvider(rpcUrl, chainId, { staticNetwork: true, cacheTimeout: -1 })
  const gasPayer = await provider.getSigner(0)
  const contract = await new ContractFactory(EthereumDIDRegistry.abi, EthereumDIDRegistry.bytecode, gasPayer).deploy()
  await contract.waitForDeployment()
  return {
    rpcUrl,
    chainId,
    registry: await contract.getAddress(),
    provider,
    gasPayer,
    async close() {
      provider.destroy()
      await server.close()
    },
  }
}

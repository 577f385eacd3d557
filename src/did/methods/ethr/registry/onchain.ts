/**
 * The on-chain registry: ERC-1056 changes sent to an `EthereumDIDRegistry` contract with
 * ethers v6, resolution by `ethr-did-resolver` against the same contract.
 *
 * Writes use the contract's `*Signed` functions: the identity's current owner signs the
 * ERC-1056 message hash through the {@link DigestSigner} seam (so its key never leaves
 * custody and needs no ether), and the network's gas payer submits the transaction. Writes
 * of one registry are sent one at a time, so the gas payer's nonces never collide.
 *
 * Public-key DIDs are resolved by `ethr-did-resolver` too. It reads compressed keys only: an
 * uncompressed one is handed to it as its compressed form, under the DID as given, so the
 * document is the one the embedded registry builds (`#controllerKey` with the compressed key).
 *
 * Past versions follow `ethr-did-resolver`'s block semantics: `?versionId=<block number>` is
 * handed to it (validated first: it would read `abc` as the latest block and `-1` as the one
 * before it), and `?versionTime=` — which it does not read — becomes the number of the last
 * block stamped at or before that time.
 */
import {
  Resolver,
  type DIDResolutionResult,
  type DIDResolutionOptions,
  type DIDResolver,
  type ParsedDID,
  type Resolvable,
} from 'did-resolver'
import {
  Contract,
  JsonRpcProvider,
  type ContractTransactionResponse,
  encodeBytes32String,
  getAddress,
  getBytes,
  hexlify,
  solidityPackedKeccak256,
  type Provider,
  type Signer,
} from 'ethers'
import { EthereumDIDRegistry, getResolver } from 'ethr-did-resolver'
import type { DigestSigner } from '../../../../keys/signer.js'
import { didOfChecksummed, parseEthrDid, type EthrNetwork } from '../ethr.js'
import { NULL_ADDRESS } from '../document.js'
import { versionRequest } from '../../../version.js'
import { blockAtTime } from './block-at-time.js'
import { RegistryError, invalidEthrDid, resolutionFailure, type AppliedChange, type DidRegistry, type RegistryChange } from './port.js'

/** The gas limit sent is the node's estimate plus this fraction of it (1/4: 25%). */
const GAS_MARGIN_DIVISOR = 4n

/** An on-chain network: a did:ethr network with its JSON-RPC endpoint and registry contract. */
export interface OnchainNetwork extends EthrNetwork {
  rpcUrl: string
  registry: string
}

export interface OnchainRegistryOptions {
  /**
   * Pays the gas of the registry transactions (the identity owners sign the changes). Without it, the registry resolves but refuses
   * writes.
   */
  gasPayer?: Signer
  /**
   * The provider for `network.rpcUrl` (default: a `JsonRpcProvider` for it, without ethers' response sharing). Give one with
   * `cacheTimeout: -1` too.
   */
  provider?: Provider
}

/** Whether a network is configured for an on-chain registry. */
export function isOnchain(network: EthrNetwork): network is OnchainNetwork {
  return typeof network.rpcUrl === 'string' && typeof network.registry === 'string'
}

export class OnchainRegistry implements DidRegistry {
  readonly endpoint: string
  readonly resolver: DIDResolver
  readonly #contract: Contract
  readonly #provider: Provider
  readonly #ethr: DIDResolver
  /** ethr-did-resolver alone, uncached, made once: what {@link identityOwner} reads a deactivation through. */
  readonly #ethrResolver: Resolver
  readonly #gasPayer?: Signer
  #queue: Promise<unknown> = Promise.resolve()

  constructor(
    readonly network: OnchainNetwork,
    options: OnchainRegistryOptions = {},
  ) {
    // What callers see and name: never the rpcUrl itself, whose path or query may hold a provider key.
    this.endpoint = (network.apiUrl ?? new URL(network.rpcUrl).origin).replace(/\/+$/, '')
    // No response sharing (ethers' 250 ms cache): a read right after a write must see it (owner, nonce, changed).
    const provider = options.provider ?? new JsonRpcProvider(network.rpcUrl, network.chainId, { staticNetwork: true, cacheTimeout: -1 })
    this.#provider = provider
    this.#gasPayer = options.gasPayer && !options.gasPayer.provider ? options.gasPayer.connect(provider) : options.gasPayer
    this.#contract = new Contract(network.registry, EthereumDIDRegistry.abi, this.#gasPayer ?? provider)
    this.#ethr = getResolver({
      networks: [{ name: network.name, chainId: network.chainId, registry: network.registry, provider: provider as never }],
    }).ethr
    this.#ethrResolver = new Resolver({ ethr: this.#ethr }, { cache: false })
    this.resolver = (did, parsed, resolver, options) => this.#resolve(did, parsed, resolver, options)
  }

  /** ethr-did-resolver's resolution, given a well-formed `versionId` block number in place of the caller's version parameters. */
  async #resolve(did: string, given: ParsedDID, resolver: Resolvable, options: DIDResolutionOptions): Promise<DIDResolutionResult> {
    const request = versionRequest(given)
    if (!request.ok) return request.failure
    // Refused here: ethr-did-resolver reports a key off the curve as `notFound`, and reads no uncompressed key.
    const id = parseEthrDid(did)
    if (!id) return invalidEthrDid(did)
    const parsed = withControllerKey(given, id.controllerKey)
    const version = request.version
    if (!version) return this.#ethr(did, parsed, resolver, options)
    let block: number
    if ('versionId' in version) {
      block = version.versionId
    } else {
      try {
        block = await blockAtTime(this.#provider, version.versionTime)
      } catch {
        return resolutionFailure(
          'notFound',
          `the blocks of network ${this.network.name} could not be read to find its block at versionTime`,
        )
      }
    }
    return this.#ethr(did, { ...parsed, query: `versionId=${block}` }, resolver, options)
  }

  /**
   * The identity's owner as the embedded registry answers it: the null address once deactivated. The contract's own
   * `identityOwner` reads a zero owner as the identity itself — both never handed over and deactivated — so a deactivated
   * identity's key could send changes again; its history tells the two apart.
   */
  async identityOwner(address: string): Promise<string> {
    const owner = getAddress((await this.#contract.owners(address)) as string)
    if (owner !== NULL_ADDRESS) return owner
    if (((await this.#contract.changed(address)) as bigint) === 0n) return address
    const did = didOfChecksummed(this.network, getAddress(address))
    const { didDocumentMetadata } = await this.#ethrResolver.resolve(did)
    return didDocumentMetadata.deactivated === true ? NULL_ADDRESS : address
  }

  apply(address: string, change: RegistryChange, owner: DigestSigner): Promise<AppliedChange> {
    const run = this.#queue.then(() => this.#apply(address, change, owner))
    this.#queue = run.catch(() => undefined)
    return run
  }

  async #apply(address: string, change: RegistryChange, owner: DigestSigner): Promise<AppliedChange> {
    if (!this.#gasPayer) throw new RegistryError(`no gas payer is configured for network ${this.network.name}: its registry is read-only`)
    const currentOwner = await this.identityOwner(address)
    if (owner.address !== currentOwner) throw new RegistryError(`bad_actor: ${owner.address} is not the owner of ${address}`)
    const nonce = (await this.#contract.nonce(currentOwner)) as bigint
    const [types, values, args] = signedCall(change)
    const hash = solidityPackedKeccak256(
      ['bytes1', 'bytes1', 'address', 'uint256', 'address', ...types],
      ['0x19', '0x00', this.network.registry, nonce, address, ...values],
    )
    const sig = await owner.sign(getBytes(hash))
    const fn = this.#contract.getFunction(`${change.op}Signed`)
    const call = [address, 27 + sig.recovery, hexlify(sig.r), hexlify(sig.s), ...args]
    // A node's estimate can miss SSTORE refund rules by a few hundred gas (ganache does, for a second
    // revocation of one delegate): a transaction sent with exactly the estimate then runs out of gas
    // and the gas payer pays for nothing. The margin is refunded when unused.
    const estimate = await fn.estimateGas(...call)
    const tx = (await fn(...call, { gasLimit: estimate + estimate / GAS_MARGIN_DIVISOR })) as ContractTransactionResponse
    const receipt = await tx.wait()
    if (!receipt || receipt.status !== 1) throw new RegistryError(`${change.op}Signed failed on network ${this.network.name}`)
    const applied: AppliedChange = { op: change.op, versionId: String(receipt.blockNumber), txHash: receipt.hash }
    if (change.op === 'addDelegate' || change.op === 'setAttribute') {
      const block = await receipt.getBlock()
      applied.validTo = block.timestamp + change.validity
    }
    return applied
  }
}

/**
 * `parsed` with the identifier of its method-specific id replaced by `controllerKey` — an
 * uncompressed key by its compressed form, which `ethr-did-resolver` reads; others as they are.
 */
function withControllerKey(parsed: ParsedDID, controllerKey: string | undefined): ParsedDID {
  if (controllerKey === undefined || parsed.id.endsWith(controllerKey)) return parsed
  return { ...parsed, id: parsed.id.slice(0, parsed.id.lastIndexOf(':') + 1) + controllerKey }
}

/** The packed message types and values of a change (after the common prefix), and the contract call's arguments. */
function signedCall(change: RegistryChange): [string[], unknown[], unknown[]] {
  switch (change.op) {
    case 'changeOwner':
      return [['string', 'address'], ['changeOwner', change.newOwner], [change.newOwner]]
    case 'addDelegate': {
      const type = encodeBytes32String(change.delegateType)
      return [
        ['string', 'bytes32', 'address', 'uint256'],
        ['addDelegate', type, change.delegate, change.validity],
        [type, change.delegate, change.validity],
      ]
    }
    case 'revokeDelegate': {
      const type = encodeBytes32String(change.delegateType)
      return [
        ['string', 'bytes32', 'address'],
        ['revokeDelegate', type, change.delegate],
        [type, change.delegate],
      ]
    }
    case 'setAttribute': {
      const name = encodeBytes32String(change.name)
      return [
        ['string', 'bytes32', 'bytes', 'uint256'],
        ['setAttribute', name, change.value, change.validity],
        [name, change.value, change.validity],
      ]
    }
    case 'revokeAttribute': {
      const name = encodeBytes32String(change.name)
      return [
        ['string', 'bytes32', 'bytes'],
        ['revokeAttribute', name, change.value],
        [name, change.value],
      ]
    }
  }
}

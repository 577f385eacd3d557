/**
 * DID document history, embedded vs on chain: the same ERC-1056 changes go to a service with
 * the embedded registry and to a service whose network is a real EthereumDIDRegistry on a
 * local EVM (ganache in-process); then past versions — by versionId and by versionTime —
 * resolve through both services and through a plain ethr-did-resolver over the same chain.
 * The on-chain service must answer exactly what ethr-did-resolver answers; the embedded one the
 * same documents, and the same metadata once its versionIds (event seq) are mapped to blocks.
 *
 * One clock for all (see docs/architecture.md, "Differential test clocks"): `Date` is faked,
 * ganache stamps blocks with it and the embedded registry reads it. An empty block is mined at
 * each probed time, so the chain has a block at exactly that time: on chain a versionTime is
 * judged at the time of its block, the embedded registry judges it at the time itself.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Resolver, type DIDResolutionResult } from 'did-resolver'
import { getResolver } from 'ethr-did-resolver'
import { hexlify, toUtf8Bytes } from 'ethers'
import { IdentityService, createMemoryStorage, randomMasterKey, type DidVersionQuery, type RegistryChange } from '../../src/index.js'
import { bytesToHex, generatePrivateKey, LocalSigner, publicKeyOf } from '../../src/keys/secp256k1.js'
import { startEvm, type LocalEvm } from '../helpers/evm.js'
import { withVersion } from '../../src/did/version.js'

/** What the service's resolver answers for `did` with the version parameters added: the resolution result, errors included. */
const resolveWith = (service: IdentityService, did: string, version?: DidVersionQuery) =>
  service.resolver.resolve(withVersion(did, version))

let evm: LocalEvm
let embedded: IdentityService
let onchain: IdentityService
let plain: Resolver
let clock = 1_950_000_000_000

function advance(seconds: number) {
  clock += seconds * 1000
  vi.setSystemTime(clock)
}
const iso = (ms: number) => new Date(ms).toISOString().replace('.000', '')

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(clock)
  evm = await startEvm()
  embedded = await IdentityService.create({
    storage: createMemoryStorage(),
    masterKey: randomMasterKey(),
    networks: [{ name: 'dev', chainId: evm.chainId }],
  })
  onchain = await IdentityService.create({
    storage: createMemoryStorage(),
    masterKey: randomMasterKey(),
    networks: [{ name: 'dev', chainId: evm.chainId, rpcUrl: evm.rpcUrl, registry: evm.registry }],
    onchain: { dev: { gasPayer: evm.gasPayer } },
  })
  plain = new Resolver(
    getResolver({ networks: [{ name: 'dev', chainId: evm.chainId, registry: evm.registry, provider: evm.provider as never }] }),
  )
})
afterAll(async () => {
  await embedded?.close()
  await onchain?.close()
  await evm?.close()
  vi.useRealTimers()
})

const identity = new LocalSigner(generatePrivateKey())
const newOwner = new LocalSigner(generatePrivateKey())
const d1 = new LocalSigner(generatePrivateKey()).address
const d2 = new LocalSigner(generatePrivateKey()).address
const did = `did:ethr:dev:${identity.address}`
const HUB = hexlify(toUtf8Bytes('https://hub.example.com'))
const PUBLIC_KEY = '0x' + bytesToHex(publicKeyOf(generatePrivateKey()))

/** The changes, each 10 s after the previous one, with the key that signs it. */
const CHANGES: Array<[RegistryChange, LocalSigner]> = [
  [{ op: 'addDelegate', delegateType: 'veriKey', delegate: d1, validity: 100 }, identity],
  [{ op: 'setAttribute', name: 'did/svc/HubService', value: HUB, validity: 1000 }, identity],
  [{ op: 'setAttribute', name: 'did/pub/Secp256k1/veriKey/hex', value: PUBLIC_KEY, validity: 15 }, identity],
  [{ op: 'revokeDelegate', delegateType: 'veriKey', delegate: d1 }, identity],
  [{ op: 'changeOwner', newOwner: newOwner.address }, identity],
  [{ op: 'addDelegate', delegateType: 'sigAuth', delegate: d2, validity: 5 }, newOwner],
  [{ op: 'revokeAttribute', name: 'did/svc/HubService', value: HUB }, newOwner],
]

/** Block number of each change (index = seq − 1). */
const blocks: number[] = []
/** Probed times (ms) and the empty block mined at each. */
const probes: Array<{ time: number; block: number }> = []

async function mineProbe() {
  await evm.provider.send('evm_mine', [])
  probes.push({ time: clock, block: await evm.provider.getBlockNumber() })
}

/** The embedded metadata, its versionIds (event seq) written as the blocks of those changes. */
function asBlocks(meta: DIDResolutionResult['didDocumentMetadata']) {
  const block = (seq: string | undefined) => (seq === undefined ? undefined : String(blocks[Number(seq) - 1]))
  const mapped = { ...meta, versionId: block(meta.versionId), nextVersionId: block(meta.nextVersionId) }
  return Object.fromEntries(Object.entries(mapped).filter(([, v]) => v !== undefined))
}

/** Resolves the three ways and checks they agree; returns ethr-did-resolver's answer. */
async function expectAgreement(
  embeddedVersion: DidVersionQuery,
  onchainVersion: DidVersionQuery,
  plainBlock: number | undefined,
  label: string,
) {
  const reference = await plain.resolve(plainBlock === undefined ? did : `${did}?versionId=${plainBlock}`)
  expect(reference.didResolutionMetadata.error, label).toBeUndefined()
  expect(await resolveWith(onchain, did, onchainVersion), label).toEqual(reference)
  const mine = await resolveWith(embedded, did, embeddedVersion)
  expect(mine.didDocument, label).toEqual(reference.didDocument)
  expect(mine.didResolutionMetadata, label).toEqual(reference.didResolutionMetadata)
  expect(asBlocks(mine.didDocumentMetadata), label).toEqual(reference.didDocumentMetadata)
  return reference
}

describe('history: embedded registry vs EthereumDIDRegistry vs plain ethr-did-resolver', () => {
  beforeAll(async () => {
    advance(10)
    await mineProbe() // before the first change
    for (const [change, signer] of CHANGES) {
      advance(5)
      const [a, b] = await Promise.all([
        embedded.registries.forNetwork('dev')!.apply(identity.address, change, signer),
        onchain.registries.forNetwork('dev')!.apply(identity.address, change, signer),
      ])
      expect(a.versionId).toBe(String(blocks.length + 1))
      blocks.push(Number(b.versionId))
      advance(5)
      await mineProbe()
    }
    advance(100)
  }, 60_000)

  it("at every versionId (seq on one side, the change's block on the other) the documents and metadata agree", async () => {
    await expectAgreement({ versionId: 0 }, { versionId: 0 }, 0, 'version 0')
    for (const [i, block] of blocks.entries()) {
      const reference = await expectAgreement({ versionId: i + 1 }, { versionId: block }, block, `version ${i + 1}`)
      expect(reference.didDocumentMetadata.versionId).toBe(String(block))
    }
  })

  it('at every probed versionTime they agree, expiries between changes included', async () => {
    const seen = new Set<string>()
    for (const { time, block } of probes) {
      const version = { versionTime: iso(time) }
      const reference = await expectAgreement(version, version, block, iso(time))
      seen.add(JSON.stringify(reference.didDocument))
      // 2 s later, before the next block: still that block on chain
      expect(await resolveWith(onchain, did, { versionTime: iso(time + 2000) })).toEqual(reference)
    }
    // Not vacuous: the probes saw the public key live and expired, the sigAuth delegate at its last valid second, the service revoked.
    expect(seen.size).toBeGreaterThanOrEqual(7)
    const at = async (index: number) => (await plain.resolve(`${did}?versionId=${probes[index].block}`)).didDocument!
    expect((await at(3)).verificationMethod!.map((m) => m.id)).toContain(`${did}#delegate-2`)
    expect((await at(5)).verificationMethod!.map((m) => m.id)).not.toContain(`${did}#delegate-2`)
    expect((await at(6)).authentication).toContain(`${did}#delegate-4`)
    expect((await at(7)).service).toBeUndefined()
  })

  it('a versionTime before the chain began, or later than now, and the current document agree', async () => {
    const early = { versionTime: '2001-01-01T00:00:00Z' }
    const before = await expectAgreement(early, early, 0, 'before the chain')
    expect(before.didDocument!.verificationMethod).toHaveLength(1)
    await expectAgreement({}, {}, undefined, 'current')
    // Later than now: the latest block on chain (judged at its time), now on the embedded side;
    // nothing expires between the two here, so the documents agree.
    const later = { versionTime: iso(clock + 3_600_000) }
    await expectAgreement(later, later, await evm.provider.getBlockNumber(), 'later than now')
  })

  it('beyond the latest: notFound on both (a version after the last change; a block after the head)', async () => {
    expect((await resolveWith(embedded, did, { versionId: CHANGES.length + 1 })).didResolutionMetadata.error).toBe('notFound')
    const beyond = (await evm.provider.getBlockNumber()) + 1000
    const reference = await plain.resolve(`${did}?versionId=${beyond}`)
    expect(reference.didResolutionMetadata.error).toBe('notFound')
    expect(await resolveWith(onchain, did, { versionId: beyond })).toEqual(reference)
  })

  it('malformed values are invalidDidUrl on chain too, where ethr-did-resolver alone would read another block', async () => {
    // ethr-did-resolver reads versionId=abc as the latest block, and -1 as the block before the head
    expect((await plain.resolve(`${did}?versionId=abc`)).didResolutionMetadata.error).toBeUndefined()
    for (const version of [
      { versionId: 'abc' },
      { versionId: -1 },
      { versionId: '1.5' },
      { versionTime: 'not a time' },
      { versionId: 1, versionTime: iso(clock) },
    ]) {
      const result = await resolveWith(onchain, did, version)
      expect(result, JSON.stringify(version)).toEqual({
        didResolutionMetadata: { error: 'invalidDidUrl', message: expect.any(String) },
        didDocument: null,
        didDocumentMetadata: {},
      })
    }
  })
})

/**
 * The embedded registry and the real EthereumDIDRegistry contract (on a local EVM), given the
 * same randomized ERC-1056 changes, resolve to the same DID documents — also after validities
 * expire. Document metadata (versionId: event sequence vs block number; updated) differs by
 * nature and is not compared.
 *
 * Every identity is resolved in its three spellings: address, compressed public key (as Veramo
 * makes did:ethr DIDs) and uncompressed public key. Both registries are also held to a plain
 * `ethr-did-resolver` on the same chain: the same document for the address and compressed forms
 * (`#controllerKey` while the key owns itself), and for the uncompressed form — which that
 * resolver refuses — the compressed form's document under the uncompressed DID.
 *
 * The randomized runs (steps and keys) come from one seed, named in a failure's message:
 * `DIDVAULT_DIFFERENTIAL_SEED=<seed>` replays them.
 */
import { randomInt } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import fc from 'fast-check'
import { Resolver } from 'did-resolver'
import { SigningKey, hexlify, toUtf8Bytes } from 'ethers'
import { getResolver } from 'ethr-did-resolver'
import { createMemoryStorage } from '../../src/index.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { EmbeddedRegistry } from '../../src/did/methods/ethr/registry/embedded.js'
import { OnchainRegistry } from '../../src/did/methods/ethr/registry/onchain.js'
import type { DidRegistry, RegistryChange } from '../../src/did/methods/ethr/registry/port.js'
import { NULL_ADDRESS } from '../../src/did/methods/ethr/document.js'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import type { DigestSigner } from '../../src/keys/signer.js'
import { startEvm, type LocalEvm } from '../helpers/evm.js'

let evm: LocalEvm
let embedded: EmbeddedRegistry
let onchain: OnchainRegistry
/** `ethr-did-resolver` as a Veramo agent would configure it, against the same chain and contract. */
let plain: Resolver
let clock = 1_900_000_000_000

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(clock)
  evm = await startEvm()
  const network = { name: 'dev', chainId: evm.chainId, rpcUrl: evm.rpcUrl, registry: evm.registry }
  const storage = createMemoryStorage()
  await storage.init(COLLECTIONS)
  embedded = new EmbeddedRegistry(storage, { name: 'dev', chainId: evm.chainId }, () => Date.now())
  onchain = new OnchainRegistry(network, { gasPayer: evm.gasPayer })
  const networks = [{ name: 'dev', chainId: evm.chainId, rpcUrl: evm.rpcUrl, registry: evm.registry }]
  plain = new Resolver(getResolver({ networks }), { cache: false })
})
afterAll(async () => {
  await evm?.close()
  vi.useRealTimers()
})

function advance(seconds: number) {
  clock += seconds * 1000
  vi.setSystemTime(clock)
}

/** One step of a sequence. Keys and values are picked by index from small pools, so they repeat (revocations hit). */
type Step =
  | { kind: 'owner'; to: number }
  | { kind: 'deactivate' }
  | { kind: 'delegate'; type: number; who: number; validity: number }
  | { kind: 'revokeDelegate'; type: number; who: number }
  | { kind: 'attribute'; name: number; value: number; validity: number }
  | { kind: 'revokeAttribute'; name: number; value: number }
  | { kind: 'wait'; seconds: number }

const DELEGATE_TYPES = ['veriKey', 'sigAuth', 'enc']
const ATTRIBUTES = [
  'did/svc/HubService',
  'did/pub/Secp256k1/veriKey/hex',
  'did/pub/Ed25519/veriKey/base58',
  'did/pub/X25519/enc/base64',
  'did/pub/Secp256k1/sigAuth',
  'did/svc/Messaging',
  'other/attr',
]
const VALUES = [
  hexlify(toUtf8Bytes('https://hub.example.com/x')),
  '0x02b97c30de767f084ce3080168ee293053ba33b235d7116a3263d29f1450936b71',
  hexlify(toUtf8Bytes('{"uri":"https://a.example","accept":["didcomm/v2"]}')),
  '0xdeadbeef',
]

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('owner' as const), to: fc.nat(2) }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'deactivate' as const }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('delegate' as const),
      type: fc.nat(2),
      who: fc.nat(2),
      validity: fc.integer({ min: 1, max: 120 }),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('revokeDelegate' as const), type: fc.nat(2), who: fc.nat(2) }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('attribute' as const),
      name: fc.nat(ATTRIBUTES.length - 1),
      value: fc.nat(VALUES.length - 1),
      validity: fc.integer({ min: 1, max: 120 }),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('revokeAttribute' as const),
      name: fc.nat(ATTRIBUTES.length - 1),
      value: fc.nat(VALUES.length - 1),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('wait' as const), seconds: fc.integer({ min: 0, max: 90 }) }), weight: 3 },
)

async function both(identity: string, change: RegistryChange, owner: DigestSigner) {
  const results = await Promise.allSettled([embedded.apply(identity, change, owner), onchain.apply(identity, change, owner)])
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled'])
}

async function documentsOf(did: string) {
  const [a, b] = await Promise.all([
    new Resolver({ ethr: embedded.resolver }).resolve(did),
    new Resolver({ ethr: onchain.resolver }).resolve(did),
  ])
  return { embedded: a, onchain: b }
}

/** The three spellings of one key's DID on `dev`. */
function spellingsOf(signer: LocalSigner) {
  const uncompressed = `0x${signer.publicKeyHex}`
  return {
    address: `did:ethr:dev:${signer.address}`,
    compressed: `did:ethr:dev:${SigningKey.computePublicKey(uncompressed, true)}`,
    uncompressed: `did:ethr:dev:${uncompressed}`,
  }
}

/** What plain `ethr-did-resolver` answers for `did`; for an uncompressed key, its answer for `compressed` with the DID renamed. */
async function plainDocumentOf(did: string, compressed?: string) {
  if (compressed === undefined) return (await plain.resolve(did)).didDocument
  expect((await plain.resolve(did)).didResolutionMetadata.error).toBe('invalidDid')
  return JSON.parse(JSON.stringify((await plain.resolve(compressed)).didDocument).replaceAll(compressed, did))
}

/** Both registries resolve `did` alike; plain ethr-did-resolver too, unless `plainToo` is false (`compressed`: {@link plainDocumentOf}). */
async function expectSameDocuments(did: string, compressed?: string, plainToo = true) {
  const { embedded: a, onchain: b } = await documentsOf(did)
  expect(b.didResolutionMetadata.error).toBeUndefined()
  expect(a.didDocument).toEqual(b.didDocument)
  expect(a.didResolutionMetadata).toEqual(b.didResolutionMetadata)
  const strip = (m: Record<string, unknown>) => ({ ...m, versionId: m.versionId !== undefined, updated: m.updated !== undefined })
  expect(strip(a.didDocumentMetadata)).toEqual(strip(b.didDocumentMetadata))
  if (plainToo) expect(a.didDocument).toEqual(await plainDocumentOf(did, compressed))
}

/**
 * Every spelling of `signer`'s DID resolves the same on both registries and on plain
 * ethr-did-resolver. `quick`: the address and compressed forms on both registries only (the
 * on-chain registry hands those to ethr-did-resolver as they are; the uncompressed form's
 * document is the compressed one's under another id) — what the randomized steps check between
 * their full checks.
 */
async function expectSameInEverySpelling(signer: LocalSigner, quick = false) {
  const dids = spellingsOf(signer)
  await expectSameDocuments(dids.address, undefined, !quick)
  await expectSameDocuments(dids.compressed, undefined, !quick)
  if (!quick) await expectSameDocuments(dids.uncompressed, dids.compressed)
}

/**
 * A secp256k1 private key drawn by fast-check, so that a seed replays the keys as well as the steps. Unbiased: fast-check
 * favours small integers otherwise, and a key drawn twice would find an earlier run's registry state (see `run`).
 */
const privateKey: fc.Arbitrary<Uint8Array> = fc
  .noBias(fc.bigInt({ min: 1n, max: secp256k1.Point.CURVE().n - 1n }))
  .map((k) => Uint8Array.from(Buffer.from(k.toString(16).padStart(64, '0'), 'hex')))

/**
 * Identities of earlier runs. Both registries outlive a run, so an identity drawn again starts where it was left — after
 * a deactivation, the embedded registry refuses its changes while the contract reads a zero owner as the identity
 * itself — and a run's model (`owner` starts as the identity) would not hold. Such a draw is skipped (`fc.pre`).
 */
const usedIdentities = new Set<string>()

/** A randomized run: its steps, and the identity's key, two other owners' keys and a third delegate's key. */
const scenario = fc.record({
  steps: fc.array(step, { minLength: 1, maxLength: 6 }),
  keys: fc.tuple(privateKey, privateKey, privateKey, privateKey),
})

/**
 * The seed of the randomized runs: `DIDVAULT_DIFFERENTIAL_SEED` replays a failure (its message names the seed), or a
 * fresh one each run.
 */
const SEED = Number(process.env.DIDVAULT_DIFFERENTIAL_SEED ?? randomInt(2 ** 31))

async function run({ steps, keys: [identityKey, ...otherKeys] }: { steps: Step[]; keys: Uint8Array[] }) {
  const identity = new LocalSigner(identityKey)
  fc.pre(!usedIdentities.has(identity.address))
  usedIdentities.add(identity.address)
  const others = [new LocalSigner(otherKeys[0]), new LocalSigner(otherKeys[1])]
  const keys = [identity, ...others]
  const delegates = [others[0].address, others[1].address, new LocalSigner(otherKeys[2]).address]
  let owner: LocalSigner | undefined = identity
  for (const s of steps) {
    if (s.kind === 'wait') {
      advance(s.seconds)
      continue
    }
    if (!owner) continue // deactivated: nobody can change it any more
    if (s.kind === 'owner') {
      await both(identity.address, { op: 'changeOwner', newOwner: keys[s.to].address }, owner)
      owner = keys[s.to]
    } else if (s.kind === 'deactivate') {
      await both(identity.address, { op: 'changeOwner', newOwner: NULL_ADDRESS }, owner)
      owner = undefined
    } else if (s.kind === 'delegate') {
      await both(
        identity.address,
        { op: 'addDelegate', delegateType: DELEGATE_TYPES[s.type], delegate: delegates[s.who], validity: s.validity },
        owner,
      )
    } else if (s.kind === 'revokeDelegate') {
      await both(identity.address, { op: 'revokeDelegate', delegateType: DELEGATE_TYPES[s.type], delegate: delegates[s.who] }, owner)
    } else if (s.kind === 'attribute') {
      await both(identity.address, { op: 'setAttribute', name: ATTRIBUTES[s.name], value: VALUES[s.value], validity: s.validity }, owner)
    } else {
      await both(identity.address, { op: 'revokeAttribute', name: ATTRIBUTES[s.name], value: VALUES[s.value] }, owner)
    }
    await expectSameInEverySpelling(identity, true)
  }
  await expectSameInEverySpelling(identity)
  // Every validity above is ≤ 120 s: past it, everything but the owner has expired on both.
  advance(121)
  await expectSameInEverySpelling(identity)
}

describe('embedded registry vs EthereumDIDRegistry on a local EVM', () => {
  it('an untouched identity resolves the same, in every spelling', async () => {
    await expectSameInEverySpelling(new LocalSigner(generatePrivateKey()))
  })

  it('randomized sequences of owner changes, delegates and attributes resolve to identical documents, before and after expiry', async () => {
    try {
      await fc.assert(fc.asyncProperty(scenario, run), { seed: SEED, numRuns: 20, endOnFailure: true })
    } catch (err) {
      throw new Error(`replay with DIDVAULT_DIFFERENTIAL_SEED=${SEED}: ${(err as Error).message}`, { cause: err })
    }
  }, 240_000)

  it('a delegate and a service show on both while valid, and leave both when they expire', async () => {
    const identity = new LocalSigner(generatePrivateKey())
    const delegate = new LocalSigner(generatePrivateKey()).address
    const did = `did:ethr:dev:${identity.address}`
    await both(identity.address, { op: 'addDelegate', delegateType: 'sigAuth', delegate, validity: 10 }, identity)
    await both(identity.address, { op: 'setAttribute', name: 'did/svc/HubService', value: VALUES[0], validity: 20 }, identity)
    let docs = await documentsOf(did)
    expect(docs.onchain.didDocument!.verificationMethod![1]).toEqual({
      id: `${did}#delegate-1`,
      type: 'EcdsaSecp256k1RecoveryMethod2020',
      controller: did,
      blockchainAccountId: `eip155:1337:${delegate}`,
    })
    expect(docs.onchain.didDocument!.authentication).toEqual([`${did}#controller`, `${did}#delegate-1`])
    expect(docs.onchain.didDocument!.service).toEqual([
      { id: `${did}#service-1`, type: 'HubService', serviceEndpoint: 'https://hub.example.com/x' },
    ])
    await expectSameDocuments(did)
    advance(11)
    docs = await documentsOf(did)
    expect(docs.onchain.didDocument!.verificationMethod).toHaveLength(1)
    expect(docs.onchain.didDocument!.service).toHaveLength(1)
    await expectSameDocuments(did)
    advance(10)
    expect((await documentsOf(did)).onchain.didDocument!.service).toBeUndefined()
    await expectSameDocuments(did)
  })

  it('a public-key DID lists its key as #controllerKey while its address owns it, beside delegates; an owner change removes it', async () => {
    const identity = new LocalSigner(generatePrivateKey())
    const next = new LocalSigner(generatePrivateKey())
    const delegate = new LocalSigner(generatePrivateKey()).address
    const RECOVERY_2020 = 'EcdsaSecp256k1RecoveryMethod2020'
    const { compressed, uncompressed } = spellingsOf(identity)
    const key = compressed.slice('did:ethr:dev:0x'.length)
    await both(identity.address, { op: 'addDelegate', delegateType: 'sigAuth', delegate, validity: 60 }, identity)
    for (const did of [compressed, uncompressed]) {
      const document = (await documentsOf(did)).onchain.didDocument!
      expect(document.verificationMethod!.slice(0, 3)).toEqual([
        { id: `${did}#controller`, type: RECOVERY_2020, controller: did, blockchainAccountId: `eip155:1337:${identity.address}` },
        { id: `${did}#controllerKey`, type: 'EcdsaSecp256k1VerificationKey2019', controller: did, publicKeyHex: key },
        { id: `${did}#delegate-1`, type: RECOVERY_2020, controller: did, blockchainAccountId: `eip155:1337:${delegate}` },
      ])
      expect(document.authentication).toEqual([`${did}#controller`, `${did}#controllerKey`, `${did}#delegate-1`])
      expect(document.assertionMethod).toEqual([`${did}#controller`, `${did}#controllerKey`, `${did}#delegate-1`])
    }
    await expectSameInEverySpelling(identity)
    await both(identity.address, { op: 'changeOwner', newOwner: next.address }, identity)
    const moved = (await documentsOf(compressed)).embedded.didDocument!
    expect(moved.verificationMethod!.map((vm) => vm.id)).toEqual([`${compressed}#controller`, `${compressed}#delegate-1`])
    expect(moved.verificationMethod![0].blockchainAccountId).toBe(`eip155:1337:${next.address}`)
    await expectSameInEverySpelling(identity)
    // Ownership back to the key's own address: the key is listed again.
    await both(identity.address, { op: 'changeOwner', newOwner: identity.address }, next)
    const back = (await documentsOf(compressed)).embedded.didDocument!
    expect(back.verificationMethod!.map((vm) => vm.id)).toContain(`${compressed}#controllerKey`)
    await expectSameInEverySpelling(identity)
  })

  it('a compressed key spelled in uppercase hex is listed as spelled, like ethr-did-resolver does', async () => {
    const identity = new LocalSigner(generatePrivateKey())
    const did = `did:ethr:dev:0x${spellingsOf(identity).compressed.slice('did:ethr:dev:0x'.length).toUpperCase()}`
    await expectSameDocuments(did)
  })

  it('malformed public keys are invalidDid on both registries', async () => {
    const identity = new LocalSigner(generatePrivateKey())
    const key = spellingsOf(identity).compressed.slice('did:ethr:dev:0x'.length)
    const notOnCurve = `02${'ab'.repeat(31)}ac`
    expect(() => SigningKey.computePublicKey(`0x${notOnCurve}`)).toThrow()
    const malformed = [
      `did:ethr:dev:0x${key.slice(2)}`, // 64 hex: a private key's length, not a public key's
      `did:ethr:dev:0x${key}0`, // odd length
      `did:ethr:dev:0x${notOnCurve}`, // 33 bytes, not a point
      `did:ethr:dev:0x04${key.slice(2)}`, // 33 bytes with the uncompressed prefix
      `did:ethr:dev:0x02${identity.publicKeyHex.slice(2)}`, // 65 bytes with a compressed prefix
    ]
    for (const did of malformed) {
      const { embedded: a, onchain: b } = await documentsOf(did)
      expect([did, a.didResolutionMetadata.error, b.didResolutionMetadata.error]).toEqual([did, 'invalidDid', 'invalidDid'])
    }
  })

  it('revoking one delegate twice, later, succeeds on both (ganache estimates the second too low for its gas limit)', async () => {
    // Seed 1924018654's counterexample, fixed: sent with exactly the node's estimate, the second revocation ran out of gas.
    const identity = new LocalSigner(generatePrivateKey())
    const change: RegistryChange = { op: 'revokeDelegate', delegateType: 'enc', delegate: new LocalSigner(generatePrivateKey()).address }
    await both(identity.address, change, identity)
    advance(56)
    await both(identity.address, change, identity)
    await expectSameInEverySpelling(identity)
  })

  it('a deactivated identity: both name the null address as its owner and refuse its own key a change', async () => {
    // The contract reads a zero owner as the identity itself; the on-chain registry reads the deactivation from its history.
    const identity = new LocalSigner(generatePrivateKey())
    await both(identity.address, { op: 'setAttribute', name: 'did/svc/HubService', value: VALUES[0], validity: 60 }, identity)
    await both(identity.address, { op: 'changeOwner', newOwner: NULL_ADDRESS }, identity)
    const registries: DidRegistry[] = [embedded, onchain]
    for (const r of registries) expect(await r.identityOwner(identity.address)).toBe(NULL_ADDRESS)
    const change: RegistryChange = { op: 'setAttribute', name: 'did/svc/HubService', value: VALUES[0], validity: 60 }
    for (const r of registries) await expect(r.apply(identity.address, change, identity)).rejects.toThrow(/not the owner/)
    await expectSameInEverySpelling(identity)
    // An identity that only ever changed attributes is still its own owner on both.
    const other = new LocalSigner(generatePrivateKey())
    await both(other.address, change, other)
    for (const r of registries) expect(await r.identityOwner(other.address)).toBe(other.address)
  })

  it('both refuse a change signed by a key that is not the owner', async () => {
    const identity = new LocalSigner(generatePrivateKey())
    const stranger = new LocalSigner(generatePrivateKey())
    const change: RegistryChange = { op: 'addDelegate', delegateType: 'veriKey', delegate: stranger.address, validity: 60 }
    await expect(embedded.apply(identity.address, change, stranger)).rejects.toThrow(/not the owner/)
    await expect(onchain.apply(identity.address, change, stranger)).rejects.toThrow(/not the owner/)
    const registries: DidRegistry[] = [embedded, onchain]
    for (const r of registries) expect(await r.identityOwner(identity.address)).toBe(identity.address)
  })
})

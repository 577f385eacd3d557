import { describe, expect, it } from 'vitest'
import { computeAddress } from 'ethers'
import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync } from '@scure/bip39'
import { accountNodeOf, deriveWalletKey, generateMnemonic, isValidMnemonic } from '../../src/keys/hd.js'
import { addressOf, LocalSigner, publicKeyOf, recoverPublicKey } from '../../src/keys/secp256k1.js'
import { DEV_NETWORK, ethrDid, normalizeDid, parseEthrDid } from '../../src/did/methods/ethr/ethr.js'
import { Registries, createResolver } from '../../src/did/methods/ethr/registries.js'
import { createMemoryStorage } from '../../src/index.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'

// The well-known development mnemonic of Hardhat/Foundry, with its published first accounts.
const DEV_MNEMONIC = 'test test test test test test test test test test test junk'

describe('BIP44 derivation', () => {
  it("matches the published accounts of the development mnemonic at m/44'/60'/0'/0/i", () => {
    const node = accountNodeOf(DEV_MNEMONIC)
    expect(addressOf(publicKeyOf(deriveWalletKey(node, 0)))).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    expect(addressOf(publicKeyOf(deriveWalletKey(node, 1)))).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8')
    expect(addressOf(publicKeyOf(deriveWalletKey(node, 2)))).toBe('0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC')
  })

  it('the one-step derivation equals @scure/bip32 deriving the full path, for many indexes', () => {
    const m = generateMnemonic(256)
    const node = accountNodeOf(m)
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(m))
    for (const i of [0, 1, 2, 3, 17, 255, 1000, 65_537, 2 ** 31 - 1]) {
      expect(Buffer.from(deriveWalletKey(node, i)).toString('hex')).toBe(
        Buffer.from(root.derive(`m/44'/60'/0'/0/${i}`).privateKey!).toString('hex'),
      )
    }
  })

  it('generates valid 12-word mnemonics and rejects bad indexes', () => {
    const m = generateMnemonic()
    expect(m.split(' ')).toHaveLength(12)
    expect(isValidMnemonic(m)).toBe(true)
    expect(() => deriveWalletKey(accountNodeOf(m), -1)).toThrow(RangeError)
    expect(() => deriveWalletKey(accountNodeOf(m), 2 ** 31)).toThrow(RangeError)
  })
})

describe('secp256k1 signer', () => {
  it('signs digests low-S with a recovery bit that recovers the key', async () => {
    const signer = new LocalSigner(secp256k1.utils.randomSecretKey())
    for (let i = 0; i < 20; i++) {
      const digest = sha256(new TextEncoder().encode(`m${i}`))
      const sig = await signer.sign(digest)
      expect(BigInt('0x' + Buffer.from(sig.s).toString('hex')) <= secp256k1.Point.CURVE().n / 2n).toBe(true)
      expect(Buffer.from(recoverPublicKey(sig, digest)).toString('hex')).toBe(signer.publicKeyHex)
    }
  })
})

describe('did:ethr', () => {
  const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
  it('builds, parses and normalizes DIDs', () => {
    expect(ethrDid(DEV_NETWORK, address.toLowerCase())).toBe(`did:ethr:dev:${address}`)
    expect(ethrDid({ name: 'mainnet', chainId: 1 }, address)).toBe(`did:ethr:${address}`)
    const did = `did:ethr:dev:${address}`
    expect(parseEthrDid(`did:ethr:dev:${address.toLowerCase()}`)).toEqual({ did, principal: did, network: 'dev', address })
    expect(parseEthrDid('did:ethr:dev:0x123')).toBeUndefined()
    expect(parseEthrDid('did:web:example.com')).toBeUndefined()
    expect(normalizeDid('did:web:example.com')).toBe('did:web:example.com')
  })

  it('resolves to the did:ethr default document; unknown networks and bad DIDs are resolution errors', async () => {
    const storage = createMemoryStorage()
    await storage.init(COLLECTIONS)
    const resolver = createResolver(Registries.forNetworks([DEV_NETWORK], storage, Date.now))
    const did = `did:ethr:dev:${address}`
    const res = await resolver.resolve(did)
    expect(res.didDocument).toEqual({
      '@context': [
        'https://www.w3.org/ns/did/v1',
        'https://w3id.org/security/suites/secp256k1recovery-2020/v2',
        'https://w3id.org/security/v3-unstable',
      ],
      id: did,
      verificationMethod: [
        {
          id: `${did}#controller`,
          type: 'EcdsaSecp256k1RecoveryMethod2020',
          controller: did,
          blockchainAccountId: `eip155:1337:${address}`,
        },
      ],
      authentication: [`${did}#controller`],
      assertionMethod: [`${did}#controller`],
    })
    expect((await resolver.resolve(`did:ethr:goerli:${address}`)).didResolutionMetadata.error).toBe('unknownNetwork')
    expect((await resolver.resolve('did:ethr:dev:0x12')).didResolutionMetadata.error).toBe('invalidDid')
  })
})

describe('a private key whose first byte is zero (1 key in 256)', () => {
  it('signs, and the signature recovers its address, as ethers derives it', async () => {
    const key = Uint8Array.from(Buffer.from('00c4a7af8c15033352edbb2ad394d7e20527ed18a1423e0b7c5a57b51f96e10d', 'hex'))
    const signer = new LocalSigner(key)
    expect(signer.address).toBe(computeAddress('0x00c4a7af8c15033352edbb2ad394d7e20527ed18a1423e0b7c5a57b51f96e10d'))
    const digest = sha256(new TextEncoder().encode('didvault'))
    const signature = await signer.sign(digest)
    expect(addressOf(recoverPublicKey(signature, digest))).toBe(signer.address)
    expect(secp256k1.verify(new Uint8Array([...signature.r, ...signature.s]), digest, publicKeyOf(key), { prehash: false })).toBe(true)
  })
})

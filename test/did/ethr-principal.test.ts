/**
 * did:ethr principals: the address form and both public-key forms of one key are one principal
 * (`principalOf`), each spelling is kept as given (`normalizeDid` only checksums addresses), and
 * the request schemas' dependency-free syntax check (`isEthrDidSyntax`) agrees with the parser.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { eip55Address, normalizeDid, parseEthrDid, principalOf } from '../../src/did/methods/ethr/ethr.js'
import { isEthrDidSyntax, isSecp256k1Point } from '../../src/did/methods/ethr/syntax.js'
import { did as didSchema } from '../../src/operations/schemas.js'
import { addressOf, bytesToHex, generatePrivateKey } from '../../src/keys/secp256k1.js'
import { QuorumApprovals } from '../../src/mpc/approvals.js'

function key() {
  const privateKey = generatePrivateKey()
  const compressed = bytesToHex(secp256k1.getPublicKey(privateKey, true))
  const uncompressed = bytesToHex(secp256k1.getPublicKey(privateKey, false))
  return { compressed, uncompressed, address: addressOf(secp256k1.getPublicKey(privateKey, false)) }
}

describe('principalOf', () => {
  it('maps the compressed and uncompressed public-key forms to the address form; other DIDs are their own principal', () => {
    const k = key()
    const principal = `did:ethr:dev:${k.address}`
    const spellings = [k.address, k.address.toLowerCase(), `0x${k.compressed}`, `0x${k.uncompressed}`, `0x${k.compressed.toUpperCase()}`]
    for (const spelling of spellings) expect(principalOf(`did:ethr:dev:${spelling}`)).toBe(principal)
    // mainnet drops its name, in every form
    expect(principalOf(`did:ethr:mainnet:0x${k.compressed}`)).toBe(`did:ethr:${k.address}`)
    expect(principalOf(`did:ethr:0x${k.uncompressed}`)).toBe(`did:ethr:${k.address}`)
    // another network is another principal
    expect(principalOf(`did:ethr:sepolia:0x${k.compressed}`)).toBe(`did:ethr:sepolia:${k.address}`)
    const others = ['did:web:example.com', 'did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme', 'urn:uuid:1', 'did:ethr:dev:0x12']
    for (const other of others) expect(principalOf(other)).toBe(other)
  })

  it('normalizeDid keeps the spelling of a public key and checksums addresses', () => {
    const k = key()
    expect(normalizeDid(`did:ethr:dev:${k.address.toLowerCase()}`)).toBe(`did:ethr:dev:${k.address}`)
    expect(normalizeDid(`did:ethr:dev:0x${k.compressed.toUpperCase()}`)).toBe(`did:ethr:dev:0x${k.compressed.toUpperCase()}`)
    expect(normalizeDid(`did:ethr:mainnet:0x${k.uncompressed}`)).toBe(`did:ethr:0x${k.uncompressed}`)
  })

  it('parses each form: the principal, the address, and the key #controllerKey lists (compressed, as spelled)', () => {
    const k = key()
    const upper = `0x${k.compressed.toUpperCase()}`
    const principal = `did:ethr:dev:${k.address}`
    const byUpper = `did:ethr:dev:${upper}`
    expect(parseEthrDid(byUpper)).toEqual({ did: byUpper, principal, network: 'dev', address: k.address, controllerKey: upper })
    const uncompressed = `did:ethr:dev:0x${k.uncompressed}`
    const controllerKey = `0x${k.compressed}`
    expect(parseEthrDid(uncompressed)).toMatchObject({ did: uncompressed, principal, address: k.address, controllerKey })
    expect(parseEthrDid(`did:ethr:dev:${k.address}`)).not.toHaveProperty('controllerKey')
  })

  it('refuses identifiers that are neither an address nor a secp256k1 public key', () => {
    const k = key()
    let offCurve = `02${'ab'.repeat(32)}`
    while (isSecp256k1Point(offCurve)) offCurve = `02${bytesToHex(crypto.getRandomValues(new Uint8Array(32)))}`
    const malformed = [
      `did:ethr:dev:0x${k.compressed.slice(2)}`, // 64 hex (a private key's length)
      `did:ethr:dev:0x${k.compressed}0`, // 67 hex
      `did:ethr:dev:0x${k.uncompressed.slice(1)}`, // 129 hex
      `did:ethr:dev:0x${offCurve}`, // 33 bytes, not a point
      `did:ethr:dev:0x04${k.compressed.slice(2)}`, // 33 bytes, uncompressed prefix
      `did:ethr:dev:0x02${k.uncompressed.slice(2)}`, // 65 bytes, compressed prefix
      `did:ethr:dev:0x04${k.uncompressed.slice(2, 66)}${'00'.repeat(32)}`, // 65 bytes, wrong y
      `did:ethr:dev:0x02${'ff'.repeat(32)}`, // x ≥ p
      `did:ethr:dev:${k.compressed}`, // no 0x
    ]
    for (const did of malformed) {
      expect(parseEthrDid(did), did).toBeUndefined()
      expect(principalOf(did)).toBe(did)
      expect(isEthrDidSyntax(did), did).toBe(false)
      expect(didSchema.safeParse(did).success, did).toBe(false)
    }
    for (const did of [`did:ethr:dev:0x${k.compressed}`, `did:ethr:dev:0x${k.uncompressed}`, `did:ethr:${k.address}`]) {
      expect(isEthrDidSyntax(did)).toBe(true)
      expect(didSchema.safeParse(did).success).toBe(true)
    }
  })

  it('the dependency-free point check agrees with noble and with the parser on random 33- and 65-byte strings', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.constantFrom('02', '03'), fc.boolean(), (x, prefix, valid) => {
        const hex = valid ? bytesToHex(secp256k1.getPublicKey(generatePrivateKey(), prefix === '02')) : `${prefix}${bytesToHex(x)}`
        let onCurve = true
        try {
          secp256k1.Point.fromBytes(Buffer.from(hex, 'hex'))
        } catch {
          onCurve = false
        }
        expect(isSecp256k1Point(hex)).toBe(onCurve)
        expect(parseEthrDid(`did:ethr:dev:0x${hex}`) !== undefined).toBe(onCurve)
      }),
      { numRuns: 300 },
    )
  })

  it('eip55Address checksums addresses and refuses a wrong checksum or a public key', () => {
    const k = key()
    expect(eip55Address(k.address.toLowerCase())).toBe(k.address)
    expect(eip55Address(`0x${k.address.slice(2).toUpperCase()}`)).toBe(k.address)
    const flipped = k.address.replace(/[a-f]/, (c) => c.toUpperCase())
    // One letter's case changed breaks the checksum, unless it leaves the address all uppercase (a valid spelling, checksum-free).
    if (flipped !== k.address && /[a-f]/.test(flipped.slice(2))) expect(eip55Address(flipped)).toBeUndefined()
    expect(eip55Address(`0x${k.compressed}`)).toBeUndefined()
  })
})

describe('MPC members by principal', () => {
  it('a member is matched in any spelling and given as its policy spells it (policies of earlier releases name keys)', async () => {
    const [a, b] = [key(), key()]
    const members = [`did:ethr:dev:0x${a.compressed}`, `did:ethr:dev:${b.address}`]
    const policy = { groups: [{ name: 'g', requiredApprovals: 2, members }] }
    const request = { action: 'initialize' as const, tenantId: 't', vaultId: 'v', mpcVaultID: 'm', policy }
    const owners = { [`did:ethr:dev:${a.address}`]: a.address, [`did:ethr:dev:${b.address}`]: b.address }
    expect(await new QuorumApprovals().gather(request, { owners })).toEqual(policy.groups[0].members)
    const outOfBand = new QuorumApprovals(() => [`did:ethr:dev:0x${a.uncompressed}`, 'did:web:not-a-member'])
    expect(await outOfBand.gather(request, { owners: { [`did:ethr:dev:${b.address}`]: b.address } })).toEqual(policy.groups[0].members)
    const short = new QuorumApprovals().gather(request, { owners: { [`did:ethr:dev:${a.address}`]: a.address } })
    await expect(short).rejects.toThrow(/1 more approval/)
  })
})

/**
 * The signature memo of DID-auth tokens: a token verified once is accepted again without a
 * second signature check, but only while everything else still holds — its times, and the
 * issuer's current DID document listing the same method with the same key. Owner changes,
 * expired delegates, expired tokens and altered tokens are refused exactly as without it.
 */
import { describe, expect, it } from 'vitest'
import { createJWT } from 'did-jwt'
import { IdentityService, createMemoryStorage, randomMasterKey, staticTenants } from '../../src/index.js'
import { verifyDidAuthProof, type DidAuthOptions } from '../../src/auth/did-auth.js'
import { SignatureMemo } from '../../src/proofs/signature-memo.js'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { PublicKeyDirectory } from '../../src/wallets/public-keys.js'
import { LocalSigner, generatePrivateKey } from '../../src/keys/secp256k1.js'
import { alterPayload } from '../helpers/tokens.js'

const API_KEY = 'memo-test-key-0123456789'
let clock = Date.now()
const storage = createMemoryStorage()
const service = await IdentityService.create({
  storage,
  masterKey: randomMasterKey(),
  tenants: staticTenants({ [API_KEY]: 't' }),
  now: () => clock,
})
const api = service.as({ authorization: API_KEY })
const seconds = () => Math.floor(clock / 1000)

/** Verification options with a memo, and a directory that counts the signature checks it serves. */
function withMemo(memo = new SignatureMemo()) {
  const directory = new PublicKeyDirectory(storage)
  const lookups = { count: 0 }
  const keys = {
    keyFor: (address: string) => {
      lookups.count++
      return directory.keyFor(address)
    },
    keyFromHex: (hex: string) => {
      lookups.count++
      return directory.keyFromHex(hex)
    },
  } as unknown as PublicKeyDirectory
  const options: DidAuthOptions = { resolver: service.resolver, audience: 'didvault', keys, memo, now: () => clock }
  return { options, lookups }
}

const tokenBy = (signer: LocalSigner, did: string, lifetime = 3_600) =>
  createJWT({ iat: seconds(), exp: seconds() + lifetime, aud: 'didvault' }, { issuer: did, signer: didJwtSigner(signer), alg: 'ES256K' })

describe('SignatureMemo on DID-auth tokens', () => {
  it('a token presented again is accepted without a second signature check', async () => {
    const { wallet } = await api.generateWallet({})
    const { jwt } = await api.generateToken({ iss: wallet.did })
    const { options, lookups } = withMemo()
    await expect(verifyDidAuthProof(jwt, options)).resolves.toEqual({ did: wallet.did, address: wallet.ethereumAddress, byOwner: true })
    const afterFirst = lookups.count
    expect(afterFirst).toBeGreaterThan(0)
    await expect(verifyDidAuthProof(jwt, options)).resolves.toEqual({ did: wallet.did, address: wallet.ethereumAddress, byOwner: true })
    expect(lookups.count).toBe(afterFirst)
  })

  it('an altered token is checked, and refused, although its signature was seen', async () => {
    const { wallet } = await api.generateWallet({})
    const { jwt } = await api.generateToken({ iss: wallet.did })
    const { options } = withMemo()
    await verifyDidAuthProof(jwt, options)
    const altered = alterPayload(jwt, (p) => (p.exp = (p.exp as number) + 60))
    await expect(verifyDidAuthProof(altered, options)).rejects.toMatchObject({
      statusCode: 403,
      errorMessage: expect.stringMatching(/signature does not match/),
    })
  })

  it('a remembered token expires like any other', async () => {
    const { wallet } = await api.generateWallet({})
    const { jwt } = await api.generateToken({ iss: wallet.did })
    const { options } = withMemo()
    await verifyDidAuthProof(jwt, options)
    const saved = clock
    try {
      clock += 25 * 3_600_000
      await expect(verifyDidAuthProof(jwt, options)).rejects.toMatchObject({
        statusCode: 403,
        errorMessage: expect.stringMatching(/expired/),
      })
    } finally {
      clock = saved
    }
  })

  it('after an owner change the old owner’s remembered token is refused', async () => {
    const { wallet } = await api.generateWallet({})
    const { wallet: heir } = await api.generateWallet({})
    const { jwt } = await api.generateToken({ iss: wallet.did })
    const { options } = withMemo()
    await verifyDidAuthProof(jwt, options)
    const asOwner = service.as({ authorization: API_KEY, didAuth: jwt })
    await asOwner.configureWallet({ wallet: { did: wallet.did }, walletConfig: { txsInput: [{ newOwner: heir.did }] } })
    await expect(verifyDidAuthProof(jwt, options)).rejects.toMatchObject({
      statusCode: 403,
      errorMessage: expect.stringMatching(/signature does not match/),
    })
  })

  it('a delegate’s remembered token is refused once the delegation has expired', async () => {
    const delegate = new LocalSigner(generatePrivateKey())
    const { wallet } = await api.generateWallet({
      walletConfig: { txsInput: [{ delegate: { address: delegate.address, validity: 60_000 } }] },
    })
    const jwt = await tokenBy(delegate, wallet.did, 23 * 3_600)
    const { options } = withMemo()
    await expect(verifyDidAuthProof(jwt, options)).resolves.toEqual({ did: wallet.did, address: delegate.address, byOwner: false })
    const saved = clock
    try {
      clock += 120_000
      await expect(verifyDidAuthProof(jwt, options)).rejects.toMatchObject({
        statusCode: 403,
        errorMessage: expect.stringMatching(/signature does not match/),
      })
    } finally {
      clock = saved
    }
  })

  it('holds at most maxEntries tokens, forgetting the oldest first', async () => {
    const { wallet } = await api.generateWallet({})
    const [a, b] = [
      (await api.generateToken({ iss: wallet.did })).jwt,
      (await api.generateToken({ iss: wallet.did, expiresIn: 60_000 })).jwt,
    ]
    const { options, lookups } = withMemo(new SignatureMemo(1))
    await verifyDidAuthProof(a, options)
    await verifyDidAuthProof(b, options)
    const seen = lookups.count
    await verifyDidAuthProof(b, options)
    expect(lookups.count).toBe(seen)
    await verifyDidAuthProof(a, options)
    expect(lookups.count).toBeGreaterThan(seen)
  })
})

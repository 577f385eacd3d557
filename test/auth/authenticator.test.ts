import { describe, expect, it } from 'vitest'
import { Authenticator } from '../../src/auth/authenticator.js'
import { walletTenantLookup } from '../../src/wallets/records.js'
import { staticTenants, bearerToken } from '../../src/auth/tenants.js'
import { IdentityService, createMemoryStorage, randomMasterKey, IdentityError } from '../../src/index.js'
import { mintToken } from '../helpers/tokens.js'

async function setup() {
  const storage = createMemoryStorage()
  const tenants = staticTenants({ 'token-a-0123456789': 'a', 'token-b-0123456789': 'b' })
  const service = await IdentityService.create({ storage, masterKey: randomMasterKey(), tenants })
  const auth = new Authenticator(tenants, { resolver: service.resolver, audience: 'didvault' }, walletTenantLookup(storage))
  return { service, storage, auth }
}

describe('Authenticator', () => {
  it("Access Token JWT: a DID-auth JWT of a wallet the service holds; its tenant becomes the caller's", async () => {
    const { service, auth } = await setup()
    const { wallet } = await service.generateWallet({}, { authorization: 'Bearer token-b-0123456789' })
    const token = await service.generateToken({ iss: wallet.did }, { authorization: 'token-b-0123456789' })
    expect(await auth.authenticate({ authorization: `Bearer ${token.jwt}` }, 'access')).toEqual({
      tenantId: 'b',
      dids: [wallet.did],
      addresses: [wallet.ethereumAddress],
      owners: { [wallet.did]: wallet.ethereumAddress },
    })
    // a valid JWT of a DID the service does not hold
    const stranger = await mintToken()
    await expect(auth.authenticate({ authorization: `Bearer ${stranger.jwt}` }, 'access')).rejects.toMatchObject({
      statusCode: 403,
      errorType: 'UNAUTHENTICATED',
    })
    // a Base Auth Token is not an Access Token
    await expect(auth.authenticate({ authorization: 'Bearer token-a-0123456789' }, 'access')).rejects.toBeInstanceOf(IdentityError)
    await expect(auth.authenticate({}, 'access')).rejects.toMatchObject({ statusCode: 403 })
  })

  it('tenant+did needs both headers', async () => {
    const { auth } = await setup()
    const t = await mintToken()
    expect(await auth.authenticate({ authorization: 'token-a-0123456789', didAuth: t.jwt }, 'tenant+did')).toEqual({
      tenantId: 'a',
      dids: [t.did],
      addresses: [t.did.split(':').pop()],
      owners: { [t.did]: t.did.split(':').pop() },
    })
    await expect(auth.authenticate({ authorization: 'token-a-0123456789' }, 'tenant+did')).rejects.toMatchObject({ statusCode: 403 })
    await expect(auth.authenticate({ didAuth: t.jwt }, 'tenant+did')).rejects.toMatchObject({ statusCode: 403 })
  })

  it('bearerToken takes "Bearer x" or a bare token', () => {
    expect(bearerToken('Bearer abc')).toBe('abc')
    expect(bearerToken('bearer   abc ')).toBe('abc')
    expect(bearerToken('abc')).toBe('abc')
    expect(bearerToken('')).toBeUndefined()
    expect(bearerToken(undefined)).toBeUndefined()
  })
})

describe('DID control (facts + policy)', () => {
  const owner = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
  const other = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
  const target = 'did:ethr:dev:0x0000000000000000000000000000000000000001'
  const resolver = {
    resolve: async (did: string) => ({
      didResolutionMetadata: {},
      didDocumentMetadata: {},
      didDocument: {
        id: did,
        verificationMethod: [
          {
            id: `${did}#controller`,
            type: 'EcdsaSecp256k1RecoveryMethod2020',
            controller: did,
            blockchainAccountId: `eip155:1337:${owner}`,
          },
        ],
      },
    }),
  }
  it('follows the key that signed, not an address spelled in a DID', async () => {
    const { CallerFacts } = await import('../../src/roles/caller-facts.js')
    const { walletFacts } = await import('../../src/wallets/access.js')
    const { controlsWallet } = await import('../../src/wallets/policy.js')
    const { createMemoryStorage } = await import('../../src/storage/memory/index.js')
    const { COLLECTIONS } = await import('../../src/service/collections.js')
    const storage = createMemoryStorage()
    await storage.init(COLLECTIONS)
    const facts = new CallerFacts(resolver, storage)
    const wallet = await walletFacts(facts, { did: target })
    const controls = async (dids: string[], addresses: string[]) =>
      controlsWallet(await facts.vaultKeys({ tenantId: 't', dids, addresses }), wallet)
    // proved control of a DID whose address is the owner's, but with another key (e.g. its owner changed on another network)
    expect(await controls([`did:ethr:other:${owner}`], [other])).toBe(false)
    expect(await controls([], [owner])).toBe(true)
    // a token naming the target DID itself but signed by another key (a delegate) gives no owner rights
    expect(await controls([target], [other])).toBe(false)
  })
})

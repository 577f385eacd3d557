/**
 * DID-auth verification follows the registry: tokens signed by `veriKey`/`sigAuth` delegates
 * verify while the delegation is valid (not before, not after expiry or revocation), and after
 * an owner change the new owner's key signs for the DID and the old one no longer does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyDidAuthToken } from '../../src/auth/did-auth.js'
import { createMemoryStorage, IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import type { DidRegistry } from '../../src/did/methods/ethr/registry/port.js'
import { mintToken } from '../helpers/tokens.js'
import { IdentityError, type ErrorBody } from '../../src/errors.js'

let clock = Date.now()
let service: IdentityService
let registry: DidRegistry
beforeAll(async () => {
  service = await IdentityService.create({
    storage: createMemoryStorage(),
    masterKey: randomMasterKey(),
    tenants: staticTenants({}),
    now: () => clock,
  })
  registry = service.registries.forNetwork('dev')!
})
afterAll(() => service.close())

/** How verification refuses a token whose signer is not (or no longer) a key of the issuer DID. */
const NOT_THE_DIDS_KEY: ErrorBody = {
  statusCode: 403,
  errorType: 'UNAUTHENTICATED',
  errorMessage: 'invalid DID-auth token: signature does not match the issuer DID',
}

/**
 * What verification says of a token minted now (by the test's clock) for `iss`, signed by `key`:
 * the DID it authenticates, or the refusal's error body. Anything else thrown fails the test:
 * a crash is not a refusal.
 */
async function verdict(iss: string, key: Uint8Array): Promise<string | ErrorBody> {
  const realNow = Date.now
  Date.now = () => clock // mintToken stamps iat/exp from Date.now
  try {
    const { jwt } = await mintToken({ iss, signerKey: key })
    return await verifyDidAuthToken(jwt, service.didAuthOptions)
  } catch (err) {
    if (err instanceof IdentityError) return err.toJSON()
    throw err
  } finally {
    Date.now = realNow
  }
}

describe('DID-auth verification follows the embedded registry', () => {
  it.each(['veriKey', 'sigAuth'])('a %s delegate signs for the DID while the delegation is valid', async (delegateType) => {
    const ownerKey = generatePrivateKey()
    const owner = new LocalSigner(ownerKey)
    const did = `did:ethr:dev:${owner.address}`
    const delegateKey = generatePrivateKey()
    const delegate = new LocalSigner(delegateKey).address
    expect(await verdict(did, delegateKey)).toEqual(NOT_THE_DIDS_KEY)
    await registry.apply(owner.address, { op: 'addDelegate', delegateType, delegate, validity: 60 }, owner)
    expect(await verdict(did, delegateKey)).toBe(did)
    expect(await verdict(did, ownerKey)).toBe(did)
    clock += 61_000
    expect(await verdict(did, delegateKey)).toEqual(NOT_THE_DIDS_KEY)
    // re-added, then revoked: valid until the end of the revocation's second, as on chain
    await registry.apply(owner.address, { op: 'addDelegate', delegateType, delegate, validity: 60 }, owner)
    expect(await verdict(did, delegateKey)).toBe(did)
    await registry.apply(owner.address, { op: 'revokeDelegate', delegateType, delegate }, owner)
    clock += 1_000
    expect(await verdict(did, delegateKey)).toEqual(NOT_THE_DIDS_KEY)
  })

  it('a delegate of another type (enc) does not sign for the DID', async () => {
    const owner = new LocalSigner(generatePrivateKey())
    const key = generatePrivateKey()
    await registry.apply(
      owner.address,
      { op: 'addDelegate', delegateType: 'enc', delegate: new LocalSigner(key).address, validity: 60 },
      owner,
    )
    expect(await verdict(`did:ethr:dev:${owner.address}`, key)).toEqual(NOT_THE_DIDS_KEY)
  })

  it("after changeOwner the new owner's key signs for the DID and the old key does not", async () => {
    const oldKey = generatePrivateKey()
    const old = new LocalSigner(oldKey)
    const newKey = generatePrivateKey()
    const did = `did:ethr:dev:${old.address}`
    await registry.apply(old.address, { op: 'changeOwner', newOwner: new LocalSigner(newKey).address }, old)
    expect(await verdict(did, oldKey)).toEqual(NOT_THE_DIDS_KEY)
    expect(await verdict(did, newKey)).toBe(did)
    // and only the new owner may change the document now
    await expect(registry.apply(old.address, { op: 'changeOwner', newOwner: old.address }, old)).rejects.toThrow(/not the owner/)
  })
})

/**
 * Interoperability of the JWT credentials didvault signs, with DIDs on a real
 * EthereumDIDRegistry (ganache, in-process): did-jwt-vc's own `verifyCredential` over a plain
 * ethr-did-resolver pointed at the chain — no didvault code on the verifying side — accepts
 * them, including for a DID whose owner was changed (then the new owner's key signs), and
 * refuses what the former owner's key signed. didvault's verify agrees on every one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyCredential } from 'did-jwt-vc'
import { Resolver } from 'did-resolver'
import { getResolver } from 'ethr-did-resolver'
import { startEvm, type LocalEvm } from '../helpers/evm.js'
import { startHarness, walletWithToken, type Harness } from '../helpers/harness.js'

let evm: LocalEvm
let h: Harness
let ethr: Resolver
beforeAll(async () => {
  evm = await startEvm()
  const network = { name: 'dev', chainId: evm.chainId, rpcUrl: evm.rpcUrl, registry: evm.registry }
  h = await startHarness({ storage: 'sqlite', service: { networks: [network], onchain: { dev: { gasPayer: evm.gasPayer } } } })
  ethr = new Resolver(getResolver({ networks: [network] }))
})
afterAll(async () => {
  await h?.close()
  await evm?.close()
})

async function signJwt(iss: string, didAuth: string): Promise<string> {
  const res = await h.request('POST', '/claims/sign', { json: { iss, format: 'JWT', claims: [{ payload: { degree: 'BSc' } }] }, didAuth })
  if (res.status !== 200) throw new Error(JSON.stringify(res.body))
  return res.body.vcs[0].jwt
}

const ourVerdict = async (jwt: string, didAuth: string) =>
  (await h.request('POST', '/claims/verify', { json: { claims: [{ jwt }] }, didAuth })).body.vcs[0].verified

describe('JWT credentials on an on-chain registry, verified by did-jwt-vc over ethr-did-resolver', () => {
  it('a fresh DID: verified, signed by its #controller', async () => {
    const w = await walletWithToken(h)
    const jwt = await signJwt(w.did, w.jwt)
    const verified = await verifyCredential(jwt, ethr)
    expect(verified.verified).toBe(true)
    expect(verified.issuer).toBe(w.did)
    expect(verified.signer.id).toBe(`${w.did}#controller`)
    expect(await ourVerdict(jwt, w.jwt)).toBe(true)
  })

  it('a DID whose owner changed on chain: the new owner signs and verifies; the former owner’s credential no longer does', async () => {
    const moved = await walletWithToken(h)
    const heir = await walletWithToken(h)
    const before = await signJwt(moved.did, moved.jwt)
    await expect(verifyCredential(before, ethr)).resolves.toMatchObject({ verified: true })

    const configured = await h.request('POST', '/wallet/configure', {
      json: { wallet: { did: moved.did }, walletConfig: { txsInput: [{ newOwner: heir.did }] } },
      didAuth: moved.jwt,
    })
    expect(configured.body.wallet.registry.transactions[0].txHash).toMatch(/^0x[0-9a-f]{64}$/)
    const owner = (await ethr.resolve(moved.did)).didDocument!.verificationMethod![0].blockchainAccountId
    expect(owner).toBe(`eip155:${evm.chainId}:${heir.did.split(':').pop()}`)

    const after = await signJwt(moved.did, heir.jwt)
    const verified = await verifyCredential(after, ethr)
    expect(verified.issuer).toBe(moved.did)
    expect(verified.signer.blockchainAccountId).toBe(owner)
    expect(await ourVerdict(after, heir.jwt)).toBe(true)

    await expect(verifyCredential(before, ethr)).rejects.toThrow(/invalid_signature/)
    expect(await ourVerdict(before, heir.jwt)).toBe(false)
  })
})

/**
 * Differential test: the service's JWT verifier and did-jwt's `verifyJWT` accept the same
 * tokens and reject the others for the same class of reason (the service's verifier only
 * differs in speed), with and without the known-key directory. A throw that is not a documented
 * rejection fails the test rather than counting as one.
 */
import { describe, expect, it } from 'vitest'
import { createJWT, verifyJWT } from 'did-jwt'
import { IdentityService, createMemoryStorage, randomMasterKey, staticTenants } from '../../src/index.js'
import { verifyDidJwt } from '../../src/proofs/jwt-verifier.js'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { PublicKeyDirectory } from '../../src/wallets/public-keys.js'
import { LocalSigner, generatePrivateKey } from '../../src/keys/secp256k1.js'
import { DEV_NETWORK, ethrDid } from '../../src/did/methods/ethr/ethr.js'
import { alterPayload, tamper } from '../helpers/tokens.js'
import { didJwtVerdict, ourVerdict, type JwtVerdict } from '../helpers/jwt-verdicts.js'

const storage = createMemoryStorage()
const service = await IdentityService.create({
  storage,
  masterKey: randomMasterKey(),
  tenants: staticTenants({ 'token-0123456789ab': 't' }),
})
const held = (await service.generateWallet({}, { authorization: 'token-0123456789ab' })).wallet
const heldToken = (await service.generateToken({ iss: held.did }, { authorization: 'token-0123456789ab' })).jwt
const now = Math.floor(Date.now() / 1000)

async function sign(payload: Record<string, unknown>, opts: { key?: Uint8Array; iss?: string; alg?: 'ES256K' | 'ES256K-R' } = {}) {
  const signer = new LocalSigner(opts.key ?? generatePrivateKey())
  const iss = opts.iss ?? ethrDid(DEV_NETWORK, signer.address)
  return createJWT({ iat: now, exp: now + 600, ...payload }, { issuer: iss, signer: didJwtSigner(signer), alg: opts.alg ?? 'ES256K-R' })
}

/** [name, the verdict both verifiers must reach, make]. */
const cases: Array<[string, JwtVerdict, () => Promise<string>]> = [
  ['service-issued token of a held wallet', 'accepted', async () => heldToken],
  ['ES256K-R by a stranger', 'accepted', () => sign({ aud: 'didvault' })],
  ['ES256K (no recovery byte) by a stranger', 'accepted', () => sign({}, { alg: 'ES256K' })],
  ['aud as an array naming the service', 'accepted', () => sign({ aud: ['other', 'didvault'] })],
  ['tampered signature', 'signature', async () => tamper(heldToken)],
  ['payload altered', 'signature', async () => alterPayload(heldToken, (p) => (p.sub = `did:ethr:dev:0x${'00'.repeat(19)}01`))],
  ['another key claims the held DID', 'signature', () => sign({}, { iss: held.did })],
  ['another key claims the held DID with ES256K', 'signature', () => sign({}, { iss: held.did, alg: 'ES256K' })],
  ['expired', 'expired', () => sign({ iat: now - 7200, exp: now - 3600 })],
  ['within skew after exp', 'accepted', () => sign({ iat: now - 7200, exp: now - 30 })],
  ['iat in the future', 'not yet valid', () => sign({ iat: now + 600 })],
  ['nbf in the future', 'not yet valid', () => sign({ nbf: now + 600 })],
  ['wrong audience', 'audience', () => sign({ aud: 'someone-else' })],
  ['unknown network', 'issuer', () => sign({}, { iss: 'did:ethr:rinkeby:0x0000000000000000000000000000000000000001' })],
  ['not a did', 'issuer', () => sign({}, { iss: 'alice' })],
  ['garbage', 'malformed', async () => 'a.b.c'],
]

/** did-jwt's verdict: accepted, or the class of its rejection (a crash fails the test). */
function didJwts(jwt: string): Promise<JwtVerdict> {
  return didJwtVerdict(() => verifyJWT(jwt, { resolver: service.resolver, audience: 'didvault', skewTime: 60, policies: { now } }))
}

/** Ours, likewise. */
function ours(jwt: string, keys?: PublicKeyDirectory): Promise<JwtVerdict> {
  return ourVerdict(() => verifyDidJwt(jwt, { resolver: service.resolver, audience: 'didvault', keys, now: now * 1000 }))
}

describe('jwt-verifier agrees with did-jwt verifyJWT', () => {
  it.each(cases)('%s → %s', async (_name, expected, make) => {
    const jwt = await make()
    expect(await didJwts(jwt)).toBe(expected)
    expect(await ours(jwt)).toBe(expected)
    expect(await ours(jwt, new PublicKeyDirectory(storage))).toBe(expected)
  })

  it('stricter than did-jwt where the design asks: exp is required, and iat is checked even with nbf', async () => {
    const key = generatePrivateKey()
    const signer = new LocalSigner(key)
    const iss = ethrDid(DEV_NETWORK, signer.address)
    const withoutExp = await createJWT({ iat: now }, { issuer: iss, signer: didJwtSigner(signer), alg: 'ES256K-R' })
    await expect(verifyDidJwt(withoutExp, { resolver: service.resolver, audience: 'didvault', now: now * 1000 })).rejects.toThrow(
      /no expiry/,
    )
    const both = await createJWT(
      { iat: now + 600, nbf: now - 10, exp: now + 900 },
      { issuer: iss, signer: didJwtSigner(signer), alg: 'ES256K-R' },
    )
    await expect(verifyDidJwt(both, { resolver: service.resolver, audience: 'didvault', now: now * 1000 })).rejects.toThrow(/iat/)
  })

  it('reports which verification method signed', async () => {
    const v = await verifyDidJwt(heldToken, { resolver: service.resolver, audience: 'didvault', keys: new PublicKeyDirectory(storage) })
    expect(v.signer).toBe(`${held.did}#controller`)
    expect(v.issuer).toBe(held.did)
  })
})

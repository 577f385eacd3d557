/**
 * Differential test of ES256 / EdDSA / ES256K tokens of did:key and did:jwk holders: the
 * service's JWT verifier (with the `default` resolver, didvault's own did:key / did:jwk
 * documents) and did-jwt's `verifyJWT` (with independent resolvers: Ceramic's key-did-resolver and
 * Veramo's did:jwk resolver) accept the same tokens and reject the others for the same class of
 * reason.
 */
import { describe, expect, it } from 'vitest'
import { createJWT, verifyJWT } from 'did-jwt'
import { Resolver, type Resolvable } from 'did-resolver'
import KeyDidResolver from 'key-did-resolver'
import { getDidJwkResolver } from '@veramo/did-provider-jwk'
import { ClaimResolvers } from '../../src/did/named-resolvers.js'
import { verifyDidJwt } from '../../src/proofs/jwt-verifier.js'
import { tamper } from '../helpers/tokens.js'
import { didJwtVerdict, ourVerdict, type JwtVerdict } from '../helpers/jwt-verdicts.js'
import { didJwtHolder, type HolderKeyType, type KeyHolder } from '../helpers/key-holders.js'

const nowhere: Resolvable = { resolve: () => Promise.reject(new Error('not a did:key / did:jwk')) }
const ours = new ClaimResolvers(nowhere).get().resolver
const theirs = new Resolver({ ...KeyDidResolver.getResolver(), ...getDidJwkResolver() }, { cache: false })
const now = Math.floor(Date.now() / 1000)

const make = (holder: KeyHolder, payload: Record<string, unknown> = {}, alg: string = holder.alg, iss = holder.did) =>
  createJWT({ iat: now, exp: now + 600, aud: 'didvault', ...payload }, { issuer: iss, signer: holder.signer, alg })

const TYPES: HolderKeyType[] = ['secp256k1', 'P-256', 'Ed25519']
const cases: Array<[string, JwtVerdict, () => Promise<string>]> = []
for (const method of ['key', 'jwk'] as const) {
  for (const type of TYPES) {
    const holder = didJwtHolder(method, type)
    const other = didJwtHolder(method, type)
    const label = `did:${method} ${type} ${holder.alg}`
    const wrongAlg = holder.alg === 'EdDSA' ? 'ES256' : 'EdDSA'
    cases.push(
      [`${label}: valid`, 'accepted', () => make(holder)],
      [`${label}: another key claims the DID`, 'signature', () => make(other, {}, other.alg, holder.did)],
      [`${label}: signed under ${wrongAlg}`, 'signature', () => make(holder, {}, wrongAlg)],
      [`${label}: tampered signature`, 'signature', async () => tamper(await make(holder))],
      [`${label}: expired`, 'expired', () => make(holder, { iat: now - 7200, exp: now - 3600 })],
      [`${label}: wrong audience`, 'audience', () => make(holder, { aud: 'someone-else' })],
    )
  }
}

describe('ES256 / EdDSA / ES256K of did:key and did:jwk: jwt-verifier agrees with did-jwt verifyJWT', () => {
  it.each(cases)('%s → %s', async (_name, expected, build) => {
    const jwt = await build()
    expect(await didJwtVerdict(() => verifyJWT(jwt, { resolver: theirs, audience: 'didvault', skewTime: 60, policies: { now } }))).toBe(
      expected,
    )
    expect(await ourVerdict(() => verifyDidJwt(jwt, { resolver: ours, audience: 'didvault', now: now * 1000 }))).toBe(expected)
  })
})

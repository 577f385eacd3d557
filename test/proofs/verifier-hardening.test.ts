/** Hardening of DID-auth verification found in review: forged key rows, token lifetime, malformed keys, header parsing. */
import { describe, expect, it } from 'vitest'
import { createJWT } from 'did-jwt'
import { Resolver } from 'did-resolver'
import { createMemoryStorage, randomMasterKey, staticTenants, IdentityService } from '../../src/index.js'
import { verifyDidJwt } from '../../src/proofs/jwt-verifier.js'
import { verifyDidAuthToken } from '../../src/auth/did-auth.js'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { PublicKeyDirectory } from '../../src/wallets/public-keys.js'
import { LocalSigner, generatePrivateKey } from '../../src/keys/secp256k1.js'
import { bearerToken } from '../../src/auth/tenants.js'
import { DEV_NETWORK, ethrDid } from '../../src/did/methods/ethr/ethr.js'

const now = Math.floor(Date.now() / 1000)

describe('DID-auth verification hardening', () => {
  it('a stored row whose public key does not hash to its address never vouches for that address', async () => {
    const storage = createMemoryStorage()
    const service = await IdentityService.create({
      storage,
      masterKey: randomMasterKey(),
      tenants: staticTenants({ 'token-a-0123456789': 'a' }),
    })
    const { wallet } = await service.generateWallet({}, { authorization: 'token-a-0123456789' })
    const attacker = new LocalSigner(generatePrivateKey())
    // a forged row in another tenant: the victim's address with the attacker's key
    await storage.collection('wallets').insert({
      id: 'forged',
      tenantId: 'b',
      did: 'did:ethr:dev:forged',
      ethereumAddress: wallet.ethereumAddress,
      publicKeyHex: attacker.publicKeyHex,
      alias: 'x',
      createdAt: 1,
    })
    const directory = new PublicKeyDirectory(storage)
    const token = await createJWT({ iat: now, exp: now + 600 }, { issuer: wallet.did, signer: didJwtSigner(attacker), alg: 'ES256K-R' })
    await expect(verifyDidJwt(token, { resolver: service.resolver, audience: 'didvault', keys: directory })).rejects.toThrow(/signature/)
    expect(await directory.keyFor(wallet.ethereumAddress!)).toBeUndefined()
  })

  it('an iss that is a DID URL (version query, path, fragment, params) is refused, so no past document can vouch', async () => {
    const storage = createMemoryStorage()
    const service = await IdentityService.create({
      storage,
      masterKey: randomMasterKey(),
      tenants: staticTenants({ 'token-a-0123456789': 'a' }),
    })
    const signer = new LocalSigner(generatePrivateKey())
    const did = ethrDid(DEV_NETWORK, signer.address)
    const options = { resolver: service.resolver, audience: 'didvault' }
    const sign = (iss: string) => createJWT({ iat: now, exp: now + 600 }, { issuer: iss, signer: didJwtSigner(signer), alg: 'ES256K-R' })
    expect(await verifyDidAuthToken(await sign(did), options)).toBe(did)
    for (const iss of [
      `${did}?versionId=0`,
      `${did}?versionTime=2020-01-01T00:00:00Z`,
      `${did};versionId=0`,
      `${did}/path`,
      `${did}#controller`,
      `${did}:`,
      'did:ethr:',
      'not-a-did',
    ]) {
      await expect(verifyDidAuthToken(await sign(iss), options), iss).rejects.toMatchObject({
        statusCode: 403,
        errorMessage: expect.stringMatching(/must be a DID|could not be resolved/),
      })
    }
  })

  it('tokens living longer than the cap (default 24 h) or without iat are rejected', async () => {
    const storage = createMemoryStorage()
    const service = await IdentityService.create({
      storage,
      masterKey: randomMasterKey(),
      tenants: staticTenants({ 'token-a-0123456789': 'a' }),
    })
    const signer = new LocalSigner(generatePrivateKey())
    const iss = ethrDid(DEV_NETWORK, signer.address)
    const sign = (payload: Record<string, unknown>) => createJWT(payload, { issuer: iss, signer: didJwtSigner(signer), alg: 'ES256K-R' })
    const options = { resolver: service.resolver, audience: 'didvault' }
    expect(await verifyDidAuthToken(await sign({ iat: now, exp: now + 24 * 3600 }), options)).toBe(iss)
    await expect(verifyDidAuthToken(await sign({ iat: now, exp: now + 10 * 365 * 24 * 3600 }), options)).rejects.toMatchObject({
      statusCode: 403,
      errorMessage: expect.stringMatching(/lifetime/),
    })
    const withoutIat = await sign({ iat: undefined, exp: now + 600 })
    expect(JSON.parse(Buffer.from(withoutIat.split('.')[1], 'base64url').toString())).not.toHaveProperty('iat')
    await expect(verifyDidAuthToken(withoutIat, options)).rejects.toMatchObject({
      statusCode: 403,
      errorMessage: expect.stringMatching(/iat/),
    })
  })

  it('a malformed publicKeyHex in a resolved document is skipped, not a 500', async () => {
    const signer = new LocalSigner(generatePrivateKey())
    const did = 'did:example:broken'
    const resolver = new Resolver({
      example: async () => ({
        didResolutionMetadata: {},
        didDocumentMetadata: {},
        didDocument: {
          id: did,
          verificationMethod: [
            { id: `${did}#bad`, type: 'EcdsaSecp256k1VerificationKey2019', controller: did, publicKeyHex: '04zz' },
            { id: `${did}#good`, type: 'EcdsaSecp256k1VerificationKey2019', controller: did, publicKeyHex: signer.publicKeyHex },
          ],
        },
      }),
    })
    const token = await createJWT({ iat: now, exp: now + 600 }, { issuer: did, signer: didJwtSigner(signer), alg: 'ES256K' })
    const v = await verifyDidJwt(token, { resolver, audience: 'didvault' })
    expect(v.signer).toBe(`${did}#good`)
    const other = await createJWT(
      { iat: now, exp: now + 600 },
      { issuer: did, signer: didJwtSigner(new LocalSigner(generatePrivateKey())), alg: 'ES256K' },
    )
    await expect(verifyDidJwt(other, { resolver, audience: 'didvault' })).rejects.toThrow(/signature/)
  })

  it('Authorization parsing: no pattern runs over the cap; under it, one anchored fixed-width pattern', () => {
    // Within the cap (16 KiB): the input that made the old, quadratic regex take ~480 ms (bench: authorizationParsing).
    const hostile = `Bearer ${' \n'.repeat(8_000)}x`
    expect(hostile.length).toBeLessThan(16 * 1024)
    const parsed = regexRuns(() => bearerToken(hostile))
    expect(parsed.result).toBe('x')
    expect(parsed.runs.length).toBeLessThanOrEqual(1)
    for (const run of parsed.runs) expect(isAnchoredFixedWidth(run.source), run.source).toBe(true)
    expect(regexRuns(() => bearerToken('a'.repeat(16_000))).runs.every((run) => isAnchoredFixedWidth(run.source))).toBe(true)
    // Over the cap: refused on its length, before any pattern runs.
    for (const over of [`Bearer ${' \n'.repeat(20_000)}x`, 'x'.repeat(20_000)]) {
      const refused = regexRuns(() => bearerToken(over))
      expect(refused.result).toBeUndefined()
      expect(refused.runs).toEqual([])
    }
  })
})

/** The regular expressions run while `fn` runs (every run of a pattern goes through `RegExp.prototype.exec`). */
function regexRuns<T>(fn: () => T): { result: T; runs: Array<{ source: string }> } {
  const exec = RegExp.prototype.exec
  const runs: Array<{ source: string }> = []
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    runs.push({ source: this.source })
    return exec.call(this, input)
  }
  try {
    return { result: fn(), runs }
  } finally {
    RegExp.prototype.exec = exec
  }
}

/** Anchored at the start, with no quantifier or back-reference: it reads at most as many characters as it names, whatever the input. */
function isAnchoredFixedWidth(source: string): boolean {
  return source.startsWith('^') && !/[*+?{|]|\\\d/.test(source.replace(/\\[^\d]/g, ''))
}

/**
 * What did:key and did:jwk holders sign, made by did-jwt / did-jwt-vc and by Veramo 7's did:key
 * and did:jwk providers, through the router on loopback HTTP: their DID-auth tokens authenticate
 * (ES256K, ES256, EdDSA) and prove control of their DID (its document's `authentication` key
 * signed), their VC-JWTs verify (Verify Claim) and store (Create Claim with `verify: true`;
 * `storedBy` the holder; stored again, the same record; an ES256 high-S twin, too). Forged tokens — another key naming the DID, an algorithm the key does not
 * sign with, `alg: none`, a did:key whose key did not sign — are 403 UNAUTHENTICATED, and a
 * forged VC-JWT is refused; nothing is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createJWT, decodeJWT } from 'did-jwt'
import { expectError, snapshot, startHarness, type Harness } from '../helpers/harness.js'
import { didJwtHolder, veramoHolder, type KeyHolder } from '../helpers/key-holders.js'

let h: Harness
const holders: KeyHolder[] = []

beforeAll(async () => {
  h = await startHarness()
  for (const method of ['key', 'jwk'] as const)
    for (const type of ['secp256k1', 'P-256', 'Ed25519'] as const) holders.push(didJwtHolder(method, type))
  holders.push(
    await veramoHolder('key', 'secp256k1'),
    await veramoHolder('key', 'Ed25519'),
    await veramoHolder('jwk', 'secp256k1'),
    await veramoHolder('jwk', 'P-256'),
    await veramoHolder('jwk', 'Ed25519'),
  )
}, 60_000)
afterAll(() => h?.close())

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('did:key and did:jwk holders (did-jwt-vc, Veramo 7)', () => {
  it('each holder’s VC-JWT verifies and stores, for a caller authenticated by the holder’s own DID-auth token', async () => {
    for (const holder of holders) {
      const jwt = await holder.issue()
      expect(decodeJWT(jwt).header.alg, holder.label).toBe(holder.alg)
      const didAuth = await holder.token()
      const verified = await h.request('POST', '/claims/verify', { json: { vcs: [{ jwt }] }, didAuth })
      expect(verified.status, `${holder.label}: ${JSON.stringify(verified.body)}`).toBe(200)
      expect(verified.body.vcs[0], holder.label).toMatchObject({ verified: true, issuer: holder.did })
      const stored = await h.request('POST', '/claims', { json: { verify: true, claims: [{ jwt }] }, didAuth })
      expect(stored.status, `${holder.label}: ${JSON.stringify(stored.body)}`).toBe(200)
      // The holder stored it: storedBy names its DID, and storing it again is the same record.
      expect(stored.body.vcs[0].storedBy, holder.label).toEqual([holder.did])
      const again = await h.request('POST', '/claims', { json: { claims: [{ jwt }] }, didAuth })
      expect(again.status, `${holder.label}: ${JSON.stringify(again.body)}`).toBe(200)
      expect(again.body.vcs[0]._id, holder.label).toBe(stored.body.vcs[0]._id)
      expect(stored.body.errors, holder.label).toEqual([])
      expect(stored.body.vcs[0], holder.label).toMatchObject({ jwt, issuer: holder.did })
      expect(await h.storage.collection('credentials').get(stored.body.vcs[0]._id as string), holder.label).toMatchObject({
        issuer: holder.did,
      })
    }
  })

  it('forged DID-auth tokens are 403 UNAUTHENTICATED with the error body; nothing is written', async () => {
    const before = await snapshot(h)
    for (const holder of holders) {
      const other = holders.find((o) => o !== holder && o.alg === holder.alg)!
      const now = Math.floor(Date.now() / 1000)
      const payload = { iat: now, exp: now + 600, aud: 'didvault' }
      // Another key of the same type signs a token naming the holder's DID (a did:key / did:jwk whose key did not sign).
      const wrongKey = await other.token({ iss: holder.did })
      // The holder's own signature under an algorithm its key does not sign with.
      const mismatch = await createJWT(payload, {
        issuer: holder.did,
        signer: holder.signer,
        alg: holder.alg === 'EdDSA' ? 'ES256' : 'EdDSA',
      })
      const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...payload, iss: holder.did })}.`
      const unsigned = `${b64({ alg: holder.alg, typ: 'JWT' })}.${b64({ ...payload, iss: holder.did })}.${'A'.repeat(86)}`
      for (const [name, didAuth] of Object.entries({ wrongKey, mismatch, none, unsigned })) {
        const res = await h.request('POST', '/claims', { json: { claims: [{ jwt: await holder.issue() }] }, didAuth })
        try {
          expectError(res, 403, 'UNAUTHENTICATED')
        } catch (err) {
          throw new Error(`${holder.label} ${name}: ${(err as Error).message}`)
        }
      }
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('the high-S twin of an ES256 VC-JWT, (r, n − s), verifies and is the same stored record, not a second credential', async () => {
    const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n
    const holder = holders.find((o) => o.alg === 'ES256')!
    const didAuth = await holder.token()
    const jwt = await holder.issue()
    const [header, payload, signature] = jwt.split('.')
    const bytes = Buffer.from(signature, 'base64url')
    const s = BigInt(`0x${bytes.subarray(32).toString('hex')}`)
    const twinS = Buffer.from((P256_N - s).toString(16).padStart(64, '0'), 'hex')
    const twin = `${header}.${payload}.${Buffer.concat([bytes.subarray(0, 32), twinS]).toString('base64url')}`
    const first = await h.request('POST', '/claims', { json: { verify: true, claims: [{ jwt }] }, didAuth })
    const second = await h.request('POST', '/claims', { json: { verify: true, claims: [{ jwt: twin }] }, didAuth })
    expect(second.status, JSON.stringify(second.body)).toBe(200)
    expect(second.body.errors).toEqual([])
    expect(second.body.vcs[0]._id).toBe(first.body.vcs[0]._id)
  })

  it('a VC-JWT naming a holder as issuer but signed by another key does not verify and is not stored (an element of errors)', async () => {
    const [holder, other] = [holders[1], holders.find((o) => o !== holders[1] && o.alg === holders[1].alg)!]
    const genuine = decodeJWT(await holder.issue())
    const forged = await createJWT(genuine.payload, { issuer: holder.did, signer: other.signer, alg: holder.alg })
    const didAuth = await holder.token()
    const verified = await h.request('POST', '/claims/verify', { json: { vcs: [{ jwt: forged }] }, didAuth })
    expect(verified.status).toBe(200)
    expect(verified.body.vcs[0]).toMatchObject({ verified: false })
    const before = await snapshot(h)
    const stored = await h.request('POST', '/claims', { json: { verify: true, claims: [{ jwt: forged }] }, didAuth })
    // An invalid credential is an element of `errors` (the operation's contract), not stored.
    expect(stored.status).toBe(200)
    expect(stored.body.vcs).toEqual([])
    expect(stored.body.errors).toHaveLength(1)
    expect(await snapshot(h)).toEqual(before)
  })
})

/**
 * The Data Integrity library steps of ecdsa-sd-2023 (base proof, derivation, verification), the JCS cryptosuites and
 * P-384 run as tasks of the service's worker pool when the hasher is the pool's (counted by its `stats()`), under its
 * deadline and tenants' caps; the one signature of a signing step is asked of the key port in this thread, and what is
 * posted to the workers carries no private key.
 */
import { generateKeyPairSync } from 'node:crypto'
import { MessagePort } from 'node:worker_threads'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { DIDDocument } from 'did-resolver'
import { verifyJsonLdCredential } from '../../../src/credentials/formats/jsonld/verify.js'
import { IdentityError } from '../../../src/errors.js'
import type { KeySigner } from '../../../src/keys/signer.js'
import { ecdsaJcs2019, ecdsaRdfc2019, ecdsaSd2023, eddsaJcs2022 } from '../../../src/proofs/data-integrity/index.js'
import { DEFAULT_JSONLD_LIMITS } from '../../../src/proofs/jsonld/bounds.js'
import { CanonicalizationPool } from '../../../src/proofs/jsonld/canonicalization-pool.js'
import { CREDENTIALS_V2_URL, registerContext, UNDEFINED_TERMS_V2_URL } from '../../../src/proofs/jsonld/contexts.js'
import { didKeyDocumentOf, loadW3cProofVectors, W3C_DI_CONTEXTS, w3cVectorKeys } from '../../helpers/w3c-di-vectors.js'
import { fixedResolver, openSealedKeys, portIdentity, resolver } from './helpers.js'

for (const [url, context] of W3C_DI_CONTEXTS) registerContext(url, context)

let port: Awaited<ReturnType<typeof openSealedKeys>>
beforeAll(async () => {
  port = await openSealedKeys()
})
afterAll(() => port.close())

const credential = (issuer: string, subject: Record<string, unknown>) => ({
  '@context': [CREDENTIALS_V2_URL, UNDEFINED_TERMS_V2_URL],
  type: ['VerifiableCredential'],
  issuer,
  validFrom: '2026-01-01T00:00:00Z',
  credentialSubject: { id: 'did:example:holder', ...subject },
})

/** `signer`, counting the signatures it is asked for. */
function counting(signer: KeySigner): KeySigner & { calls: number } {
  const counted = { ...signer, calls: 0 }
  counted.sign = (alg, data) => (counted.calls++, signer.sign(alg, data))
  return counted
}

const assertion = { resolver, proofPurpose: 'assertionMethod' } as const

describe('Data Integrity steps in the pool (every step sent to a worker)', () => {
  const pool = new CanonicalizationPool({ threads: 1, inlineMaxNodes: 0 })
  const hasher = pool.hasherFor('tenant-a', DEFAULT_JSONLD_LIMITS)
  afterAll(() => pool.close())
  const steps = () => pool.stats().dataIntegritySteps

  it('ecdsa-sd-2023: the base proof, the derivation and the verification are each one worker task; one signature by the key port', async () => {
    const identity = await portIdentity(port.keys, 'P-256')
    const signer = counting(identity.signer)
    const unsigned = credential(identity.did, { name: 'Alice', age: 42 })
    const before = steps()
    const base = await ecdsaSd2023.sign(unsigned, signer, {
      verificationMethod: identity.verificationMethod,
      mandatoryPointers: ['/issuer'],
      hasher,
    })
    expect(steps()).toBe(before + 1)
    expect(signer.calls).toBe(1)
    const derived = await ecdsaSd2023.derive(base, ['/credentialSubject/name'], { hasher })
    expect(steps()).toBe(before + 2)
    expect(derived.credentialSubject).toEqual({ id: 'did:example:holder', name: 'Alice' })
    const verified = await ecdsaSd2023.verify(derived, derived.proof as Record<string, unknown>, { ...assertion, hasher })
    expect(verified).toMatchObject({ verified: true, controller: identity.did })
    expect(steps()).toBe(before + 3)
    const changed = { ...derived, credentialSubject: { name: 'Mallory' } }
    expect(await ecdsaSd2023.verify(changed, changed.proof as Record<string, unknown>, { ...assertion, hasher })).toMatchObject({
      verified: false,
      check: 'signature',
    })
    expect(pool.stats()).toMatchObject({ dataIntegritySteps: before + 4, timedOut: 0, running: 0 })
  })

  for (const [suite, keyType] of [
    [ecdsaJcs2019, 'P-256'],
    [eddsaJcs2022, 'Ed25519'],
  ] as const) {
    it(`${suite.cryptosuite}: sign and verify run in the worker; the key port signs once`, async () => {
      const identity = await portIdentity(port.keys, keyType)
      const signer = counting(identity.signer)
      const before = steps()
      const signed = await suite.sign(credential(identity.did, { name: keyType }), signer, {
        verificationMethod: identity.verificationMethod,
        hasher,
      })
      expect(signer.calls).toBe(1)
      expect(await suite.verify(signed, signed.proof as Record<string, unknown>, { ...assertion, hasher })).toMatchObject({
        verified: true,
      })
      expect(steps()).toBe(before + 2)
    })
  }

  it('P-384 (ecdsa-rdfc-2019 and ecdsa-jcs-2019 W3C vectors) verifies in the worker, with the contexts registered here', async () => {
    const vectors = loadW3cProofVectors().filter((v) => v.keyPair.curve === 'P-384' && !v.cryptosuite.startsWith('ecdsa-sd'))
    expect(vectors.length).toBeGreaterThan(0)
    const vectorResolver = fixedResolver(w3cVectorKeys().map((key) => didKeyDocumentOf(key) as unknown as DIDDocument))
    for (const vector of vectors) {
      const before = steps()
      const suite = vector.cryptosuite === 'ecdsa-jcs-2019' ? ecdsaJcs2019 : ecdsaRdfc2019
      const document = vector.signed as Record<string, unknown>
      const outcome = await suite.verify(document, document.proof as Record<string, unknown>, {
        resolver: vectorResolver,
        proofPurpose: 'assertionMethod',
        hasher,
      })
      expect(outcome, vector.name).toMatchObject({ verified: true })
      expect(steps()).toBeGreaterThan(before)
    }
  })

  it('the key port’s failure reaches the caller unchanged', async () => {
    const identity = await portIdentity(port.keys, 'P-256')
    const refusal = new IdentityError('SERVICE_UNAVAILABLE', 'the key store is unavailable')
    const refusing: KeySigner = { ...identity.signer, sign: () => Promise.reject(refusal) }
    const unsigned = credential(identity.did, { name: 'refused' })
    await expect(ecdsaSd2023.sign(unsigned, refusing, { verificationMethod: identity.verificationMethod, hasher })).rejects.toBe(refusal)
  })

  it('what is posted to the workers holds no private key: the worker asks for a signature, the key port signs here', async () => {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })
    const signer = await port.importJwk(jwk)
    const did = 'did:example:issuer'
    const posted: string[] = []
    const asText = (value: unknown) =>
      JSON.stringify(value, (_key, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64url') : v))
    const real = MessagePort.prototype.postMessage
    const watch = vi.spyOn(MessagePort.prototype, 'postMessage').mockImplementation(function (this: MessagePort, ...args) {
      posted.push(asText(args[0]))
      return real.apply(this, args)
    })
    try {
      await ecdsaSd2023.sign(credential(did, { name: 'posted' }), signer, { verificationMethod: `${did}#key-1`, hasher })
    } finally {
      watch.mockRestore()
    }
    const all = posted.join('\n')
    // The spy saw the task (its document) and the signature answer.
    expect(all).toContain('"name":"posted"')
    expect(all).toContain('"signature"')
    expect(jwk.d).toMatch(/^[\w-]{43}$/)
    expect(all).not.toContain(jwk.d)
    expect(all).not.toMatch(/"d":/)
  })
})

describe('the inlineMaxNodes rule for Data Integrity steps', () => {
  const pool = new CanonicalizationPool({ threads: 1, inlineMaxNodes: 64 })
  const hasher = pool.hasherFor('tenant-a', DEFAULT_JSONLD_LIMITS)
  afterAll(() => pool.close())

  it('a small JCS step runs in this thread; an ecdsa-sd-2023 step always goes to a worker', async () => {
    const identity = await portIdentity(port.keys, 'P-256')
    const options = { verificationMethod: identity.verificationMethod, hasher }
    const before = pool.stats()
    await ecdsaJcs2019.sign(credential(identity.did, { name: 'small' }), identity.signer, options)
    expect(pool.stats()).toMatchObject({ inline: before.inline + 1, dataIntegritySteps: before.dataIntegritySteps })
    await ecdsaSd2023.sign(credential(identity.did, { name: 'small' }), identity.signer, options)
    expect(pool.stats()).toMatchObject({ inline: before.inline + 1, dataIntegritySteps: before.dataIntegritySteps + 1 })
  })
})

describe('the deadline', () => {
  const DEADLINE_MS = 1_000
  const limits = { ...DEFAULT_JSONLD_LIMITS, maxNodes: 100_000 }
  const pool = new CanonicalizationPool({ threads: 2, perTenant: 1, deadlineMs: DEADLINE_MS, inlineMaxNodes: 0 })
  const tenantA = pool.hasherFor('tenant-a', limits)
  const tenantB = pool.hasherFor('tenant-b', limits)
  afterAll(() => pool.close())

  let identity: Awaited<ReturnType<typeof portIdentity>>
  beforeAll(async () => {
    identity = await portIdentity(port.keys, 'P-256')
    // Both workers started and warm (the libraries loaded): tenants A and B each sign once, at the same time.
    const small = credential(identity.did, { name: 'warm' })
    const sign = (hasher: typeof tenantA) =>
      ecdsaSd2023.sign(small, identity.signer, { verificationMethod: identity.verificationMethod, hasher })
    await Promise.all([sign(tenantA), sign(tenantB)])
  })

  /** About 60,000 statements: far past the deadline in any worker. */
  const heavy = (issuer: string) =>
    credential(issuer, {
      items: Array.from({ length: 60 }, (_, k) => ({ nums: Array.from({ length: 1_000 }, (_, i) => k * 1_000 + i) })),
    })
  const deadlineMessage = new RegExp(`deadline of ${DEADLINE_MS} ms`)

  it('an sd base proof past the deadline fails alone with a 422 naming it; another tenant’s is answered; no signature asked', async () => {
    const signer = counting(identity.signer)
    const { verificationMethod } = identity
    const before = pool.stats()
    const slow = ecdsaSd2023.sign(heavy(identity.did), signer, { verificationMethod, hasher: tenantA, limits })
    const quick = ecdsaSd2023.sign(credential(identity.did, { name: 'B' }), identity.signer, { verificationMethod, hasher: tenantB })
    await expect(quick).resolves.toHaveProperty('proof')
    await expect(slow).rejects.toMatchObject({
      statusCode: 422,
      errorType: 'VALIDATION_ERROR',
      message: expect.stringMatching(deadlineMessage),
    })
    expect(signer.calls).toBe(0)
    expect(pool.stats()).toMatchObject({ timedOut: before.timedOut + 1, running: 0, waiting: 0 })
  })

  it('a verification past the deadline is the check `deadline` (P-384 in the pool; P-256 rdfc through the hasher, and as a credential)', async () => {
    const p384 = w3cVectorKeys().find((key) => key.curve === 'P-384')!
    const p384Resolver = fixedResolver([didKeyDocumentOf(p384) as unknown as DIDDocument])
    const p384Method = (didKeyDocumentOf(p384) as unknown as DIDDocument).assertionMethod![0] as string
    for (const [issuer, method, methodResolver] of [
      [identity.did, identity.verificationMethod, resolver],
      [p384Method.split('#')[0], p384Method, p384Resolver],
    ] as const) {
      const proof = {
        type: 'DataIntegrityProof',
        cryptosuite: 'ecdsa-rdfc-2019',
        created: '2026-01-01T00:00:00Z',
        verificationMethod: method,
        proofPurpose: 'assertionMethod',
        proofValue: 'z'.padEnd(88, '1'),
      }
      const document = { ...heavy(issuer), proof }
      const outcome = await ecdsaRdfc2019.verify(document, proof, {
        resolver: methodResolver,
        proofPurpose: 'assertionMethod',
        limits,
        hasher: tenantA,
      })
      expect(outcome, method).toMatchObject({ verified: false, check: 'deadline', message: expect.stringMatching(deadlineMessage) })
    }
    const document = {
      ...heavy(identity.did),
      proof: {
        type: 'DataIntegrityProof',
        cryptosuite: 'ecdsa-rdfc-2019',
        created: '2026-01-01T00:00:00Z',
        verificationMethod: identity.verificationMethod,
        proofPurpose: 'assertionMethod',
        proofValue: 'z'.padEnd(88, '1'),
      },
    }
    const verification = await verifyJsonLdCredential(document, { resolver, now: Date.now(), hasher: tenantA })
    expect(verification).toMatchObject({ verified: false, checks: [{ check: 'deadline', verified: false }] })
  })
})

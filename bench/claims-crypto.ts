/**
 * Signing and verifying credentials through the service (`signClaims`, `verifyClaims`), each
 * measured interleaved with its raw floor in the same run (issue 10, *Performance*):
 *
 * - JWT sign vs did-jwt-vc's own `createVerifiableCredentialJwt` with a local key signing through
 *   the SDK's primitive (noble-curves 2, whose secret multiplications are blinded), the target's
 *   floor; and, for information, vs the same call with did-jwt's `ES256KSigner` (noble-curves 1,
 *   no blinding), the fastest raw path;
 * - JWT verify (did:ethr issuer on the embedded registry), signed by the owner and by a
 *   `veriKey` delegate key the service generated, vs raw OpenSSL ES256K verify;
 * - JSON-LD sign and verify, per suite, vs "two canonicalizations + one sign or verify" (the
 *   document and the proof options canonicalized, jsonld directly, then a noble sign or an
 *   OpenSSL verify). Every measured call canonicalizes documents it has not seen: the signed
 *   credentials differ (id, nonce), and the verified ones are a pool larger than the
 *   canonical-hash cache, cycled through. These credentials are small enough to be
 *   canonicalized inline (`jsonldWorkers.inlineMaxNodes`); `benchJsonLdPoolOnly` measures the
 *   same pairs with every canonicalization handed to the worker pool.
 */
import { randomUUID } from 'node:crypto'
import { ES256KSigner } from 'did-jwt'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import { sha256 } from '@noble/hashes/sha2.js'
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { IdentityService, staticTenants } from '../src/index.js'
import type { BoundIdentityService, IdentityServiceOptions, StorageAdapter } from '../src/index.js'
import { randomMasterKey } from '../src/index.js'
import { didJwtSigner } from '../src/proofs/jwt-signer.js'
import { openDelegateKey } from '../test/helpers/delegate-keys.js'
import { canonize } from '../src/proofs/jsonld/canonize.js'
import { SECURITY_V2_URL } from '../src/proofs/jsonld/contexts.js'
import type { JsonLdDocument, ProofType } from '../src/proofs/jsonld/index.js'
import { openKeyring } from '../src/custody/keyring-store.js'
import { generatePrivateKey, LocalSigner } from '../src/keys/secp256k1.js'
import { type DelegateKeyRecord } from '../src/wallets/records.js'
import { measurePair, type MeasureOptions, type Measurement, type Operation } from './measure.js'
import { nativeSecp256k1 } from './secp256k1.js'

const API_KEY = 'bench-claims-crypto-api-key-0123456789'
/** Credentials verified per suite, cycled: more than the canonical-hash cache holds (1,024 hashes, two per credential). */
const POOL = 700
/** A context defining the claims (JSON-LD safe mode refuses undefined terms). */
const BENCH_CONTEXT = 'https://example.com/contexts/bench/v1'
const SUITES: ProofType[] = ['EcdsaKoblitzSignature2016', 'EcdsaSecp256k1RecoverySignature2020']

export interface Paired {
  ours: Measurement
  floor: Measurement
  ratio: number
}

export interface ClaimsCryptoResults {
  jwtSign: Paired
  /** Informational: against `createVerifiableCredentialJwt` with did-jwt's own `ES256KSigner`. */
  jwtSignVsDidJwtSigner: Paired
  jwtVerify: Paired
  jwtVerifyByDelegate: Paired
  jsonLd: Record<string, { sign: Paired; verify: Paired }>
}

const round = (n: number) => Number(n.toFixed(3))

/** The service of these measurements: a context defines the claims (JSON-LD safe mode refuses undefined terms). */
function serviceOptions(storage: StorageAdapter, masterKey: Uint8Array): IdentityServiceOptions {
  const terms = { '@version': 1.1, '@protected': true, degree: 'https://example.com/bench#degree', n: 'https://example.com/bench#n' }
  return { storage, masterKey, tenants: staticTenants({ [API_KEY]: 'bench-claims' }), contexts: { [BENCH_CONTEXT]: { '@context': terms } } }
}

async function pair(a: Operation, b: Operation, options: MeasureOptions): Promise<Paired> {
  const [ours, floor] = await measurePair(a, b, options)
  return { ours, floor, ratio: round(ours.opsPerSec / floor.opsPerSec) }
}

export async function benchClaimsCrypto(label: string, storage: StorageAdapter, options: MeasureOptions): Promise<ClaimsCryptoResults> {
  const masterKey = randomMasterKey()
  const service = await IdentityService.create(serviceOptions(storage, masterKey))
  try {
    const authorization = `Bearer ${API_KEY}`
    const api = service.as({ authorization })
    const day = 86_400_000
    const { wallet } = await api.generateWallet({ walletConfig: { txsInput: [{ delegate: { validity: day } }] } })
    const issuer = wallet.did
    const as = service.as({ authorization, didAuth: (await api.generateToken({ iss: issuer })).jwt })
    const delegateAddress = (wallet.registry!.transactions[0] as { delegate: { address: string } }).delegate.address
    const row = (
      await storage
        .collection<DelegateKeyRecord>('delegateKeys')
        .find({ field: 'ethereumAddress', op: 'eq', value: delegateAddress }, { limit: 1 })
    ).items[0]
    const delegate = new LocalSigner(await openDelegateKey(storage, await openKeyring(storage, masterKey), row))
    const claim = () => ({ id: `urn:uuid:${randomUUID()}`, payload: { degree: 'BSc', n: Math.random() } })
    const rawKey = new LocalSigner(generatePrivateKey())
    const rawDid = `did:ethr:dev:${rawKey.address}`
    const vc = {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      type: ['VerifiableCredential'],
      credentialSubject: { degree: 'BSc' },
    }
    const rawOpenSsl = nativeSecp256k1().verify

    const jwtSign = await pair(
      { label: `${label}: JWT VC sign (service)`, fn: () => as.signClaims({ iss: issuer, format: 'JWT', claims: [claim()] }) },
      {
        label: `${label}: raw createVerifiableCredentialJwt (interleaved)`,
        fn: () =>
          createVerifiableCredentialJwt(
            { jti: `urn:uuid:${randomUUID()}`, nbf: Math.floor(Date.now() / 1000), vc: { ...vc, credentialSubject: claim().payload } },
            { did: rawDid, signer: didJwtSigner(rawKey), alg: 'ES256K' },
          ),
      },
      options,
    )

    const didJwtKey = ES256KSigner(generatePrivateKey())
    const jwtSignVsDidJwtSigner = await pair(
      { label: `${label}: JWT VC sign (service)`, fn: () => as.signClaims({ iss: issuer, format: 'JWT', claims: [claim()] }) },
      {
        label: `${label}: raw createVerifiableCredentialJwt, did-jwt ES256KSigner (interleaved)`,
        fn: () =>
          createVerifiableCredentialJwt(
            { jti: `urn:uuid:${randomUUID()}`, nbf: Math.floor(Date.now() / 1000), vc: { ...vc, credentialSubject: claim().payload } },
            { did: rawDid, signer: didJwtKey, alg: 'ES256K' },
          ),
      },
      options,
    )

    const signed = (await as.signClaims({ iss: issuer, format: 'JWT', claims: [claim()] })).vcs[0] as { jwt: string }
    const byDelegate = await createVerifiableCredentialJwt(
      { jti: `urn:uuid:${randomUUID()}`, nbf: Math.floor(Date.now() / 1000), vc },
      { did: issuer, signer: didJwtSigner(delegate), alg: 'ES256K' },
    )
    const verifyJwt = (jwt: string) => async () => {
      if (!(await as.verifyClaims({ claims: [{ jwt }] })).vcs[0].verified) throw new Error('bench: JWT VC not verified')
    }
    await verifyJwt(signed.jwt)()
    await verifyJwt(byDelegate)()
    const jwtVerify = await pair(
      { label: `${label}: JWT VC verify, owner (service)`, fn: verifyJwt(signed.jwt) },
      { ...rawOpenSsl, label: `${label}: raw OpenSSL verify (interleaved)` },
      options,
    )
    const jwtVerifyByDelegate = await pair(
      { label: `${label}: JWT VC verify, generated delegate`, fn: verifyJwt(byDelegate) },
      { ...rawOpenSsl, label: `${label}: raw OpenSSL verify (interleaved)` },
      options,
    )

    const jsonLd = await jsonLdPairs(label, as, issuer, options)
    return { jwtSign, jwtSignVsDidJwtSigner, jwtVerify, jwtVerifyByDelegate, jsonLd }
  } finally {
    await service.close()
  }
}

/** Per suite, JSON-LD sign and verify through the service, each against its floor measured interleaved. */
type JsonLdPairs = Record<string, { sign: Paired; verify: Paired }>

async function jsonLdPairs(label: string, as: BoundIdentityService, issuer: string, options: MeasureOptions): Promise<JsonLdPairs> {
  const claim = () => ({ id: `urn:uuid:${randomUUID()}`, payload: { degree: 'BSc', n: Math.random() } })
  const jsonLd: JsonLdPairs = {}
  const noble = secp256k1.utils.randomSecretKey()
  for (const proofType of SUITES) {
    const sign = () => as.signClaims({ iss: issuer, format: 'JSON-LD', proofType, context: [BENCH_CONTEXT], claims: [claim()] })
    // The floor: the unsigned credential and its proof options canonicalized, the digest signed (noble, as the SDK signs).
    const floorInputs = (doc: JsonLdDocument) => {
      const { proof, ...unsigned } = doc
      const { signatureValue: _s, jws: _j, type: _t, id: _i, ...proofOptions } = proof as Record<string, unknown>
      return { unsigned, options: { '@context': [SECURITY_V2_URL, ...(unsigned['@context'] as string[])], ...proofOptions } }
    }
    const template = floorInputs(((await sign()).vcs[0] as { jsonld: JsonLdDocument }).jsonld)
    type Inputs = { unsigned: object; options: object }
    const fresh = (): Inputs => ({
      unsigned: { ...template.unsigned, id: `urn:uuid:${randomUUID()}` },
      options: { ...template.options, nonce: randomUUID() },
    })
    const hashOf = async (input: object) => sha256(utf8ToBytes(await canonize(input)))
    const digestOf = async (inputs: Inputs) => sha256(concatBytes(await hashOf(inputs.options), await hashOf(inputs.unsigned)))
    const signPair = await pair(
      { label: `${label}: JSON-LD sign, ${proofType} (service)`, fn: sign },
      {
        label: `${label}: 2 canonicalizations + noble sign (interleaved)`,
        fn: async () => secp256k1.sign(await digestOf(fresh()), noble, { prehash: false }),
      },
      options,
    )
    process.stderr.write(`bench: signing ${POOL} ${proofType} credentials to verify\n`)
    const pool: JsonLdDocument[] = []
    // One credential per request: a request's proofs share their \`created\` time, and a Recovery2020
    // proof has no nonce, so credentials signed together would share their proof options' hash.
    for (let i = 0; i < POOL; i++) pool.push(((await sign()).vcs[0] as { jsonld: JsonLdDocument }).jsonld)
    let i = 0
    let j = POOL >> 1
    const rawVerify = nativeSecp256k1().verify
    const verifyPair = await pair(
      {
        label: `${label}: JSON-LD verify, ${proofType} (service)`,
        fn: async () => {
          const checked = await as.verifyClaims({ claims: [{ jsonld: pool[i++ % POOL] }] })
          if (!checked.vcs[0].verified) throw new Error('bench: JSON-LD VC not verified')
        },
      },
      {
        label: `${label}: 2 canonicalizations + OpenSSL verify (interleaved)`,
        fn: async () => {
          const { unsigned, options: o } = floorInputs(pool[j++ % POOL])
          await digestOf({ unsigned, options: o })
          return rawVerify.fn()
        },
      },
      options,
    )
    jsonLd[proofType] = { sign: signPair, verify: verifyPair }
  }
  return jsonLd
}

/**
 * The same JSON-LD pairs on a service whose every canonicalization goes to the worker pool
 * (`inlineMaxNodes: 0`; by default inputs this small are canonicalized inline): what the
 * handoff to a worker costs, for information.
 */
export async function benchJsonLdPoolOnly(label: string, storage: StorageAdapter, options: MeasureOptions): Promise<JsonLdPairs> {
  const service = await IdentityService.create({ ...serviceOptions(storage, randomMasterKey()), jsonldWorkers: { inlineMaxNodes: 0 } })
  try {
    const api = service.as({ authorization: `Bearer ${API_KEY}` })
    const issuer = (await api.generateWallet({})).wallet.did
    const as = service.as({ authorization: `Bearer ${API_KEY}`, didAuth: (await api.generateToken({ iss: issuer })).jwt })
    return await jsonLdPairs(`${label}, pool only`, as, issuer, options)
  } finally {
    await service.close()
  }
}

// Standalone: `node --import tsx bench/claims-crypto.ts` (SQLite in a temporary directory).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const { createSqliteStorage } = await import('../src/storage/sqlite/index.js')
  const dir = mkdtempSync(join(tmpdir(), 'didvault-bench-claims-crypto-'))
  try {
    const results = await benchClaimsCrypto('sqlite', createSqliteStorage({ path: join(dir, 'claims.db') }), {
      warmupMs: 300,
      durationMs: 1_500,
    })
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Data Integrity per cryptosuite (issue 32 *Performance*), each figure measured interleaved with its comparisons in
 * one run, all in this process:
 * - per suite (ecdsa-rdfc-2019, eddsa-rdfc-2022, ecdsa-jcs-2019, eddsa-jcs-2022; ecdsa-sd-2023's base proof: sign
 *   only, a base proof is not verified), `sign` and `verify` of our suite objects (`src/proofs/data-integrity/`), the
 *   RDF canonicalization handed to a {@link CanonicalizationPool} with the service's defaults, against
 *   - the floor: the same canonicalization (RDFC-1.0 through the same pool's hasher; JCS for the JCS suites) of the
 *     proof configuration and the document, then one raw node:crypto sign / verify of the same bytes (its key object
 *     made once: ours are cached too) — target ≥ 0.6. ecdsa-sd-2023's base proof: what its pipeline inherently does —
 *     the proof configuration through the pool's hasher, the document skolemized, canonicalized with HMAC-relabelled
 *     blank nodes and grouped (di-sd-primitives' `canonicalizeAndGroup`, the library's own primitive, in this thread),
 *     a proof-scoped P-256 key made and one raw sign per non-mandatory statement, then the base signature (before, the
 *     floor canonicalized once and signed each statement with the issuer's key: it left out the relabelling, grouping
 *     and the proof-scoped key, so its ratio was no measure of our overhead);
 *   - `@digitalbazaar/vc` 7 `issue` / `verifyCredential` with the same cryptosuite package, the same key and a document
 *     loader over the same bundled contexts and DID resolver — target ≥ 1.0;
 * - beside them, the embedded API's Sign Claims (`cryptosuite` named, a did:key wallet) and Verify Claims of a
 *   credential of that suite, memory storage, the same pool (information);
 * - ecdsa-sd-2023 `derive` (half the claims disclosed) and verify of the derived credential at 10 and 50 claims, ours
 *   ÷ @digitalbazaar/vc's `derive` / `verifyCredential` (information).
 *
 * Every measured sign and verify canonicalizes inputs it has not seen: each signed document has its own `id` and
 * proof `created`, and verified documents are cycled through a ring larger than the canonical-hash cache (1,024
 * hashes; two per document). `DIDVAULT_BENCH_DI_MS` sets each figure's duration (default 1,500 ms).
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as nodeSign,
  verify as nodeVerify,
  type KeyObject,
} from 'node:crypto'
import { Resolver } from 'did-resolver'
import { createMemoryStorage, IdentityService, randomMasterKey, staticTenants } from '../src/index.js'
import { didMethodNamed, didMethodNames } from '../src/did/methods/index.js'
import type { SignatureAlgorithm } from '../src/keys/key-types.js'
import { DATA_INTEGRITY_SUITES, ecdsaSd2023, type DataIntegritySuite, type JsonLdDocument } from '../src/proofs/data-integrity/index.js'
import type { JoseSigner } from '../src/proofs/data-integrity/key-signer.js'
import { DEFAULT_JSONLD_LIMITS } from '../src/proofs/jsonld/bounds.js'
import type { CanonicalHasher } from '../src/proofs/jsonld/canonical-hasher.js'
import { CanonicalizationPool } from '../src/proofs/jsonld/canonicalization-pool.js'
import { documentLoader as contexts } from '../src/proofs/jsonld/document-loader.js'
import { measure, measureInterleaved, type MeasureOptions, type Measurement } from './measure.js'

const V2 = 'https://www.w3.org/ns/credentials/v2'
const API_KEY = 'bench-data-integrity-api-key-0123456789'
/** Documents verified in turn: more than the canonical-hash cache holds (1,024 hashes, two per document). */
const RING = 600
/** Claims of the ecdsa-sd-2023 derive / verify figures. */
const SD_CLAIMS = [10, 50] as const

type WholeSuite = 'ecdsa-rdfc-2019' | 'eddsa-rdfc-2022' | 'ecdsa-jcs-2019' | 'eddsa-jcs-2022'
const WHOLE: ReadonlyArray<[WholeSuite, 'P-256' | 'Ed25519']> = [
  ['ecdsa-rdfc-2019', 'P-256'],
  ['eddsa-rdfc-2022', 'Ed25519'],
  ['ecdsa-jcs-2019', 'P-256'],
  ['eddsa-jcs-2022', 'Ed25519'],
]

/** Ours against the floor and the reference library, measured interleaved. */
export interface Compared {
  ours: Measurement
  floor?: Measurement
  library: Measurement
  /** ours ÷ floor, ops/s. */
  vsFloor?: number
  /** ours ÷ library, ops/s. */
  vsLibrary: number
}

export interface DataIntegritySuiteResults {
  sign: Compared
  /** Absent for ecdsa-sd-2023 (a base proof is derived, not verified). */
  verify?: Compared
  /** Sign Claims with this cryptosuite, embedded API, memory storage. */
  signClaims: Measurement
  /** Verify Claims of one credential of this suite (absent for ecdsa-sd-2023). */
  verifyClaims?: Measurement
}

export interface DataIntegrityResults {
  figureMs: number
  suites: Record<string, DataIntegritySuiteResults>
  /** ecdsa-sd-2023 by claim count: derive (half disclosed) and verify of the derived credential, ÷ @digitalbazaar/vc. */
  sd: Record<string, { derive: Compared; verify: Compared }>
}

const round = (n: number) => Number(n.toFixed(3))
const compared = ([ours, floor, library]: Measurement[], withFloor: boolean): Compared =>
  withFloor
    ? { ours, floor, library, vsFloor: round(ours.opsPerSec / floor.opsPerSec), vsLibrary: round(ours.opsPerSec / library.opsPerSec) }
    : { ours, library: floor, vsLibrary: round(ours.opsPerSec / floor.opsPerSec) }

const importEsm = (specifier: string): Promise<any> => import(specifier)

interface Libraries {
  DataIntegrityProof: new (options: { cryptosuite: object; signer?: object; date?: string }) => object
  vc: {
    issue(options: { credential: object; suite: object; documentLoader: Loader }): Promise<JsonLdDocument>
    derive(options: { verifiableCredential: object; suite: object; documentLoader: Loader }): Promise<JsonLdDocument>
    verifyCredential(options: { credential: object; suite: object[]; documentLoader: Loader }): Promise<{ verified: boolean }>
  }
  signing: Record<string, () => object>
  verifying: Record<string, object>
  disclose(selectivePointers: string[]): object
  /** di-sd-primitives (ecdsa-sd-2023's own dependency): the base proof's canonicalization and grouping. */
  sd: {
    createHmac(options: { key: null }): Promise<object>
    createHmacIdLabelMapFunction(options: { hmac: object }): object
    canonicalizeAndGroup(options: {
      document: object
      labelMapFactoryFunction: object
      groups: { mandatory: string[] }
      options: { documentLoader: Loader }
    }): Promise<{ groups: { mandatory: { nonMatching: Map<number, string> } } }>
  }
  jcs(input: object): string
  keys: Record<'P-256' | 'Ed25519', LibraryKey>
}
interface LibraryKey {
  id: string
  controller: string
  publicKeyMultibase: string
  signer(): object
  privateKey: KeyObject
  publicKey: KeyObject
}
type Loader = (url: string) => Promise<{ contextUrl: null; documentUrl: string; document: unknown }>

async function libraries(): Promise<Libraries> {
  const [di, vc, ecdsaMultikey, ed25519Multikey, eddsaRdfc, eddsaJcs, ecdsaRdfc, ecdsaJcs, ecdsaSd, sdPrimitives, jcs] = await Promise.all(
    [
      '@digitalbazaar/data-integrity',
      '@digitalbazaar/vc',
      '@digitalbazaar/ecdsa-multikey',
      '@digitalbazaar/ed25519-multikey',
      '@digitalbazaar/eddsa-rdfc-2022-cryptosuite',
      '@digitalbazaar/eddsa-jcs-2022-cryptosuite',
      '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite',
      '@digitalbazaar/ecdsa-jcs-2019-cryptosuite',
      '@digitalbazaar/ecdsa-sd-2023-cryptosuite',
      '@digitalbazaar/di-sd-primitives',
      // The JCS the JCS cryptosuites canonicalize with (their own dependency).
      'canonicalize',
    ].map(importEsm),
  )
  // One key per type, shared by the library (its Multikey signer) and our suites (node:crypto over the same JWK).
  const keyOf = async (multikey: any, keyPair: any): Promise<LibraryKey> => {
    const { kty, crv, x, y, d } = await multikey.toJwk({ keyPair, secretKey: true })
    // The library's Ed25519 `d` is seed ‖ public key; the JWK's is the 32-byte seed.
    const jwk = {
      kty,
      crv,
      x,
      ...(y && { y }),
      d: crv === 'Ed25519' ? Buffer.from(d, 'base64url').subarray(0, 32).toString('base64url') : d,
    }
    const did = `did:key:${keyPair.publicKeyMultibase}`
    return Object.assign(keyPair, {
      id: `${did}#${keyPair.publicKeyMultibase}`,
      controller: did,
      privateKey: createPrivateKey({ key: jwk, format: 'jwk' }),
      publicKey: createPublicKey({ key: jwk, format: 'jwk' }),
    })
  }
  return {
    DataIntegrityProof: di.DataIntegrityProof,
    vc,
    signing: {
      'ecdsa-rdfc-2019': () => ecdsaRdfc.cryptosuite,
      'eddsa-rdfc-2022': () => eddsaRdfc.cryptosuite,
      'ecdsa-jcs-2019': () => ecdsaJcs.createSignCryptosuite(),
      'eddsa-jcs-2022': () => eddsaJcs.createSignCryptosuite(),
      'ecdsa-sd-2023': () => ecdsaSd.createSignCryptosuite({ mandatoryPointers: [] }),
    },
    verifying: {
      'ecdsa-rdfc-2019': ecdsaRdfc.cryptosuite,
      'eddsa-rdfc-2022': eddsaRdfc.cryptosuite,
      'ecdsa-jcs-2019': ecdsaJcs.createVerifyCryptosuite(),
      'eddsa-jcs-2022': eddsaJcs.createVerifyCryptosuite(),
      'ecdsa-sd-2023': ecdsaSd.createVerifyCryptosuite(),
    },
    disclose: (selectivePointers) => ecdsaSd.createDiscloseCryptosuite({ selectivePointers }),
    sd: sdPrimitives,
    jcs: jcs.default,
    keys: {
      'P-256': await keyOf(ecdsaMultikey, await ecdsaMultikey.generate({ curve: 'P-256' })),
      Ed25519: await keyOf(ed25519Multikey, await ed25519Multikey.generate()),
    },
  }
}

/** Raw node:crypto sign / verify in JOSE form (P-256: SHA-256, r‖s). */
const rawSign = (key: KeyObject, data: Uint8Array) =>
  key.asymmetricKeyType === 'ed25519' ? nodeSign(null, data, key) : nodeSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' })
const rawVerify = (key: KeyObject, data: Uint8Array, signature: Uint8Array) =>
  key.asymmetricKeyType === 'ed25519'
    ? nodeVerify(null, data, key, signature)
    : nodeVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature)

/** Our suites' signer over the library key's private half: what the key port hands them, without the port. */
function joseSigner(key: LibraryKey, keyType: 'P-256' | 'Ed25519'): JoseSigner {
  const expected: SignatureAlgorithm = keyType === 'P-256' ? 'ES256' : 'EdDSA'
  return {
    keyType,
    sign: async (alg, data) => {
      if (alg !== expected) throw new Error(`bench: ${alg}`)
      return new Uint8Array(rawSign(key.privateKey, data))
    },
  }
}

let serial = 0
/** A credential no run has signed before (its own id), with `claims` subject claims. */
function credential(issuer: string, claims = 2): JsonLdDocument {
  const n = ++serial
  const subject: Record<string, unknown> = { id: 'did:example:holder', name: `Holder ${n}`, description: 'BSc, 2026' }
  for (let i = 2; i < claims; i++) subject[`claim${i}`] = `value ${i} of ${n}`
  return {
    // More claims than v2 defines terms for: an inline vocabulary (JSON-LD safe mode refuses undefined terms).
    '@context': claims > 2 ? [V2, { '@vocab': 'https://bench.didvault.example/claims#' }] : [V2],
    id: `urn:uuid:00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    type: ['VerifiableCredential'],
    issuer,
    validFrom: '2026-01-01T00:00:00Z',
    credentialSubject: subject,
  }
}

let seconds = 0
/** A proof `created` no other proof of this run has (one second apart): its proof configuration is unseen too. */
const created = () => new Date(Date.UTC(2026, 0, 1) + ++seconds * 1000).toISOString().replace('.000Z', 'Z')

const sha256 = (text: string) => createHash('sha256').update(text).digest()

/** The figures of the Data Integrity suites against their floors and @digitalbazaar/vc, and the embedded API's. */
export async function benchDataIntegrity(options: MeasureOptions): Promise<DataIntegrityResults> {
  const lib = await libraries()
  const resolver = new Resolver(
    Object.fromEntries(didMethodNames().map((name) => [name, (did: string) => didMethodNamed(name)!.resolve(did)])),
    { cache: false },
  )
  const documentLoader: Loader = async (url) => {
    if (!url.startsWith('did:')) return contexts(url)
    const { didDocument } = await resolver.resolve(url.split('#')[0])
    if (!didDocument) throw new Error(`bench: no DID document for ${url}`)
    const document = url.includes('#')
      ? { '@context': didDocument['@context'], ...didDocument.verificationMethod!.find((m) => m.id === url) }
      : didDocument
    return { contextUrl: null, documentUrl: url, document }
  }
  const pool = new CanonicalizationPool()
  const hasher = pool.hasherFor('bench-di', DEFAULT_JSONLD_LIMITS)
  const service = await IdentityService.create({
    storage: createMemoryStorage(),
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [API_KEY]: 'bench-di' }),
  })
  try {
    const api = service.as({ authorization: `Bearer ${API_KEY}` })
    const wallets: Record<string, { did: string; as: ReturnType<typeof service.as> }> = {}
    for (const keyType of ['P-256', 'Ed25519'] as const) {
      const { wallet } = await api.generateWallet({ walletConfig: { didMethod: 'key', keyType } })
      const as = service.as({ authorization: `Bearer ${API_KEY}`, didAuth: (await api.generateToken({ iss: wallet.did })).jwt })
      wallets[keyType] = { did: wallet.did, as }
    }
    const suites: Record<string, DataIntegritySuiteResults> = {}
    for (const [name, keyType] of WHOLE) {
      suites[name] = await benchSuite(DATA_INTEGRITY_SUITES[name], keyType, { lib, resolver, documentLoader, hasher, wallets }, options)
    }
    suites['ecdsa-sd-2023'] = await benchSdBase({ lib, resolver, documentLoader, hasher, wallets }, options)
    const sd: DataIntegrityResults['sd'] = {}
    for (const claims of SD_CLAIMS)
      sd[String(claims)] = await benchSdDerived(claims, { lib, resolver, documentLoader, hasher, wallets }, options)
    return { figureMs: options.durationMs, suites, sd }
  } finally {
    await service.close()
    await pool.close()
  }
}

interface Context {
  lib: Libraries
  resolver: Resolver
  documentLoader: Loader
  hasher: CanonicalHasher
  wallets: Record<string, { did: string; as: ReturnType<IdentityService['as']> }>
}

/** The canonical hashes the floor computes: proof configuration, then document (RDFC-1.0 in the pool, or JCS). */
async function floorHashes(ctx: Context, jcs: boolean, configuration: object, document: object): Promise<Uint8Array> {
  const [a, b] = jcs
    ? [sha256(ctx.lib.jcs(configuration)), sha256(ctx.lib.jcs(document))]
    : await Promise.all(ctx.hasher.hashEach([configuration, document]))
  return Buffer.concat([a, b])
}

const proofOf = (document: JsonLdDocument) => document.proof as Record<string, unknown>

async function benchSuite(
  suite: DataIntegritySuite,
  keyType: 'P-256' | 'Ed25519',
  ctx: Context,
  options: MeasureOptions,
): Promise<DataIntegritySuiteResults> {
  const { lib, resolver, documentLoader, hasher } = ctx
  const key = lib.keys[keyType]
  const signer = joseSigner(key, keyType)
  const jcs = suite.cryptosuite.includes('-jcs-')
  const label = `DI ${suite.cryptosuite}`
  const sign = (document = credential(key.controller)) =>
    suite.sign(document, signer, { verificationMethod: key.id, created: created(), hasher })
  const configurationOf = (document: JsonLdDocument) => {
    const { proofValue: _value, ...configuration } = proofOf(document)
    return { '@context': document['@context'], ...configuration }
  }
  const template = await sign()
  const libraryIssue = () =>
    lib.vc.issue({
      credential: credential(key.controller),
      suite: new lib.DataIntegrityProof({ cryptosuite: lib.signing[suite.cryptosuite](), signer: key.signer(), date: created() }),
      documentLoader,
    })
  const signed = await measureInterleaved(
    [
      { label: `${label}: sign (ours, pool)`, fn: () => sign() },
      {
        label: `${label}: floor sign (canonicalize + raw sign)`,
        fn: async () => {
          const { proof: _proof, ...document } = credential(key.controller)
          const configuration = { ...configurationOf(template), created: created() }
          return rawSign(key.privateKey, await floorHashes(ctx, jcs, configuration, document))
        },
      },
      { label: `${label}: @digitalbazaar/vc issue`, fn: libraryIssue },
    ],
    options,
  )

  process.stderr.write(`bench: signing ${RING} ${suite.cryptosuite} credentials to verify\n`)
  const ring: JsonLdDocument[] = []
  for (let i = 0; i < RING; i++) ring.push(await sign())
  let next = 0
  let libraryNext = RING >> 1
  const verifyOptions = { resolver, proofPurpose: 'assertionMethod' as const, controller: key.controller, hasher }
  const oursVerify = async () => {
    const document = ring[next++ % RING]
    if (!(await suite.verify(document, proofOf(document), verifyOptions)).verified) throw new Error('bench: not verified')
  }
  // The floor verifies the template's signature over its verify data after canonicalizing an unseen document.
  const { proof: _proof, ...unsignedTemplate } = template
  const templateData = await floorHashes(ctx, jcs, configurationOf(template), unsignedTemplate)
  const templateSignature = await signer.sign(keyType === 'P-256' ? 'ES256' : 'EdDSA', templateData)
  if (!rawVerify(key.publicKey, templateData, templateSignature)) throw new Error('bench: floor signature not verified')
  const verified = await measureInterleaved(
    [
      { label: `${label}: verify (ours, pool)`, fn: oursVerify },
      {
        label: `${label}: floor verify (canonicalize + raw verify)`,
        fn: async () => {
          const { proof: _p, ...document } = credential(key.controller)
          const configuration = { ...configurationOf(template), created: created() }
          await floorHashes(ctx, jcs, configuration, document)
          if (!rawVerify(key.publicKey, templateData, templateSignature)) throw new Error('bench: floor not verified')
        },
      },
      {
        label: `${label}: @digitalbazaar/vc verifyCredential`,
        fn: async () => {
          const credential = ring[libraryNext++ % RING]
          const suites = [new lib.DataIntegrityProof({ cryptosuite: lib.verifying[suite.cryptosuite] })]
          if (!(await lib.vc.verifyCredential({ credential, suite: suites, documentLoader })).verified) throw new Error('bench: refused')
        },
      },
    ],
    options,
  )
  const { signClaims, verifyClaims } = await apiRates(ctx, suite.cryptosuite, keyType, ring, () => next++, options)
  return { sign: compared(signed, true), verify: compared(verified, true), signClaims, verifyClaims }
}

/** Sign Claims naming `cryptosuite` and (unless `ring` is empty) Verify Claims of `ring`'s credentials, in turn. */
async function apiRates(
  ctx: Context,
  cryptosuite: string,
  keyType: 'P-256' | 'Ed25519',
  ring: JsonLdDocument[],
  nextIndex: () => number,
  options: MeasureOptions,
): Promise<{ signClaims: Measurement; verifyClaims?: Measurement }> {
  const { did, as } = ctx.wallets[keyType]
  const claims = () => [{ id: `urn:uuid:${crypto.randomUUID()}`, payload: { name: 'Holder', description: 'BSc, 2026' } }]
  const first = await as.signClaims({ iss: did, claims: claims(), context: [V2], cryptosuite })
  const proof = (first.vcs[0] as { jsonld: JsonLdDocument }).jsonld.proof as Record<string, unknown>
  if (proof.cryptosuite !== cryptosuite) throw new Error(`bench: Sign Claims signed with ${String(proof.cryptosuite)}`)
  const signClaims = await measure(
    {
      label: `DI ${cryptosuite}: Sign Claims (embedded API)`,
      fn: () => as.signClaims({ iss: did, claims: claims(), context: [V2], cryptosuite }),
    },
    options,
  )
  if (ring.length === 0) return { signClaims }
  const verifyClaims = await measure(
    {
      label: `DI ${cryptosuite}: Verify Claims (embedded API)`,
      fn: async () => {
        const checked = await as.verifyClaims({ vcs: [{ jsonld: ring[nextIndex() % ring.length] }] })
        if (!(checked.vcs[0] as { verified: boolean }).verified) throw new Error('bench: Verify Claims refused')
      },
    },
    options,
  )
  return { signClaims, verifyClaims }
}

/** ecdsa-sd-2023 base proofs (no mandatory pointers): ours ÷ floor (canonicalize + one sign per statement + 1) and ÷ the library. */
async function benchSdBase(ctx: Context, options: MeasureOptions): Promise<DataIntegritySuiteResults> {
  const { lib, hasher } = ctx
  const key = lib.keys['P-256']
  const signer = joseSigner(key, 'P-256')
  const label = 'DI ecdsa-sd-2023 base'
  const configuration = () => ({
    '@context': [V2],
    type: 'DataIntegrityProof',
    cryptosuite: 'ecdsa-sd-2023',
    created: created(),
    verificationMethod: key.id,
    proofPurpose: 'assertionMethod',
  })
  const signed = await measureInterleaved(
    [
      {
        label: `${label}: sign (ours)`,
        fn: () => ecdsaSd2023.sign(credential(key.controller), signer, { verificationMethod: key.id, created: created(), hasher }),
      },
      {
        label: `${label}: floor (configuration hash, HMAC canonicalize + group, a sign per statement + 1)`,
        fn: async () => {
          const [proofHash] = await Promise.all(hasher.hashEach([configuration()]))
          const hmac = await lib.sd.createHmac({ key: null })
          const { groups } = await lib.sd.canonicalizeAndGroup({
            document: credential(key.controller),
            labelMapFactoryFunction: lib.sd.createHmacIdLabelMapFunction({ hmac }),
            groups: { mandatory: [] },
            options: { documentLoader: contexts },
          })
          const proofScoped = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey
          for (const statement of groups.mandatory.nonMatching.values()) rawSign(proofScoped, Buffer.from(statement))
          return rawSign(key.privateKey, proofHash)
        },
      },
      {
        label: `${label}: @digitalbazaar/vc issue`,
        fn: () =>
          lib.vc.issue({
            credential: credential(key.controller),
            suite: new lib.DataIntegrityProof({ cryptosuite: lib.signing['ecdsa-sd-2023'](), signer: key.signer(), date: created() }),
            documentLoader: ctx.documentLoader,
          }),
      },
    ],
    options,
  )
  const { signClaims } = await apiRates(ctx, 'ecdsa-sd-2023', 'P-256', [], () => 0, options)
  return { sign: compared(signed, true), signClaims }
}

/** Derived ecdsa-sd-2023 credentials of `claims` subject claims (half disclosed): derive and verify, ours ÷ the library. */
async function benchSdDerived(claims: number, ctx: Context, options: MeasureOptions): Promise<{ derive: Compared; verify: Compared }> {
  const { lib, resolver, documentLoader, hasher } = ctx
  const key = lib.keys['P-256']
  const signer = joseSigner(key, 'P-256')
  const label = `DI ecdsa-sd-2023, ${claims} claims`
  const DERIVED = 16
  const bases: JsonLdDocument[] = []
  for (let i = 0; i < DERIVED; i++) {
    // The issuer and validity are mandatory: a derived credential without them is no credential to @digitalbazaar/vc.
    const options = { verificationMethod: key.id, created: created(), hasher, mandatoryPointers: ['/issuer', '/validFrom'] }
    bases.push(await ecdsaSd2023.sign(credential(key.controller, claims), signer, options))
  }
  const names = Object.keys(bases[0].credentialSubject as object).filter((k) => k !== 'id')
  const pointers = names.slice(0, Math.ceil(names.length / 2)).map((k) => `/credentialSubject/${k}`)
  let b = 0
  const derived = await measureInterleaved(
    [
      { label: `${label}: derive (ours)`, fn: () => ecdsaSd2023.derive(bases[b++ % DERIVED], pointers) },
      {
        label: `${label}: @digitalbazaar/vc derive`,
        fn: () =>
          lib.vc.derive({
            verifiableCredential: bases[b++ % DERIVED],
            suite: new lib.DataIntegrityProof({ cryptosuite: lib.disclose(pointers) }),
            documentLoader,
          }),
      },
    ],
    options,
  )
  const disclosed = await Promise.all(bases.map((base) => ecdsaSd2023.derive(base, pointers)))
  const verifyOptions = { resolver, proofPurpose: 'assertionMethod' as const, controller: key.controller, hasher }
  let d = 0
  const verified = await measureInterleaved(
    [
      {
        label: `${label}: verify derived (ours)`,
        fn: async () => {
          const document = disclosed[d++ % DERIVED]
          if (!(await ecdsaSd2023.verify(document, proofOf(document), verifyOptions)).verified) throw new Error('bench: not verified')
        },
      },
      {
        label: `${label}: @digitalbazaar/vc verifyCredential`,
        fn: async () => {
          const suite = [new lib.DataIntegrityProof({ cryptosuite: lib.verifying['ecdsa-sd-2023'] })]
          const credential = disclosed[d++ % DERIVED]
          const result = await lib.vc.verifyCredential({ credential, suite, documentLoader })
          if (!result.verified) throw new Error(`bench: refused: ${JSON.stringify(result).slice(0, 600)}`)
        },
      },
    ],
    options,
  )
  return { derive: compared(derived, false), verify: compared(verified, false) }
}

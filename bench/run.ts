/**
 * `npm run bench`: prints ONE JSON object on stdout (progress goes to stderr) with ops/s and
 * p50/p95 latencies of the service's hot paths on memory and SQLite storage, the storage
 * figures of every adapter it can reach (memory, SQLite, PostgreSQL, MongoDB when `MONGODB_URL`
 * is set), the PostgreSQL figures on a server it starts as the tests do (./postgres: the service's
 * hot paths, stored credentials up to 1,000,000, each target against its floor through `pg`),
 * role creation and credential access decisions at 10k and 100k role assignments,
 * an authenticated HTTP request's latency alone and under a flood of unauthenticated 1 MiB
 * bodies, while one tenant sends the worst 1 MiB bodies `limits.depth` admits (bench/hostile-bodies.ts)
 * and while another tenant verifies the largest JSON-LD credential the bounds accept in a loop, status list changes and publication (bench/status.ts), the audit trail's cost (bench/audit.ts), the JSON-LD sign/verify figures with every canonicalization in the worker pool, MPC
 * vaults' 2-of-3 signing and wallet derivation rates, the peak memory of a server process
 * holding 100k credentials, Authorization header parsing on hostile input, the overhead of
 * `didvault/client` over loopback HTTP and the rate of authenticated `GET /wallets?limit=10` from
 * a separate client process, the scaling of `didvault serve --workers 2` over 1 against a bare
 * `node:http` cluster's (bench/workers.ts), the raw secp256k1 rates of this machine in the same
 * run, SLIP-0010 Ed25519 and P-256 wallet-key derivations per second (bench/slip10.ts), what
 * observability costs (bench/observability.ts: logging at info vs silent, a /metrics
 * scrape of 10k samples), one tenant's write scaling against the same load over 16 tenants
 * (bench/one-tenant.ts), per key type (secp256k1, P-256, Ed25519) wallet creation and VC-JWT sign / verify against
 * their floors (bench/key-types.ts), and the issue's targets as pass/fail.
 *
 * `npm run bench -- --only <section>` runs one section alone, with its targets ({@link SECTIONS}): `keyTypes` the
 * per-key-type rows, `service` the did:ethr rows of wallets, DID-auth tokens and the embedded registry,
 * `tokenStatusList` publishing a changed IETF Status List Token (bench/token-status-list.ts), `sdJwt` SD-JWT VC issue
 * and presentation verify against @sd-jwt/sd-jwt-vc, with Sign / Verify Claims' SD-JWT rates (bench/sd-jwt.ts),
 * `dataIntegrity` per Data Integrity cryptosuite sign / verify against its floor and @digitalbazaar/vc, the embedded
 * API's rates and ecdsa-sd-2023 derive / verify at 10 and 50 claims (bench/data-integrity.ts; each figure
 * `DIDVAULT_BENCH_DI_MS` long, default 1,500 ms), `oid4vci` pre-authorized SD-JWT VC issuance over loopback HTTP on
 * SQLite and PostgreSQL against a floor Express app (bench/oid4vci.ts), `oid4vp` a wallet's answers at the
 * response_uri ÷ `POST /presentations/verify` on a SQLite file (bench/oid4vp.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { createMemoryStorage } from '../src/index.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { benchAuthHeader } from './auth-header.js'
import { auditTargets, benchAudit } from './audit.js'
import { benchClientOverhead, benchWalletsPageRate, type WalletsPageRateResults } from './client.js'
import { benchClaimsCrypto, benchJsonLdPoolOnly, type ClaimsCryptoResults } from './claims-crypto.js'
import { benchCredentials, type CredentialResults } from './credentials.js'
import { benchUnauthenticatedFlood } from './flood.js'
import { benchHostileBodies } from './hostile-bodies.js'
import { benchJsonLdLoad } from './jsonld-load.js'
import { benchKeyTypes, type KeyTypeResults } from './key-types.js'
import { benchMpc } from './mpc.js'
import { benchPkcs11, type Pkcs11BenchResults } from './pkcs11.js'
import { benchHsmMasterKey } from './hsm-master-key.js'
import { benchObservability } from './observability.js'
import { benchOneTenant, oneTenantTargets } from './one-tenant.js'
import { benchPostgres } from './postgres.js'
import { benchPresentations } from './presentations.js'
import type { MeasureOptions } from './measure.js'
import { benchRoles, type RoleResults } from './roles.js'
import { benchServerRss } from './rss.js'
import { benchRawSecp256k1 } from './secp256k1.js'
import { benchService, type ServiceResults } from './service.js'
import { benchSlip10 } from './slip10.js'
import { benchStorage, type StorageResults } from './storage.js'
import { benchStatusSqlite, statusTargets } from './status.js'
import { benchStatusVerify, type StatusVerifyResults } from './status-verify.js'
import { benchTokenStatusList, type TokenStatusListResults } from './token-status-list.js'
import { benchSdJwt, type SdJwtResults } from './sd-jwt.js'
import { benchDataIntegrity, type DataIntegrityResults } from './data-integrity.js'
import { benchWorkers } from './workers.js'
import { benchOid4vci, type Oid4vciBenchResults } from './oid4vci.js'
import { benchOid4vp, type Oid4vpBenchResults } from './oid4vp.js'

const OPTIONS: MeasureOptions = { warmupMs: 500, durationMs: 2_000 }
const STORAGE_OPTIONS: MeasureOptions = { warmupMs: 200, durationMs: 1_000 }
/** The JSON-LD load alternates 3 s slices (one verification of the largest credential takes about 1 s). */
const JSONLD_LOAD_OPTIONS: MeasureOptions = { warmupMs: 3_000, durationMs: 9_000 }
/** Under 1 MiB bodies a small request takes tens of ms: longer runs, for enough of them. */
const HOSTILE_BODIES_OPTIONS: MeasureOptions = { warmupMs: 1_000, durationMs: 6_000 }

interface Target {
  name: string
  storage: string
  min?: number
  max?: number
  actual: number
  pass: boolean
}

/** Storage figures of each adapter this run can reach, and why the others were skipped. */
async function benchStorageAdapters(): Promise<{ results: Record<string, StorageResults>; skipped: Record<string, string> }> {
  const results: Record<string, StorageResults> = {}
  const skipped: Record<string, string> = {}
  const memory = createMemoryStorage()
  results.memory = await benchStorage('memory', memory, STORAGE_OPTIONS).finally(() => memory.close())
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-storage-'))
  const sqlite = createSqliteStorage({ path: join(dir, 'storage.db') })
  try {
    results.sqlite = await benchStorage('sqlite', sqlite, STORAGE_OPTIONS)
  } finally {
    await sqlite.close()
    rmSync(dir, { recursive: true, force: true })
  }
  const url = process.env.MONGODB_URL
  if (url === undefined) {
    skipped.mongodb = 'MONGODB_URL is not set (the test stand-in is not a database: it scans, so its figures would mean nothing)'
    return { results, skipped }
  }
  const { MongoClient } = await import('mongodb')
  const { createMongoStorage } = await import('../src/storage/mongo/index.js')
  const parsed = new URL(url)
  parsed.pathname = `/didvault_bench_${Date.now().toString(36)}`
  const client = await new MongoClient(parsed.toString()).connect()
  try {
    const mongo = await createMongoStorage({ client, dbName: parsed.pathname.slice(1) })
    results.mongodb = await benchStorage(`mongodb (${mongo.transactionMode} transactions)`, mongo, STORAGE_OPTIONS)
  } finally {
    await client.db(parsed.pathname.slice(1)).dropDatabase()
    await client.close()
  }
  return { results, skipped }
}

async function benchSqlite(): Promise<ServiceResults> {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-'))
  try {
    return await benchService('sqlite', createSqliteStorage({ path: join(dir, 'bench.db') }), OPTIONS)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function benchRolesSqlite(): Promise<RoleResults> {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-roles-'))
  try {
    return await benchRoles('sqlite', createSqliteStorage({ path: join(dir, 'roles.db') }), OPTIONS)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function benchMpcSqlite() {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-mpc-'))
  try {
    return await benchMpc('sqlite', createSqliteStorage({ path: join(dir, 'mpc.db') }), OPTIONS)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function benchCredentialsSqlite(): Promise<CredentialResults> {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-credentials-'))
  try {
    return await benchCredentials('sqlite', createSqliteStorage({ path: join(dir, 'credentials.db') }), STORAGE_OPTIONS)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The figures of a section on SQLite's default durability, and its signatures on `synchronous = NORMAL` (information). */
type ClaimsCryptoSqliteResults = ClaimsCryptoResults & {
  jsonLdPoolOnly: ClaimsCryptoResults['jsonLd']
  synchronousNormal: { jwtSign: ClaimsCryptoResults['jwtSign']; jsonLdSign: Record<string, ClaimsCryptoResults['jsonLd'][string]['sign']> }
}

const mapValues = <V, W>(record: Record<string, V>, fn: (value: V) => W): Record<string, W> =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v)]))

async function benchClaimsCryptoSqlite(): Promise<ClaimsCryptoSqliteResults> {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-claims-crypto-'))
  try {
    const results = await benchClaimsCrypto('sqlite', createSqliteStorage({ path: join(dir, 'claims.db') }), OPTIONS)
    const jsonLdPoolOnly = await benchJsonLdPoolOnly('sqlite', createSqliteStorage({ path: join(dir, 'pool-only.db') }), OPTIONS)
    // Information: the same on SQLite's synchronous = NORMAL (what syncing each signature's audit record costs).
    const normal = await benchClaimsCrypto(
      'sqlite synchronous=NORMAL',
      createSqliteStorage({ path: join(dir, 'claims-normal.db'), synchronous: 'NORMAL' }),
      OPTIONS,
    )
    const synchronousNormal = { jwtSign: normal.jwtSign, jsonLdSign: mapValues(normal.jsonLd, (r) => r.sign) }
    return { ...results, jsonLdPoolOnly, synchronousNormal }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function benchWalletsPageRateSqlite(): Promise<WalletsPageRateResults> {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-wallets-page-'))
  try {
    return await benchWalletsPageRate('sqlite', createSqliteStorage({ path: join(dir, 'wallets.db') }), OPTIONS)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Sections `--only <name>` runs alone: the section's figures and its targets. */
const SECTIONS: Record<string, () => Promise<{ results: unknown; targets: Target[] }>> = {
  oneTenantScaling: async () => {
    const results = await benchOneTenant()
    return { results, targets: oneTenantTargets(results) }
  },
  claimsCrypto: async () => {
    const results = await benchClaimsCryptoSqlite()
    return { results, targets: claimsCryptoTargets(results) }
  },
  hostileBodies: () => benchHostileBodies(HOSTILE_BODIES_OPTIONS),
  slip10: async () => ({ results: await benchSlip10(STORAGE_OPTIONS), targets: [] }),
  keyTypes: async () => {
    const results = await benchKeyTypesSqlite()
    return { results, targets: keyTypeTargets(results) }
  },
  service: async () => {
    const results = { memory: await benchService('memory', createMemoryStorage(), OPTIONS), sqlite: await benchSqlite() }
    return { results, targets: serviceTargets(results) }
  },
  status: async () => {
    const statusVerify = await benchStatusVerify('memory', createMemoryStorage(), OPTIONS)
    const status = await benchStatusSqlite(OPTIONS)
    return { results: { statusVerify, status }, targets: [...statusVerifyTargets(statusVerify), ...statusTargets(status)] }
  },
  tokenStatusList: async () => {
    const results = await benchTokenStatusList(OPTIONS)
    return { results, targets: tokenStatusListTargets(results) }
  },
  sdJwt: async () => {
    const results = await benchSdJwt(OPTIONS)
    return { results, targets: sdJwtTargets(results) }
  },
  oid4vci: async () => {
    const results = await benchOid4vci()
    return { results, targets: oid4vciTargets(results) }
  },
  oid4vp: async () => {
    const results = await benchOid4vp()
    return { results, targets: oid4vpTargets(results) }
  },
  pkcs11: async () => {
    const results = await benchPkcs11(OPTIONS)
    return { results, targets: pkcs11Targets(results) }
  },
  // Reported, no target: ECS signing with the master key in the token ÷ with a file master key, and per-signature unwrap.
  'hsm-master': async () => ({ results: await benchHsmMasterKey(OPTIONS), targets: [] }),
  dataIntegrity: async () => {
    const durationMs = Number(process.env.DIDVAULT_BENCH_DI_MS) || 1_500
    const results = await benchDataIntegrity({ warmupMs: Math.min(500, durationMs / 3), durationMs })
    return { results, targets: dataIntegrityTargets(results) }
  },
}

/**
 * Issue 32: per Data Integrity suite, our sign / verify (pool) ÷ its floor ≥ 0.6 and ÷ @digitalbazaar/vc ≥ 1.0
 * (`diSign.<cryptosuite>VsFloor`, …; ecdsa-sd-2023: the base proof's sign only).
 */
function dataIntegrityTargets(results: DataIntegrityResults): Target[] {
  return Object.entries(results.suites).flatMap(([cryptosuite, r]) =>
    (['sign', 'verify'] as const).flatMap((op) => {
      const pair = r[op]
      if (pair === undefined) return []
      const name = `di${op === 'sign' ? 'Sign' : 'Verify'}.${cryptosuite}`
      return [
        ...(pair.vsFloor === undefined ? [] : [atLeast(`${name}VsFloor`, 'memory', 0.6, pair.vsFloor)]),
        atLeast(`${name}VsLibrary`, 'memory', 1.0, pair.vsLibrary),
      ]
    }),
  )
}

/**
 * Issue 35: per key type, didvault's VC-JWT signing with an HSM wallet (record read, wallet signer, JWT format; SoftHSM2)
 * ÷ did-jwt-vc with a direct C_SignAsync signer on the same token and pool, ≥ 0.7.
 */
function pkcs11Targets(results: Pkcs11BenchResults): Target[] {
  return Object.entries(results.types).map(([type, r]) => atLeast(`pkcs11VcJwtVsCSignAsync.${type}`, 'sqlite', 0.7, r.vcJwt.ratio))
}

/** Issue 33: pre-authorized issuance of one SD-JWT VC over loopback HTTP ÷ the floor Express app, ≥ 0.5 per storage. */
function oid4vciTargets(results: Oid4vciBenchResults): Target[] {
  return (['sqlite', 'postgres'] as const).map((storage) => atLeast('oid4vciIssuanceVsFloor', storage, 0.5, results[storage].ratio))
}

/** Issue 34: the wallet's POST to the response_uri (`direct_post`, one SD-JWT VC) ÷ `POST /presentations/verify`, ≥ 0.7. */
function oid4vpTargets(results: Oid4vpBenchResults): Target[] {
  return [atLeast('oid4vpResponseVsVerify', results.storage, 0.7, results.directPost.ratio)]
}

/** Issue 31: SD-JWT VC issue (10 disclosable claims) and presentation verify (KB) ÷ @sd-jwt/sd-jwt-vc, ≥ 0.8 each. */
function sdJwtTargets(results: SdJwtResults): Target[] {
  return [
    atLeast('sdJwtIssueVsLibrary', 'memory', 0.8, results.issue.ratio),
    atLeast('sdJwtVerifyPresentationVsLibrary', 'memory', 0.8, results.verifyPresentation.ratio),
  ]
}

/** Issue 31: publishing a changed 131,072-entry Status List Token (set one status, encode, sign with P-256) ≤ 50 ms p50. */
function tokenStatusListTargets(results: TokenStatusListResults): Target[] {
  const actual = results.publish.p50Ms
  return [{ name: 'tokenStatusListPublishP50Ms', storage: 'sqlite', max: 50, actual, pass: actual <= 50 }]
}

/** Issue 20 and 29: a VC-JWT with one status entry ÷ without, its list cached (a foreign list) or the service's own (≥ 0.8 each). */
function statusVerifyTargets(results: StatusVerifyResults): Target[] {
  return [
    atLeast('jwtVcVerifyWithStatusVsWithout', 'memory', 0.8, results.ratio),
    atLeast('jwtVcVerifyWithOwnListStatusVsWithout', 'memory', 0.8, results.ownList.ratio),
  ]
}

/** Issue 30: per key type (did:key wallets on SQLite), wallet creation ÷ its floor and VC-JWT sign / verify ÷ did-jwt-vc ≥ 0.7. */
function keyTypeTargets(results: Record<string, KeyTypeResults>): Target[] {
  return Object.entries(results).flatMap(([keyType, r]) => [
    atLeast(`walletCreationVsFloor:${keyType}`, 'sqlite', 0.7, r.walletCreation.ratio),
    atLeast(`jwtVcSignVsDidJwtVc:${keyType}`, 'sqlite', 0.7, r.jwtVcSign.ratio),
    atLeast(`jwtVcVerifyVsDidJwtVc:${keyType}`, 'sqlite', 0.7, r.jwtVcVerify.ratio),
  ])
}

async function benchKeyTypesSqlite(): Promise<Record<string, KeyTypeResults>> {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-key-types-'))
  try {
    return await benchKeyTypes('sqlite', createSqliteStorage({ path: join(dir, 'key-types.db') }), OPTIONS)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Token verify ÷ raw verify, and ECS wallet generation ÷ its raw floor (key generation + seal + one insert), each interleaved. */
function serviceRatios(storage: Record<'memory' | 'sqlite', ServiceResults>) {
  const ratio = (s: ServiceResults) => Number((s.didAuthTokenVerification.opsPerSec / s.rawVerifyInterleaved.opsPerSec).toFixed(3))
  return {
    didAuthVerifyVsRawVerify: { memory: ratio(storage.memory), sqlite: ratio(storage.sqlite) },
    ecsWalletVsFloor: { memory: floorRatio(storage.memory), sqlite: floorRatio(storage.sqlite) },
  }
}

/** ECS (did:ethr) wallet generation ÷ its raw floor, interleaved. */
const floorRatio = (s: ServiceResults) => Number((s.ecsWalletGeneration.opsPerSec / s.walletCreationFloor.opsPerSec).toFixed(3))

/** The did:ethr rows of the service (issues 4, 5): wallets, BIP44 wallets, DID-auth verification, embedded resolution. */
function serviceTargets(storage: Record<'memory' | 'sqlite', ServiceResults>): Target[] {
  const ratios = serviceRatios(storage)
  return (['memory', 'sqlite'] as const).flatMap((s) => [
    atLeast('ecsWalletGenerationOpsPerSec', s, 500, storage[s].ecsWalletGeneration.opsPerSec),
    atLeast('ecsWalletVsFloor', s, 0.7, ratios.ecsWalletVsFloor[s]),
    atLeast('bip44NextWalletOpsPerSec', s, 400, storage[s].bip44NextWallet.opsPerSec),
    atLeast('didAuthVerifyVsRawVerify', s, 0.7, ratios.didAuthVerifyVsRawVerify[s]),
    atLeast('embeddedResolution5ChangesOpsPerSec', s, 5_000, storage[s].did.embeddedResolution5Changes.opsPerSec),
    atLeast('didAuthVerify5ChangesVsRawVerify', s, 0.7, storage[s].did.ratios.owner),
  ])
}

/** A target met at `min` or more. */
const atLeast = (name: string, storage: Target['storage'], min: number, actual: number): Target => ({
  name,
  storage,
  min,
  actual,
  pass: actual >= min,
})

/**
 * Signing and verifying credentials (issue 10), each against its floor measured interleaved, on SQLite with its default
 * durability (FULL: each signature's audit record is synced before it returns): JWT sign ≥ 70% of did-jwt-vc's
 * createVerifiableCredentialJwt, JWT verify ≥ 70% of raw OpenSSL verify (owner and generated delegate), JSON-LD ≥ 55% of
 * two canonicalizations + one sign/verify per suite and ≥ 10× Veramo (21/s sign, 13/s verify). The same signatures on
 * `synchronous = NORMAL` are information: what durability costs them.
 */
function claimsCryptoTargets(cc: ClaimsCryptoResults): Target[] {
  const targets = [
    atLeast('jwtVcSignVsRawCreateVerifiableCredentialJwt', 'sqlite', 0.7, cc.jwtSign.ratio),
    atLeast('jwtVcVerifyVsRawVerify', 'sqlite', 0.7, cc.jwtVerify.ratio),
    atLeast('jwtVcVerifyByDelegateVsRawVerify', 'sqlite', 0.7, cc.jwtVerifyByDelegate.ratio),
  ]
  for (const [suite, r] of Object.entries(cc.jsonLd)) {
    targets.push(atLeast(`jsonLdSignVsFloor:${suite}`, 'sqlite', 0.55, r.sign.ratio))
    targets.push(atLeast(`jsonLdVerifyVsFloor:${suite}`, 'sqlite', 0.55, r.verify.ratio))
    targets.push(atLeast(`jsonLdSignOpsPerSec:${suite}`, 'sqlite', 210, r.sign.ours.opsPerSec))
    targets.push(atLeast(`jsonLdVerifyOpsPerSec:${suite}`, 'sqlite', 130, r.verify.ours.opsPerSec))
  }
  return targets
}

/** The machine and the run, as every report starts. */
function header(started: number, loadStart: number) {
  return {
    benchmark: 'didvault',
    timestamp: new Date(started).toISOString(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    /** 1-minute load average before and after: other work on the machine skews absolute rates (the interleaved ratio less so). */
    loadAverage: { start: Number(loadStart.toFixed(2)), end: Number(os.loadavg()[0].toFixed(2)) },
  }
}

/** `--only <section>`: that section alone. */
async function runSection(name: string, started: number, loadStart: number): Promise<void> {
  const section = SECTIONS[name]
  if (section === undefined) throw new Error(`bench: no section ${name} (sections: ${Object.keys(SECTIONS).join(', ')})`)
  const { results, targets } = await section()
  const report = { ...header(started, loadStart), [name]: results, targets, allTargetsPass: targets.every((t) => t.pass) }
  process.stdout.write(`${JSON.stringify({ ...report, totalMs: Date.now() - started }, null, 2)}\n`)
}

async function main(): Promise<void> {
  const started = Date.now()
  const loadStart = os.loadavg()[0]
  const only = process.argv.indexOf('--only')
  if (only !== -1) return runSection(process.argv[only + 1] ?? '', started, loadStart)
  const storage = { memory: await benchService('memory', createMemoryStorage(), OPTIONS), sqlite: await benchSqlite() }
  const roles = { memory: await benchRoles('memory', createMemoryStorage(), OPTIONS), sqlite: await benchRolesSqlite() }
  const credentials = { sqlite: await benchCredentialsSqlite() }
  const claimsCrypto = { sqlite: await benchClaimsCryptoSqlite() }
  const keyTypes = { sqlite: await benchKeyTypesSqlite() }
  const presentations = { memory: await benchPresentations('memory', createMemoryStorage(), OPTIONS) }
  const statusVerify = { memory: await benchStatusVerify('memory', createMemoryStorage(), OPTIONS) }
  const status = { sqlite: await benchStatusSqlite(OPTIONS) }
  const tokenStatusList = { sqlite: await benchTokenStatusList(OPTIONS) }
  const audit = { sqlite: await benchAudit(OPTIONS) }
  const secp256k1 = await benchRawSecp256k1(OPTIONS)
  const slip10 = await benchSlip10(STORAGE_OPTIONS)
  const storageAdapters = await benchStorageAdapters()
  const { storage: postgresStorage, ...postgres } = await benchPostgres(OPTIONS, STORAGE_OPTIONS)
  storageAdapters.results.postgres = postgresStorage
  const unauthenticatedFlood = await benchUnauthenticatedFlood(OPTIONS)
  const hostileBodies = await benchHostileBodies(HOSTILE_BODIES_OPTIONS)
  const observability = await benchObservability(OPTIONS)
  const jsonLdLoad = await benchJsonLdLoad(JSONLD_LOAD_OPTIONS)
  const mpc = { memory: await benchMpc('memory', createMemoryStorage(), OPTIONS), sqlite: await benchMpcSqlite() }
  const serverRss = await benchServerRss()
  const authorizationParsing = await benchAuthHeader(STORAGE_OPTIONS)
  const client = {
    overhead: await benchClientOverhead(OPTIONS),
    walletsPageHttp: {
      memory: await benchWalletsPageRate('memory', createMemoryStorage(), OPTIONS),
      sqlite: await benchWalletsPageRateSqlite(),
    },
  }
  const workers = { sqlite: await benchWorkers('sqlite'), postgres: await benchWorkers('postgres') }
  const oneTenantScaling = await benchOneTenant()

  const ratios = serviceRatios(storage)
  const target = (name: string, s: Target['storage'], min: number, actual: number): Target => ({
    name,
    storage: s,
    min,
    actual,
    pass: actual >= min,
  })
  const targets = [
    ...serviceTargets(storage),
    ...(['memory', 'sqlite'] as const).flatMap((s) => [
      target('mpcSigning2of3OpsPerSec', s, 200, mpc[s].signing2of3.opsPerSec),
      target('mpcWalletDerivationOpsPerSec', s, 400, mpc[s].walletDerivation.opsPerSec),
    ]),
  ]
  // Roles: creation, and "may this caller read this credential" (caller holding 100 roles; its facts computed once per request) at 100k assignments, within 2x of 10k.
  for (const s of ['memory', 'sqlite'] as const) {
    const decision = roles[s].readCredentialDecision
    targets.push(target('roleCreationOpsPerSec', s, 400, roles[s].roleCreation.opsPerSec))
    targets.push(target('readCredentialDecisionsPerSecAt100kAssignments', s, 5_000, decision.at100k.perCredential.opsPerSec))
    for (const [name, actual] of [
      ['readCredentialDecisionLatency100kVs10k', decision.perCredentialLatencyRatio100kVs10k],
      ['readCredentialDecisionPerRequestLatency100kVs10k', decision.perRequestLatencyRatio100kVs10k],
    ] as const) {
      targets.push({ name, storage: s, max: 2, actual, pass: actual <= 2 })
    }
  }
  // Stored credentials (issue 10): store ≥ 25% of the adapter's batched insert (batches of 1,000); fetch by issuer (10 rows, access-filtered) ≥ 25% of the raw indexed page, and within 2x at 100k of 10k.
  targets.push(target('credentialStoreVsRawInsert', 'sqlite', 0.25, credentials.sqlite.storeVsRawInsert))
  targets.push(target('credentialFetchByIssuerVsRawIndexedPage', 'sqlite', 0.25, credentials.sqlite.fetch.at10k.ratio))
  targets.push({
    name: 'credentialFetchLatency100kVs10k',
    storage: 'sqlite',
    max: 2,
    actual: credentials.sqlite.fetch.latencyRatio100kVs10k,
    pass: credentials.sqlite.fetch.latencyRatio100kVs10k <= 2,
  })
  // Issue 19, PostgreSQL started by the bench: each ÷ its floor through pg directly (interleaved); fetch latency at 1M within 2x of 10k.
  const pgc = postgres.credentials
  targets.push(target('ecsWalletVsFloor', 'postgres', 0.7, floorRatio(postgres.service)))
  targets.push(target('credentialStoreVsRawInsert', 'postgres', 0.5, pgc.storeVsRawInsert))
  targets.push(target('credentialFetchByIssuerVsRawIndexedQuery', 'postgres', 0.3, Math.min(pgc.fetch.at10k.ratio, pgc.fetch.at1M.ratio)))
  const pgFetch = pgc.fetch.latencyRatio1MVs10k
  targets.push({ name: 'credentialFetchLatency1MVs10k', storage: 'postgres', max: 2, actual: pgFetch, pass: pgFetch <= 2 })
  targets.push(...claimsCryptoTargets(claimsCrypto.sqlite))
  // Issue 30: per key type, wallet creation ÷ floor and VC-JWT sign / verify ÷ did-jwt-vc (≥ 0.7 each).
  targets.push(...keyTypeTargets(keyTypes.sqlite))
  // Issue 20: a VC-JWT with one status entry (its list cached) ÷ without, interleaved; issue 29: the same on the service's own list.
  targets.push(...statusVerifyTargets(statusVerify.memory))
  // Issue 20: status changes ≥ 1,000/s in batches of 100; publishing a changed 131,072-entry list ≤ 50 ms p50 (JWT and JSON-LD).
  targets.push(...statusTargets(status.sqlite))
  // Issue 31: publishing a changed 131,072-entry Status List Token ≤ 50 ms p50 (the @sd-jwt/jwt-status-list floor is information).
  targets.push(...tokenStatusListTargets(tokenStatusList.sqlite))
  // Issue 21: ECS wallet generation and credential store (batches of 1,000) with the audit trail ÷ without, interleaved.
  targets.push(...auditTargets(audit.sqlite))
  // Issue 20: a VP-JWT holding one VC-JWT, verified ÷ two raw OpenSSL verifies (interleaved) ≥ 0.6.
  targets.push(target('vpJwtVerifyVsRawFloor', 'memory', 0.6, presentations.memory.ratio))
  // Issue 16: a small authenticated request while another tenant verifies, in a loop, the largest JSON-LD credential the bounds accept.
  const loadRatio = jsonLdLoad.p50Ratio
  const loadTarget = 'authenticatedP50UnderLargestJsonLdVerifyVsAlone'
  targets.push({ name: loadTarget, storage: 'memory', max: 2, actual: loadRatio, pass: loadRatio <= 2 })
  // A didvault serve process holding 100k credentials (SQLite) peaks under 300 MB resident.
  targets.push({
    name: 'serverPeakRssMbWith100kCredentials',
    storage: 'sqlite',
    max: 300,
    actual: serverRss.peakRssMb,
    pass: serverRss.peakRssMb <= 300,
  })
  // Indexes, not scans: the filtered list at 100k stays within 2x of its latency at 10k.
  for (const [s, results] of Object.entries(storageAdapters.results)) {
    const actual = results.filteredListPage50.latencyRatio100kVs10k
    targets.push({ name: 'filteredListLatency100kVs10k', storage: s, max: 2, actual, pass: actual <= 2 })
  }
  // Issue 17: authenticated GET /wallets?limit=10 from a separate client process (the client's overhead is information only).
  for (const [s, rate] of Object.entries(client.walletsPageHttp))
    targets.push(target('httpGetWalletsLimit10PerSec', s, 2_000, rate.counts.requestsPerSec))
  // Issue 19: didvault serve --workers 2 ÷ --workers 1, over a bare node:http cluster's same scaling (PostgreSQL: information,
  // its server's CPU is load the floor does not have).
  for (const [name, r] of Object.entries(workers.sqlite.requests))
    targets.push(target(`workers2ScalingVsFloor:${name}`, 'sqlite', 0.8, r.scalingVsFloor))
  // Issue 21: unauthenticated 1 MiB bodies slow an authenticated request down little more than they would a bare node:http
  // server refusing them (the old ratio to "alone", ≤ 1.5, stays in unauthenticatedFlood.p50Ratio as information).
  const max = (name: string, limit: number, actual: number): Target => ({
    name,
    storage: 'memory',
    max: limit,
    actual,
    pass: actual <= limit,
  })
  targets.push(max('authenticatedP50UnderUnauthenticatedFloodVsFloor', 1.3, unauthenticatedFlood.p50RatioVsFloor))
  // Issue 28: another tenant's p50 while 2 clients send the worst 1 MiB bodies limits.depth admits ÷ the same while they
  // send them to a floor that reads, JSON.parses and 422s them, interleaved: ≤ 1.5 (÷ alone is information).
  targets.push(...hostileBodies.targets)
  // Issue 21: logging at info costs at most 5% of GET /wallets throughput; a 10k-sample scrape answers within 10 ms (p50).
  targets.push(target('loggingInfoVsSilentThroughput', 'memory', 0.95, observability.loggingCost.throughputRatio))
  targets.push(max('metricsScrape10kSamplesP50Ms', 10, observability.metricsScrape.scrape.p50Ms))
  // Issue 27: one tenant's writes by 16 clients ÷ the same load over 16 tenants ≥ 0.9, p95 ÷ mean ≤ 2, retries per write ≤ 0.05
  // (PostgreSQL, one didvault serve process; --workers 2 and SQLite FULL/NORMAL are information).
  targets.push(...oneTenantTargets(oneTenantScaling))

  const report = {
    ...header(started, loadStart),
    measurement: { ...OPTIONS, concurrency: 1 },
    storage,
    roles,
    credentials,
    claimsCrypto,
    keyTypes,
    presentations,
    statusVerify,
    status,
    tokenStatusList,
    audit,
    secp256k1,
    slip10,
    storageAdapters: { ...storageAdapters.results, skipped: storageAdapters.skipped },
    postgres,
    unauthenticatedFlood,
    hostileBodies: hostileBodies.results,
    observability,
    jsonLdLoad,
    mpc,
    serverRss,
    authorizationParsing,
    client,
    workers,
    oneTenantScaling,
    ratios,
    targets,
    allTargetsPass: targets.every((t) => t.pass),
    totalMs: Date.now() - started,
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})

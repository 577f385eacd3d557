/**
 * Issue 21, the audit trail's cost on SQLite: the same operations on two services, one with the
 * trail (`audit: true`, the default) and one without (`audit: false`), each on its own database
 * file, measured in interleaved slices (so load on the shared machine hits both alike):
 *
 * - ECS wallet generation (`generateWallet`): one act, one record (a single insert becomes a
 *   transaction with the chain head read and written and the record inserted);
 * - credential store in batches of 1,000 synthetic VC-JWTs (`storeClaims`): 1,000 records in the
 *   batch's transaction, one head read and write.
 *
 * Target: with ÷ without ≥ 0.9 for each.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { IdentityService, randomMasterKey, staticTenants } from '../src/index.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { vcJwt } from './credentials.js'
import { measurePair, type MeasureOptions, type Measurement } from './measure.js'

const API_KEY = 'bench-audit-api-key-0123456789'
const BATCH = 1_000

export interface AuditPair {
  withAudit: Measurement
  withoutAudit: Measurement
  /** ops/s with the trail ÷ ops/s without. */
  ratio: number
}

export interface AuditResults {
  ecsWalletGeneration: AuditPair
  credentialStoreBatch1000: AuditPair
}

const round = (n: number) => Number(n.toFixed(3))

/** A service on a fresh SQLite file, with or without the trail, and a caller holding a wallet it stores as. */
async function open(dir: string, audit: boolean) {
  const service = await IdentityService.create({
    storage: createSqliteStorage({ path: join(dir, `${audit ? 'with' : 'without'}.db`) }),
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [API_KEY]: 'bench' }),
    audit,
  })
  const api = service.as({ authorization: `Bearer ${API_KEY}` })
  const me = (await api.generateWallet({})).wallet.did
  const asMe = service.as({ authorization: `Bearer ${API_KEY}`, didAuth: (await api.generateToken({ iss: me })).jwt })
  return { service, api, asMe }
}

const others = Array.from({ length: 50 }, (_, i) => `did:ethr:dev:0x${(i + 1).toString(16).padStart(40, 'f')}`)
const batch = () => Array.from({ length: BATCH }, (_, i) => ({ jwt: vcJwt(others[i % others.length]) }))

export async function benchAudit(options: MeasureOptions): Promise<AuditResults> {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-audit-'))
  const on = await open(dir, true)
  const off = await open(dir, false)
  try {
    const pair = ([withAudit, withoutAudit]: [Measurement, Measurement]): AuditPair => ({
      withAudit,
      withoutAudit,
      ratio: round(withAudit.opsPerSec / withoutAudit.opsPerSec),
    })
    const ecsWalletGeneration = pair(
      await measurePair(
        { label: 'audit on: ECS wallet generation (sqlite)', fn: () => on.api.generateWallet({}) },
        { label: 'audit off: ECS wallet generation (sqlite)', fn: () => off.api.generateWallet({}) },
        options,
      ),
    )
    // A store of 1,000 takes tens of ms: slices long enough to hold several.
    const credentialStoreBatch1000 = pair(
      await measurePair(
        { label: 'audit on: store 1,000 VC-JWTs (sqlite)', fn: () => on.asMe.storeClaims({ claims: batch() }) },
        { label: 'audit off: store 1,000 VC-JWTs (sqlite)', fn: () => off.asMe.storeClaims({ claims: batch() }) },
        { warmupMs: options.warmupMs, durationMs: options.durationMs * 2 },
        500,
      ),
    )
    return { ecsWalletGeneration, credentialStoreBatch1000 }
  } finally {
    await on.service.close()
    await off.service.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The targets: with the trail ÷ without ≥ 0.9, for each. */
export function auditTargets(results: AuditResults) {
  return (['ecsWalletGeneration', 'credentialStoreBatch1000'] as const).map((name) => {
    const actual = results[name].ratio
    return { name: `auditOnVsOff:${name}`, storage: 'sqlite', min: 0.9, actual, pass: actual >= 0.9 }
  })
}

// Standalone: `node --import tsx bench/audit.ts` (SQLite in a temporary directory), with the run's measurement options.
if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await benchAudit({ warmupMs: 500, durationMs: 2_000 })
  const targets = auditTargets(results)
  process.stdout.write(`${JSON.stringify({ ...results, targets, allTargetsPass: targets.every((t) => t.pass) }, null, 2)}\n`)
}

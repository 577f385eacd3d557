/**
 * `npm run bench`: prints ONE JSON object on stdout (progress goes to stderr) with ops/s and
 * p50/p95 latencies of the service's hot paths on memory and SQLite storage, the raw
 * secp256k1 rates of this machine in the same run, and the targets as pass/fail.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { createMemoryStorage } from '../src/index.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import type { MeasureOptions } from './measure.js'
import { benchRawSecp256k1 } from './secp256k1.js'
import { benchService, type ServiceResults } from './service.js'

const OPTIONS: MeasureOptions = { warmupMs: 500, durationMs: 2_000 }

interface Target {
  name: string
  storage: 'memory' | 'sqlite'
  min: number
  actual: number
  pass: boolean
}

async function benchSqlite(): Promise<ServiceResults> {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-'))
  try {
    return await benchService('sqlite', createSqliteStorage({ path: join(dir, 'bench.db') }), OPTIONS)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const started = Date.now()
  const loadStart = os.loadavg()[0]
  const storage = { memory: await benchService('memory', createMemoryStorage(), OPTIONS), sqlite: await benchSqlite() }
  const secp256k1 = await benchRawSecp256k1(OPTIONS)

  // Token verify ÷ raw verify, both measured interleaved on the same storage run, so machine load affects both alike.
  const ratio = (s: ServiceResults) => Number((s.didAuthTokenVerification.opsPerSec / s.rawVerifyInterleaved.opsPerSec).toFixed(3))
  const ratios = { didAuthVerifyVsRawVerify: { memory: ratio(storage.memory), sqlite: ratio(storage.sqlite) } }
  const target = (name: string, s: Target['storage'], min: number, actual: number): Target => ({ name, storage: s, min, actual, pass: actual >= min })
  const targets = (['memory', 'sqlite'] as const).flatMap((s) => [
    target('ecsWalletGenerationOpsPerSec', s, 500, storage[s].ecsWalletGeneration.opsPerSec),
    target('bip44NextWalletOpsPerSec', s, 400, storage[s].bip44NextWallet.opsPerSec),
    target('didAuthVerifyVsRawVerify', s, 0.7, ratios.didAuthVerifyVsRawVerify[s]),
  ])

  const report = {
    benchmark: 'didvault',
    timestamp: new Date(started).toISOString(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    /** 1-minute load average before and after: other work on the machine skews absolute rates (the interleaved ratio less so). */
    loadAverage: { start: Number(loadStart.toFixed(2)), end: Number(os.loadavg()[0].toFixed(2)) },
    measurement: { ...OPTIONS, concurrency: 1 },
    storage,
    secp256k1,
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

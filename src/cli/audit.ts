/** `didvault audit verify`: walks the audit chains of a storage and reports the first break. */
import { parseArgs } from 'node:util'
import { chainExists, verifyChains, type ChainReport } from '../audit/verify-chain.js'
import { SYSTEM_CHAIN } from '../audit/records.js'
import { API_KEYS } from '../auth/records.js'
import { collectionOf } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import { COLLECTIONS } from '../service/collections.js'
import { effectiveConfig } from '../config/effective.js'
import { configFileOf } from './serve-config.js'
import { openStorage, storageTargetOf } from './storage-target.js'
import { USAGE, UsageError } from './usage.js'
import { existsSync } from 'node:fs'
import { escapeText } from '../text/escape.js'

/**
 * Runs an `audit` subcommand; resolves to the exit status (1: a chain is broken). No master key is
 * needed, and the storage is opened read-only. An unknown `--tenant` is an error (exit 1).
 */
export async function audit(args: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  const [sub, ...rest] = args
  if (sub === '-h' || sub === '--help') return (out(USAGE.audit), 0)
  if (sub !== 'verify') throw new UsageError(sub === undefined ? 'audit needs a subcommand: verify' : `unknown audit subcommand ${sub}`)
  const { values } = parseArgs({
    args: rest,
    options: {
      tenant: { type: 'string' },
      storage: { type: 'string' },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  })
  if (values.help) return (out(USAGE.audit), 0)
  // The storage `serve` would use: --storage, else DIDVAULT_STORAGE, else the config file's (--config or DIDVAULT_CONFIG).
  const flagged = values.storage === undefined ? {} : { storage: values.storage }
  const fromEnv = env.DIDVAULT_STORAGE ? { storage: env.DIDVAULT_STORAGE } : {}
  const { storage: spec, storageSettings } = effectiveConfig(flagged, fromEnv, configFileOf(values.config, env)).config
  const target = storageTargetOf(spec, storageSettings)
  if (target.kind === 'memory')
    throw new UsageError('audit verify needs the storage of a server (sqlite:<path>, postgres://..., mongodb://...)')
  if (target.kind === 'sqlite' && !existsSync(target.path)) throw new Error(`no didvault database at ${target.path}`)
  // Read-only: verifying writes nothing, and works on a read-only backup.
  const storage = await openStorage(target, { readonly: true })
  try {
    await storage.init(COLLECTIONS)
    if (values.tenant !== undefined && !(await knownTenant(storage, values.tenant)))
      throw new Error(`no tenant ${JSON.stringify(values.tenant)} in this storage (no audit record and no API key of it)`)
    const reports = await verifyChains(storage, values.tenant)
    const broken = reports.find((r) => r.break !== undefined)
    // Tenants and a record's identifiers are shown escaped (a record holds them as appended, which an attacker may have changed).
    if (broken?.break) {
      const { tenant, seq, problem, act } = broken.break
      const at = act === undefined ? '' : ` (${escapeText(act.action)} on ${escapeText(act.targetType)} ${escapeText(act.targetId)})`
      out(`audit chain of "${escapeText(tenant)}" is broken at seq ${seq}${at}: ${problem}`)
      return 1
    }
    for (const r of reports) out(`${escapeText(r.tenant)}: ${r.records} records, chain intact${lagOf(r)}`)
    if (reports.length === 0) out('no audit records')
    return 0
  } finally {
    await storage.close()
  }
}

/** A tenant has a chain (a head, or records not chained yet), or an API key. The system chain is always known. */
async function knownTenant(storage: StorageAdapter, tenant: string): Promise<boolean> {
  if (tenant === SYSTEM_CHAIN || (await chainExists(storage, tenant))) return true
  return (await collectionOf(storage, API_KEYS).findOne({ field: 'tenantId', op: 'eq', value: tenant })) !== undefined
}

/** The integration lag of a chain, as the report line's tail: committed records the sequencer has not chained yet. */
function lagOf(report: ChainReport): string {
  if (report.unchained === undefined) return ''
  const { records, oldestAppendedAt } = report.unchained
  const age = Math.max(0, (Date.now() - oldestAppendedAt) / 1000).toFixed(1)
  return `; ${records} committed records not chained yet (lag, not a break: the oldest appended ${age} s ago)`
}

/**
 * `didvault keys create|list|revoke`: API keys on the same storage and master keys as `serve`. The
 * storage must be one a service has set up, unless `keys create --create` (before the first start).
 */
import { parseArgs } from 'node:util'
import type { ApiKeyInfo } from '../auth/api-keys.js'
import { effectiveConfig } from '../config/effective.js'
import { configFileOf } from './serve-config.js'
import { openService, storageTargetOf } from './storage-target.js'
import { USAGE, UsageError } from './usage.js'

/** Runs a `keys` subcommand; output goes to `out` (stdout). */
export async function keys(args: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const [sub, ...rest] = args
  if (sub === undefined) throw new UsageError('keys needs a subcommand: create, list or revoke')
  if (sub === '-h' || sub === '--help') return out(USAGE.keys)
  if (!['create', 'list', 'revoke'].includes(sub))
    throw new UsageError(`unknown keys subcommand ${JSON.stringify(sub)} (create, list or revoke)`)
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      tenant: { type: 'string' },
      label: { type: 'string' },
      json: { type: 'boolean', default: false },
      create: { type: 'boolean', default: false },
      storage: { type: 'string' },
      'previous-master-key-file': { type: 'string', multiple: true },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  })
  if (values.help) return out(USAGE.keys)
  if (sub === 'revoke' ? positionals.length !== 1 : positionals.length !== 0) {
    throw new UsageError(sub === 'revoke' ? 'keys revoke takes one key id' : `keys ${sub} takes no positional arguments`)
  }
  if (sub === 'create' && !values.tenant) throw new UsageError('keys create needs --tenant <id>')
  if (sub !== 'create' && values.label !== undefined) throw new UsageError('--label goes with keys create')
  if (sub !== 'create' && values.create) throw new UsageError('--create goes with keys create')
  if (sub === 'revoke' && (values.tenant !== undefined || values.json))
    throw new UsageError('keys revoke takes only the key id (and --storage)')
  // The storage `serve` would use: --storage, else DIDVAULT_STORAGE, else the config file's (--config or DIDVAULT_CONFIG).
  const flagged = values.storage === undefined ? {} : { storage: values.storage }
  const fromEnv = env.DIDVAULT_STORAGE ? { storage: env.DIDVAULT_STORAGE } : {}
  const file = configFileOf(values.config, env)
  const { storage: spec, storageSettings } = effectiveConfig(flagged, fromEnv, file).config
  const target = storageTargetOf(spec, storageSettings)
  if (target.kind === 'memory')
    throw new UsageError(
      'keys needs the storage of a server (sqlite:<path>, postgres://... or mongodb://...): memory storage lives inside one serve process',
    )

  // A mistyped --storage must not become a new database holding a key no server sees.
  const previousKeyFiles = values['previous-master-key-file'] ?? file?.previousMasterKeyFiles ?? []
  const missingHint = sub === 'create' ? ', or add --create to set up a new one' : ''
  const { service } = await openService(target, env, { mustExist: !values.create, missingHint, previousKeyFiles })
  try {
    const apiKeys = service.apiKeys!
    if (sub === 'create') {
      const created = await apiKeys.create(values.tenant!, { label: values.label })
      out(
        values.json
          ? JSON.stringify(created)
          : `created key ${created.id} for tenant "${created.tenantId}" (shown once, stored only as a keyed hash):\n${created.key}`,
      )
    } else if (sub === 'list') {
      const list = await apiKeys.list({ tenantId: values.tenant })
      out(values.json ? JSON.stringify(list) : table(list))
    } else {
      const id = positionals[0]
      if (!(await apiKeys.revoke(id))) throw new Error(`no API key with id ${id}`)
      out(`revoked key ${id}`)
    }
  } finally {
    await service.close()
  }
}

/** The keys as aligned columns. */
function table(list: ApiKeyInfo[]): string {
  const rows = [
    ['ID', 'TENANT', 'CREATED', 'LAST USED', 'LABEL'],
    ...list.map((k) => [k.id, k.tenantId, k.createdAt, k.lastUsedAt ?? '-', k.label ?? '']),
  ]
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

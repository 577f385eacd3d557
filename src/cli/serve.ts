/** `didvault serve`: the router on its own Express app, with storage and keys from flags and environment. */
import { once } from 'node:events'
import type { ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { IdentityService } from '../service.js'
import { createMemoryStorage } from '../storage/memory/index.js'
import type { StorageAdapter } from '../storage/port.js'
import { createRouter } from '../http/router.js'
import { resolveMasterKey } from './master-key.js'

export interface ServeOptions {
  host: string
  port: number
  /** `memory`, `sqlite:<path>` or `mongodb://host[:port]/db` (also `mongodb+srv://`). */
  storage: string
}

/** Where `--storage` points. */
type StorageTarget = { kind: 'memory' } | { kind: 'sqlite'; path: string } | { kind: 'mongodb'; url: string }

function storageTargetOf(spec: string): StorageTarget {
  if (spec === 'memory') return { kind: 'memory' }
  if (spec.startsWith('sqlite:') && spec.length > 'sqlite:'.length) return { kind: 'sqlite', path: spec.slice('sqlite:'.length) }
  if (/^mongodb(\+srv)?:\/\/./.test(spec)) return { kind: 'mongodb', url: spec }
  throw new Error(`unknown --storage ${spec} (use memory, sqlite:<path> or mongodb://host/db)`)
}

/** Opens the storage; the SQLite and MongoDB adapters are loaded only when asked for (their drivers are optional peers). */
async function openStorage(target: StorageTarget): Promise<StorageAdapter> {
  if (target.kind === 'memory') return createMemoryStorage()
  if (target.kind === 'sqlite') {
    const { createSqliteStorage } = await import('../storage/sqlite/index.js')
    return createSqliteStorage({ path: target.path })
  }
  const { createMongoStorage } = await import('../storage/mongo/index.js')
  return createMongoStorage({ url: target.url })
}

/** Parses `DIDVAULT_API_KEYS` (`tenant:key,tenant:key`). */
export function parseApiKeys(value: string): Array<{ tenant: string; key: string }> {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf(':')
      if (at <= 0 || at === pair.length - 1) throw new Error('DIDVAULT_API_KEYS must look like tenant:key,tenant:key')
      return { tenant: pair.slice(0, at), key: pair.slice(at + 1) }
    })
}

export async function serve(options: ServeOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const target = storageTargetOf(options.storage)
  // The key is settled before the database is opened (opening creates the file).
  const master = resolveMasterKey(env, target)
  const storage = await openStorage(target)
  if (target.kind === 'mongodb' && !storage.capabilities.multiProcess) {
    console.warn('didvault: this MongoDB is a standalone server (no replica set): transactions run in the fallback mode, atomic within this process only; run one didvault process per database, or use a replica set')
  }
  const service = await IdentityService.create({ storage, masterKey: master.key })
  const apiKeys = service.apiKeys!

  if (env.DIDVAULT_API_KEYS) {
    for (const { tenant, key } of parseApiKeys(env.DIDVAULT_API_KEYS)) await apiKeys.addKey(tenant, key)
  } else if (!(await apiKeys.hasKeys())) {
    const key = await apiKeys.createKey('default')
    console.log(`didvault: created an API key for tenant "default" (shown once, stored only as a hash): ${key}`)
  }

  let stopping = false
  const app = express()
  app.disable('x-powered-by')
  // Responses not yet sent when stopping close their connection, so keep-alive clients cannot hold the process open.
  const pending = new Set<ServerResponse>()
  app.use((_req, res, next) => {
    if (stopping) res.shouldKeepAlive = false
    pending.add(res)
    res.on('close', () => pending.delete(res))
    next()
  })
  app.use(createRouter(service))
  app.use((_req, res) => {
    res.status(404).json({ statusCode: 404, errorType: 'NOT_FOUND', errorMessage: 'no such route' })
  })
  const server = app.listen(options.port, options.host)
  await once(server, 'listening')
  const stop = (signal: string) => {
    if (stopping) {
      console.log(`didvault: ${signal} again, closing all connections`)
      server.closeAllConnections()
      return
    }
    stopping = true
    console.log(`didvault: ${signal}, finishing in-flight requests`)
    for (const res of pending) if (!res.headersSent) res.shouldKeepAlive = false
    // In-flight requests get a grace period, then their connections are cut.
    const deadline = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS)
    deadline.unref()
    server.close(() => {
      clearTimeout(deadline)
      service.close().then(
        () => process.exit(0),
        () => process.exit(1),
      )
    })
    server.closeIdleConnections()
  }
  // Handlers are in place before the listening line: a supervisor may signal as soon as it reads it.
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
  const { port } = server.address() as AddressInfo
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  console.log(`didvault listening on http://${host}:${port}`)
}

/** How long in-flight requests may run after SIGTERM/SIGINT. */
const SHUTDOWN_GRACE_MS = 10_000

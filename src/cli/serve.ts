/** `didvault serve`: the router on its own Express app, with storage and keys from flags and environment. */
import { once } from 'node:events'
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
  /** `memory` or `sqlite:<path>`. */
  storage: string
}

async function openStorage(spec: string): Promise<{ storage: StorageAdapter; sqlitePath?: string }> {
  if (spec === 'memory') return { storage: createMemoryStorage() }
  if (spec.startsWith('sqlite:')) {
    const path = spec.slice('sqlite:'.length)
    if (!path) throw new Error('--storage sqlite:<path> needs a path')
    const { createSqliteStorage } = await import('../storage/sqlite/index.js')
    return { storage: createSqliteStorage({ path }), sqlitePath: path }
  }
  throw new Error(`unknown --storage ${spec} (use memory or sqlite:<path>)`)
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
  const { storage, sqlitePath } = await openStorage(options.storage)
  const master = resolveMasterKey(env, sqlitePath)
  const service = await IdentityService.create({ storage, masterKey: master.key })
  const apiKeys = service.apiKeys!

  if (env.DIDVAULT_API_KEYS) {
    for (const { tenant, key } of parseApiKeys(env.DIDVAULT_API_KEYS)) await apiKeys.addKey(tenant, key)
  } else if (!(await apiKeys.hasKeys())) {
    const key = await apiKeys.createKey('default')
    console.log(`didvault: created an API key for tenant "default" (shown once, stored only as a hash): ${key}`)
  }

  const app = express()
  app.disable('x-powered-by')
  app.use(createRouter(service))
  app.use((_req, res) => {
    res.status(404).json({ statusCode: 404, errorType: 'NOT_FOUND', errorMessage: 'no such route' })
  })
  const server = app.listen(options.port, options.host)
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  console.log(`didvault listening on http://${host}:${port}`)

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    console.log(`didvault: ${signal}, finishing in-flight requests`)
    server.close(async () => {
      await service.close()
      process.exit(0)
    })
    server.closeIdleConnections()
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

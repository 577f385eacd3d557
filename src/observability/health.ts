/**
 * `GET /health/live` and `GET /health/ready`, for load balancers and orchestrators; no
 * authentication, nothing of a tenant read. Live: the process answers. Ready: it should be sent
 * requests — not stopping, its storage answering a read, its JSON-LD worker pool open (the
 * migrations ran before the process began answering at all).
 */
import express, { type Router } from 'express'
import { META } from '../custody/records.js'
import type { IdentityService } from '../service/identity-service.js'
import type { StorageAdapter } from '../storage/port.js'
import type { Logger } from './logger.js'

/** What readiness asks of the process. */
export interface ReadinessProbe {
  /** True once the process began draining (SIGTERM, or its primary's word): it wants no new requests. */
  stopping(): boolean
  /** One cheap storage round trip; rejects when the storage does not answer. */
  pingStorage(): Promise<void>
  /** The JSON-LD worker pool takes work (it was not closed). */
  jsonldUp(): boolean
}

/** The probe of `service` served on `storage`: the storage ping is a read of one record id that never exists. */
export function serviceReadiness(
  service: Pick<IdentityService, 'jsonldStats'>,
  storage: StorageAdapter,
  stopping: () => boolean,
): ReadinessProbe {
  return {
    stopping,
    pingStorage: () =>
      storage
        .collection(META.name)
        .get('didvault:readiness')
        .then(() => undefined),
    jsonldUp: () => !service.jsonldStats().closed,
  }
}

/** How long the storage may take to answer the readiness read. */
export const STORAGE_PING_TIMEOUT_MS = 2_000

/** The first reason the process is not ready, or undefined when it is. */
export async function unreadiness(probe: ReadinessProbe, logger?: Logger): Promise<string | undefined> {
  if (probe.stopping()) return 'stopping'
  if (!probe.jsonldUp()) return 'JSON-LD worker pool closed'
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${STORAGE_PING_TIMEOUT_MS} ms`)), STORAGE_PING_TIMEOUT_MS)
  })
  try {
    await Promise.race([probe.pingStorage(), timeout])
  } catch (err) {
    // The cause goes to the log, not to an unauthenticated caller (it may name hosts).
    logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'didvault: readiness: storage unreachable')
    return 'storage unreachable'
  } finally {
    clearTimeout(timer)
  }
  return undefined
}

/** The routes `/health/live` and `/health/ready`. */
export function healthRouter(probe: ReadinessProbe, logger?: Logger): Router {
  const router = express.Router()
  router.use('/health', (_req, res, next) => {
    res.set('cache-control', 'no-store')
    next()
  })
  router.get('/health/live', (_req, res) => {
    res.status(200).json({ status: 'ok' })
  })
  router.get('/health/ready', async (_req, res) => {
    const reason = await unreadiness(probe, logger)
    if (reason === undefined) res.status(200).json({ status: 'ok' })
    else res.status(503).json({ status: 'unavailable', reason })
  })
  return router
}

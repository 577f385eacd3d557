/**
 * `GET /health/live` and `GET /health/ready`, for load balancers and orchestrators; no
 * authentication, nothing of a tenant read. Live: the process answers. Ready: it should be sent
 * requests — not stopping, its storage answering a read and taking writes, its JSON-LD worker
 * pool open, its HSM (option `hsm`) logged in (the migrations ran before the process began answering at all).
 */
import express, { type Router } from 'express'
import { META, type MetaRecord } from '../custody/records.js'
import type { IdentityService } from '../service/identity-service.js'
import { type StorageAdapter, UniqueConstraintError } from '../storage/port.js'
import type { Logger } from './logger.js'

/** What readiness asks of the process. */
export interface ReadinessProbe {
  /** True once the process began draining (SIGTERM, or its primary's word): it wants no new requests. */
  stopping(): boolean
  /** One cheap storage round trip; rejects when the storage does not answer. */
  pingStorage(): Promise<void>
  /** Why the storage cannot take writes now (e.g. `disk full`), or undefined when it can. */
  writeFailure(): Promise<string | undefined>
  /** The JSON-LD worker pool takes work (it was not closed). */
  jsonldUp(): boolean
  /** Optional: the service's HSM answers (logged in, sessions open); absent: the service has none. */
  hsmUp?(): Promise<boolean>
}

/** The `meta` record readiness reads, and writes while the storage reports failed writes. */
const READINESS_RECORD = 'didvault:readiness'

/**
 * The probe of `service` served on `storage`: the storage ping is a read of one `meta` record.
 * Writes are not tried while they work: the adapter reports the last write that failed for want
 * of storage (`writeFailure`, e.g. SQLite's full disk) until one succeeds. While it reports one,
 * each readiness check writes that record once, so the process becomes ready again by itself
 * once space is back — a process out of rotation receives no writes that would tell.
 */
export function serviceReadiness(
  service: Pick<IdentityService, 'jsonldStats'> & Partial<Pick<IdentityService, 'hsmReady'>>,
  storage: StorageAdapter,
  stopping: () => boolean,
): ReadinessProbe {
  const meta = storage.collection<MetaRecord>(META.name)
  return {
    stopping,
    pingStorage: () => meta.get(READINESS_RECORD).then(() => undefined),
    async writeFailure() {
      if (storage.writeFailure?.() === undefined) return undefined
      const now = Date.now()
      try {
        if ((await meta.update(READINESS_RECORD, { probedAt: now })) === undefined)
          await meta.insert({ id: READINESS_RECORD, tenantId: '', createdAt: now, probedAt: now })
      } catch (err) {
        // Another process inserted it first: a write went through. Any other failure is not told to an unauthenticated caller.
        if (!(err instanceof UniqueConstraintError)) return storage.writeFailure() ?? 'write probe failed'
      }
      return storage.writeFailure()
    },
    jsonldUp: () => !service.jsonldStats().closed,
    ...(service.hsmReady && { hsmUp: () => service.hsmReady!() }),
  }
}

/** How long the storage may take to answer the readiness read. */
export const STORAGE_PING_TIMEOUT_MS = 2_000

/** The first reason the process is not ready, or undefined when it is. */
export async function unreadiness(probe: ReadinessProbe, logger?: Logger): Promise<string | undefined> {
  if (probe.stopping()) return 'stopping'
  if (!probe.jsonldUp()) return 'JSON-LD worker pool closed'
  // The token gone (moved away, unplugged, the HSM down): signing with its keys is 503 until the module logs in again.
  if (probe.hsmUp && !(await probe.hsmUp().catch(() => false))) return 'HSM unavailable'
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${STORAGE_PING_TIMEOUT_MS} ms`)), STORAGE_PING_TIMEOUT_MS)
  })
  const storage = async () => {
    await probe.pingStorage()
    return await probe.writeFailure()
  }
  try {
    const writeFailure = await Promise.race([storage(), timeout])
    return writeFailure === undefined ? undefined : `storage cannot write: ${writeFailure}`
  } catch (err) {
    // The cause goes to the log, not to an unauthenticated caller (it may name hosts).
    logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'didvault: readiness: storage unreachable')
    return 'storage unreachable'
  } finally {
    clearTimeout(timer)
  }
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

/**
 * The connection that hears every process's writes to the cached tables, and keeps the {@link ReadCache} answering
 * only while it does.
 *
 * A dedicated client runs `LISTEN didvault_changes`; the tables' statement triggers (`migrate.ts`) notify
 * `{"s": schema, "t": table}` on commit. The cache is turned on only once a ping — a notification sent through the
 * pool, on another connection — has come back on this one, so a setup that cannot deliver notifications (PgBouncer in
 * transaction mode, where a LISTEN does not outlive its transaction's server connection) never caches. The ping is
 * repeated every `heartbeatMs`; a ping not back within `confirmMs`, or the connection failing or ending, turns the
 * cache off (every entry dropped) and the listener reconnects, the delay doubling from 100 ms to 10 s.
 */
import { randomUUID } from 'node:crypto'
import type { Client, Notification, Pool } from 'pg'
import type { ReadCache } from './read-cache.js'

/** The channel of change notifications (shared by every schema: the payload names its schema). */
export const CHANGES_CHANNEL = 'didvault_changes'

/** Timing of the listener's checks. */
export interface ChangeListenerTiming {
  /** Interval between pings while listening (default 5 000 ms). */
  heartbeatMs?: number
  /** How long a ping may take to come back before the cache is turned off (default 5 000 ms). */
  confirmMs?: number
}

const FIRST_RETRY_MS = 100
const LAST_RETRY_MS = 10_000

export class ChangeListener {
  #client: Client | undefined
  #closed = false
  #retryMs = FIRST_RETRY_MS
  #timer: NodeJS.Timeout | undefined
  /** Pings sent and not yet back: nonce → what to do when it arrives. */
  readonly #pings = new Map<string, () => void>()
  readonly #heartbeatMs: number
  readonly #confirmMs: number

  /**
   * @param connect A new, unconnected client to the database (with the pool's settings).
   * @param pool Where pings are sent from (another connection than the listener's).
   * @param schema The schema's name, unquoted, as the triggers report it.
   */
  constructor(
    private readonly connect: () => Client,
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly cache: ReadCache,
    timing: ChangeListenerTiming = {},
  ) {
    this.#heartbeatMs = timing.heartbeatMs ?? 5_000
    this.#confirmMs = timing.confirmMs ?? 5_000
  }

  /** Starts listening (the cache turns on once the first ping is back). */
  start(): void {
    void this.#open()
  }

  /** Stops listening; the cache answers no more. */
  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#timer)
    this.cache.setLive(false)
    const client = this.#client
    this.#client = undefined
    if (client) await client.end().catch(() => undefined)
  }

  async #open(): Promise<void> {
    if (this.#closed) return
    const client = this.connect()
    this.#client = client
    const lost = () => this.#lost(client)
    client.on('error', lost)
    client.on('end', lost)
    client.on('notification', (message) => this.#notified(message))
    try {
      await client.connect()
      await client.query(`LISTEN ${CHANGES_CHANNEL}`)
      await this.#ping()
    } catch {
      return this.#lost(client)
    }
    if (this.#client !== client) return
    this.cache.setLive(true)
    this.#retryMs = FIRST_RETRY_MS
    this.#heartbeat(client)
  }

  #heartbeat(client: Client): void {
    this.#timer = setTimeout(() => {
      this.#ping().then(
        () => this.#client === client && this.#heartbeat(client),
        () => this.#lost(client),
      )
    }, this.#heartbeatMs)
    this.#timer.unref()
  }

  /** Sends a ping through the pool; resolves when it arrives on the listener, rejects after `confirmMs`. */
  #ping(): Promise<void> {
    const nonce = randomUUID()
    return new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(() => {
        this.#pings.delete(nonce)
        reject(new Error('the change listener did not hear its ping'))
      }, this.#confirmMs)
      timeout.unref()
      this.#pings.set(nonce, () => {
        clearTimeout(timeout)
        resolve()
      })
      this.pool.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, JSON.stringify({ s: this.schema, ping: nonce })]).catch((err) => {
        clearTimeout(timeout)
        this.#pings.delete(nonce)
        reject(err as Error)
      })
    })
  }

  #notified(message: Notification): void {
    let payload: { s?: unknown; t?: unknown; ping?: unknown }
    try {
      payload = JSON.parse(message.payload ?? '') as typeof payload
    } catch {
      return
    }
    if (payload.s !== this.schema) return
    if (typeof payload.t === 'string') this.cache.changed(payload.t)
    else if (typeof payload.ping === 'string') {
      const heard = this.#pings.get(payload.ping)
      this.#pings.delete(payload.ping)
      heard?.()
    }
  }

  /** The listening connection `client` failed: the cache turns off, and a new connection is tried later. */
  #lost(client: Client): void {
    if (this.#client !== client) return
    this.#client = undefined
    this.cache.setLive(false)
    clearTimeout(this.#timer)
    client.removeAllListeners('notification')
    client.on('error', () => undefined)
    void client.end().catch(() => undefined)
    if (this.#closed) return
    this.#timer = setTimeout(() => void this.#open(), this.#retryMs)
    this.#timer.unref()
    this.#retryMs = Math.min(this.#retryMs * 2, LAST_RETRY_MS)
  }
}

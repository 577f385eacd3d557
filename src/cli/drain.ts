/**
 * How one `didvault serve` process stops (docs/operations.md *Stopping*). From the stop on,
 * readiness answers 503 `stopping`; the requests in flight run on, and their responses close
 * their connections (`Connection: close`); a request arriving meanwhile — on a kept-alive
 * connection or a new one: the listener stays open — is answered 503 `stopping` with
 * `Connection: close` and `Retry-After: 1`, never reset. Once the requests in flight are
 * answered, the listener and the idle connections close, the service closes and the process
 * exits 0. At the drain deadline whatever is left is cut and the process exits, 1 when requests
 * were cut; a second stop (not a worker's: its primary escalates) cuts at once. A stop before
 * the server listens exits at once: nothing was accepted, nothing is to drain.
 */
import type { Server, ServerResponse } from 'node:http'
import type { RequestHandler } from 'express'
import type { Logger } from '../observability/logger.js'

/** The answer to a request arriving while the process drains. */
const STOPPING_BODY = {
  statusCode: 503,
  errorType: 'SERVICE_UNAVAILABLE',
  errorMessage: 'the server is stopping: retry on another instance',
} as const

/** How long the service may take to close once the deadline cut the connections (its storage may wait on a query that was cut). */
const CLOSE_AFTER_CUT_MS = 500

export interface DrainOptions {
  /** How long the requests in flight at the stop may take, ms. */
  drainMs: number
  /** Who stops, as the log names it: `didvault`, `didvault worker <pid>`. */
  who: string
  /** Where the stop's lines go (written at `info` whatever the level). */
  lifecycle: Logger
  /** Whether a second stop cuts the connections (a worker's primary escalates for it: it gets both signals). */
  escalates: boolean
}

/** The drain of one process: its middlewares, its stop, its deadline. */
export class Drain {
  readonly #options: DrainOptions
  /** The responses of the requests admitted before the stop, not over yet. */
  readonly #inFlight = new Set<ServerResponse>()
  #server?: Server
  #closeService?: () => Promise<void>
  #stopping = false
  #serverClosing = false
  #serviceClosed?: Promise<void>
  #exitCode = 0

  constructor(options: DrainOptions) {
    this.#options = options
  }

  /** True from the stop on (readiness says `stopping`). */
  get stopping(): boolean {
    return this.#stopping
  }

  /** The first middleware: keeps the requests admitted before the stop; during the drain every response closes its connection. */
  readonly track: RequestHandler = (_req, res, next) => {
    if (this.#stopping) {
      res.shouldKeepAlive = false
      return next()
    }
    this.#inFlight.add(res)
    res.on('close', () => {
      this.#inFlight.delete(res)
      this.#settle()
    })
    next()
  }

  /** Before the operations' routes: a request that arrived during the drain gets 503 `stopping`. */
  readonly refuse: RequestHandler = (_req, res, next) => {
    if (!this.#stopping || this.#inFlight.has(res)) return next()
    res.set('retry-after', '1').status(503).json(STOPPING_BODY)
  }

  /** The server listens: from now on a stop drains it; `closeService` runs once it is drained. */
  serving(server: Server, closeService: () => Promise<void>): void {
    this.#server = server
    this.#closeService = closeService
  }

  /** A stop (a signal, the primary's word): the first drains, a second cuts when this process escalates. */
  stop(reason: string): void {
    const { who, lifecycle, drainMs } = this.#options
    if (this.#stopping) {
      if (this.#options.escalates) this.cut(`${reason} again`)
      return
    }
    this.#stopping = true
    if (this.#server === undefined) {
      lifecycle.info(`${who}: ${reason} before listening, exiting`)
      process.exit(0)
    }
    lifecycle.info({ drainMs }, `${who}: ${reason}, finishing in-flight requests`)
    for (const res of this.#inFlight) if (!res.headersSent) res.shouldKeepAlive = false
    setTimeout(() => this.#deadline(), drainMs)
    this.#settle()
  }

  /** Cuts every connection now (a second signal, the primary's word); the process then exits, 1 if requests were cut. */
  cut(reason: string): void {
    if (this.#server === undefined) return
    this.#options.lifecycle.info(`${this.#options.who}: ${reason}, closing all connections`)
    if (this.#inFlight.size > 0) this.#exitCode = 1
    this.#closeServer()
    this.#server.closeAllConnections()
  }

  /** Once nothing admitted before the stop is left: the listener and the idle connections close, then the service. */
  #settle(): void {
    if (!this.#stopping || this.#server === undefined || this.#inFlight.size > 0) return
    this.#closeServer()
  }

  #closeServer(): void {
    if (this.#serverClosing) return
    this.#serverClosing = true
    this.#server!.close(() => void this.#closeServiceOnce().then(() => this.#exit()))
    this.#server!.closeIdleConnections()
  }

  #deadline(): void {
    const left = this.#inFlight.size
    const { who, lifecycle, drainMs } = this.#options
    lifecycle.info(
      `${who}: drain deadline (${drainMs} ms) passed with ${left} request${left === 1 ? '' : 's'} in flight: closing all connections`,
    )
    if (left > 0) this.#exitCode = 1
    this.#closeServer()
    this.#server!.closeAllConnections()
    // A request cut mid-query may keep the storage from closing: the exit does not wait for it.
    const bound = new Promise((resolve) => setTimeout(resolve, CLOSE_AFTER_CUT_MS))
    void Promise.race([this.#closeServiceOnce(), bound]).then(() => this.#exit())
  }

  #closeServiceOnce(): Promise<void> {
    this.#serviceClosed ??= this.#closeService!().catch(() => {
      this.#exitCode = 1
    })
    return this.#serviceClosed
  }

  #exit(): void {
    process.exit(this.#exitCode)
  }
}

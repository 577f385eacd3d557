/**
 * Batched publication: a changed list is signed once its interval is over, so the changes of an
 * interval cost one signature. A timer per list in the process that changed it; a process that
 * stops before its timer fires leaves the list dirty, and the next `GET /status/:listId` past the
 * interval signs it (any process). A Status List Token is signed again at half its lifetime ({@link StatusPublisher.renewIn}):
 * by a timer of the process that signed it, or by the first GET past that point (any process).
 */
export class StatusPublisher {
  readonly #timers = new Map<string, NodeJS.Timeout>()
  /** Signatures of unchanged lists whose signed copies expire (Status List Tokens), due at half their lifetime. */
  readonly #renewals = new Map<string, NodeJS.Timeout>()
  readonly #running = new Set<Promise<unknown>>()

  /**
   * @param sign - signs a list if it changed, and stores it
   * @param intervalMs - how long changes are gathered before one signature
   * @param onError - receives a failed signature (the list stays dirty: signed on its next GET)
   * @param onPublished - told of each publication that succeeded (for metrics)
   */
  constructor(
    private readonly sign: (listId: string) => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (operation: string, error: unknown) => void,
    private readonly onPublished: () => void = () => undefined,
  ) {}

  /** Signs `listId` now; a failure goes to `onError`. */
  #publish(listId: string): Promise<void> {
    return this.sign(listId).then(
      () => this.onPublished(),
      (err: unknown) => this.onError('Publish status list', err),
    )
  }

  /** Signs `listId` at the end of the interval, unless a signature is already scheduled. */
  schedule(listId: string): void {
    if (this.#timers.has(listId)) return
    const timer = setTimeout(() => {
      this.#timers.delete(listId)
      const run = this.#publish(listId)
      this.#running.add(run)
      void run.finally(() => this.#running.delete(run))
    }, this.intervalMs)
    timer.unref()
    this.#timers.set(listId, timer)
  }

  /** Signs `listId` again in `delayMs` (a Status List Token at half its lifetime), replacing a renewal already due. */
  renewIn(listId: string, delayMs: number): void {
    clearTimeout(this.#renewals.get(listId))
    const timer = setTimeout(() => {
      this.#renewals.delete(listId)
      const run = this.#publish(listId)
      this.#running.add(run)
      void run.finally(() => this.#running.delete(run))
    }, delayMs)
    timer.unref()
    this.#renewals.set(listId, timer)
  }

  /** Signs every scheduled list now and waits for the signatures under way. */
  async flush(): Promise<void> {
    const scheduled = [...this.#timers.keys()]
    for (const timer of this.#timers.values()) clearTimeout(timer)
    this.#timers.clear()
    await Promise.all([...scheduled.map((id) => this.#publish(id)), ...this.#running])
  }

  /** Drops the scheduled signatures (their lists stay dirty, signed on their next GET) and waits for those under way. */
  async close(): Promise<void> {
    for (const timer of [...this.#timers.values(), ...this.#renewals.values()]) clearTimeout(timer)
    this.#timers.clear()
    this.#renewals.clear()
    await Promise.allSettled([...this.#running])
  }
}

/**
 * What one request may spend on reads of outside documents (status lists; did:web documents
 * later): each one read at most once — its result, a failure included, kept for the rest of the
 * request —, at most `maxKeys` distinct counted ones, and one deadline for all of them, started by
 * the first read. Past the cap or the deadline a read is not started (or no longer waited for):
 * its caller gets an {@link Exceeded} naming the limit.
 */

/** Why a read was not made or not waited for: the cap on distinct reads, or the request's deadline. */
export class Exceeded {
  constructor(readonly limit: 'maxKeys' | 'deadline') {}
}

export interface RequestFetchLimits {
  /** Most distinct counted keys read in the request. */
  maxKeys: number
  /** Longest the request's reads take together, ms, from its first read. */
  deadlineMs: number
}

/** One request's reads: create one per request, and give every read of that request to it. */
export class RequestFetches {
  readonly #memo = new Map<string, Promise<unknown>>()
  #counted = 0
  #deadline: Promise<Exceeded> | undefined
  #expired = false

  constructor(readonly limits: RequestFetchLimits) {}

  /**
   * The result of `read` for `key`: read once per request (later calls with the same key share
   * the first call's result), unless the request's deadline passed before it settles, or — for
   * a `counted` key — the request already read `maxKeys` other counted keys. `read` must not
   * reject (failures are results); it is not aborted at the deadline, only no longer waited for.
   */
  get<T>(key: string, read: () => Promise<T>, counted = true): Promise<T | Exceeded> {
    const deadline = (this.#deadline ??= this.#startDeadline())
    let pending = this.#memo.get(key) as Promise<T> | undefined
    if (pending === undefined) {
      if (this.#expired) return Promise.resolve(new Exceeded('deadline'))
      if (counted && this.#counted >= this.limits.maxKeys) return Promise.resolve(new Exceeded('maxKeys'))
      if (counted) this.#counted++
      pending = read()
      this.#memo.set(key, pending)
    }
    // A settled read wins over a passed deadline: it costs nothing more.
    return Promise.race([pending, deadline])
  }

  #startDeadline(): Promise<Exceeded> {
    return new Promise((resolve) => {
      setTimeout(() => {
        this.#expired = true
        resolve(new Exceeded('deadline'))
      }, this.limits.deadlineMs).unref()
    })
  }
}

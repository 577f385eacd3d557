/**
 * A bounded least-recently-used cache of promised values by string key, for the public keys verification imports
 * (importing a key costs more than checking a signature with it). The key must be everything the value is computed
 * from — a verification method's whole document with its key material, never its id alone — so a rotated key misses.
 */
export class PromiseLru<V> {
  readonly #entries = new Map<string, Promise<V>>()

  /**
   * @param maxEntries the most values kept (the least recently used is dropped first)
   * @param maxKeyLength longer keys are not cached (their value is computed on every call)
   */
  constructor(
    readonly maxEntries: number,
    readonly maxKeyLength = 4_096,
  ) {}

  /** How many values are cached. */
  get size(): number {
    return this.#entries.size
  }

  /** The value cached under `key`, else `make()`'s (cached unless it rejects: a failure is computed again next time). */
  get(key: string, make: () => Promise<V>): Promise<V> {
    if (key.length > this.maxKeyLength) return make()
    const known = this.#entries.get(key)
    if (known !== undefined) {
      this.#entries.delete(key)
      this.#entries.set(key, known)
      return known
    }
    const made = make()
    this.#entries.set(key, made)
    if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string)
    made.catch(() => {
      if (this.#entries.get(key) === made) this.#entries.delete(key)
    })
    return made
  }
}

/** A map holding at most `capacity` entries, the least recently used dropped first. */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>()

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new TypeError('cache capacity: must be a positive integer')
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key)
    if (value === undefined) return undefined
    this.#entries.delete(key)
    this.#entries.set(key, value)
    return value
  }

  set(key: K, value: V): void {
    this.#entries.delete(key)
    this.#entries.set(key, value)
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value as K)
  }

  get size(): number {
    return this.#entries.size
  }
}

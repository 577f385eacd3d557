/**
 * Reads of the collections declared `cached` (read on hot paths, written rarely: wallets, keys, credential
 * configurations), kept in this process's memory and dropped whenever their table changes.
 *
 * A table's entries are dropped, and its epoch moves on, when (1) PostgreSQL notifies a change of the table — every
 * write of any process, through the table's statement trigger (`migrate.ts`), delivered on commit to the
 * {@link ChangeListener}'s connection — and (2) this process writes the table, before the write and once it has
 * committed, so a process reads its own writes at once. A read caches its answer only when the table's epoch did not
 * move while it ran, so an answer read before a change is never kept after it. The cache answers only while the
 * listener is known to deliver (`live`); otherwise every read goes to the database. Entries are JSON text: each
 * answer is a fresh object the caller may change. Bounded per table (the oldest entry leaves first).
 */

/** Most entries kept per table. */
export const CACHE_ENTRIES_PER_TABLE = 5_000

interface TableCache {
  epoch: number
  /** Read key → the answer's JSON text (`undefined`: no record). */
  readonly entries: Map<string, string | undefined>
}

/** The cached reads of one adapter (shared by its transaction adapters, which do not read through it). */
export class ReadCache {
  readonly #tables = new Map<string, TableCache>()
  #live = false
  /** Answers served from memory, and reads that went to the database, since the start (for tests and metrics). */
  readonly stats = { hits: 0, misses: 0 }

  /** Declares cached tables (by collection name, as the triggers report them), at each `init`. */
  declare(tables: Iterable<string>): void {
    for (const table of tables) if (!this.#tables.has(table)) this.#tables.set(table, { epoch: 0, entries: new Map() })
  }

  /** Whether `table`'s reads are cached (when live). */
  caches(table: string): boolean {
    return this.#tables.has(table)
  }

  /** Whether the cache answers: the change listener delivers. */
  get live(): boolean {
    return this.#live
  }

  /** Turns answering on (the listener delivers again) or off; both drop every entry (changes may have been missed). */
  setLive(live: boolean): void {
    this.changedAll()
    this.#live = live
  }

  /**
   * The answer to the read `readKey()` names of `table`: from memory when cached and live, else `load()`'s, kept when the table
   * did not change while it ran.
   */
  async read<R>(table: string, readKey: () => string, load: () => Promise<R>): Promise<R> {
    const cache = this.#tables.get(table)
    if (cache === undefined || !this.#live) return load()
    const key = readKey()
    if (cache.entries.has(key)) {
      this.stats.hits++
      const text = cache.entries.get(key)
      return (text === undefined ? undefined : JSON.parse(text)) as R
    }
    this.stats.misses++
    const epoch = cache.epoch
    const answer = await load()
    if (cache.epoch === epoch && this.#live) {
      if (cache.entries.size >= CACHE_ENTRIES_PER_TABLE) cache.entries.delete(cache.entries.keys().next().value as string)
      cache.entries.set(key, answer === undefined ? undefined : JSON.stringify(answer))
    }
    return answer
  }

  /** `table` changed (or is about to): its entries go, and reads running now keep nothing. */
  changed(table: string): void {
    const cache = this.#tables.get(table)
    if (cache === undefined) return
    cache.epoch++
    cache.entries.clear()
  }

  /** Every table changed. */
  changedAll(): void {
    for (const table of this.#tables.keys()) this.changed(table)
  }
}

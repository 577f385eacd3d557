/**
 * Undo journal of a fallback transaction (standalone MongoDB, no server-side transactions):
 * each write pushes the compensating write that reverts it; a rollback runs them newest first.
 */
export class UndoJournal {
  private readonly entries: Array<() => Promise<void>> = []

  /** Records how to undo the write just made. */
  push(undo: () => Promise<void>): void {
    this.entries.push(undo)
  }

  /** Where a (nested) transaction starts: {@link rollback} to it undoes only what came after. */
  mark(): number {
    return this.entries.length
  }

  /** Undoes every write after `mark`, newest first; attempts all of them and rethrows the first failure. */
  async rollback(mark = 0): Promise<void> {
    let failure: unknown
    for (const undo of this.entries.splice(mark).reverse()) {
      try {
        await undo()
      } catch (err) {
        failure ??= err
      }
    }
    if (failure !== undefined)
      throw new Error('rolling back a MongoDB fallback transaction failed; some writes may remain', { cause: failure })
  }
}

/** A FIFO lock that serializes transactions on one storage adapter scope (shared by every adapter, see ./transaction-scope). */
import { AsyncLocalStorage } from 'node:async_hooks'

/** Tokens of the locks held by the transactions the current async context runs inside. */
const heldLocks = new AsyncLocalStorage<ReadonlySet<object>>()

/**
 * Serializes transactions on one adapter scope. While a transaction holds the lock, every
 * other operation on that scope waits its turn (FIFO). An operation issued from inside the
 * transaction that holds the lock would wait forever, so it is rejected instead.
 */
export class TransactionLock {
  private holder: object | undefined
  private readonly queue: Array<() => void> = []

  /** Runs the synchronous `op` once no transaction holds the lock (at once when free). */
  async whenFree<R>(op: () => R): Promise<R> {
    if (this.holder === undefined) return op()
    await this.acquire()
    try {
      return op()
    } finally {
      this.release()
    }
  }

  /** Runs `fn` while holding the lock. */
  async hold<R>(fn: () => Promise<R>): Promise<R> {
    const token = await this.acquire()
    try {
      const held = new Set(heldLocks.getStore())
      held.add(token)
      return await heldLocks.run(held, fn)
    } finally {
      this.release()
    }
  }

  private acquire(): Promise<object> {
    const token = {}
    if (this.holder === undefined) {
      this.holder = token
      return Promise.resolve(token)
    }
    if (heldLocks.getStore()?.has(this.holder)) {
      return Promise.reject(new Error('storage used from inside its own transaction: use the `tx` adapter passed to transaction(fn)'))
    }
    return new Promise((resolve) => {
      this.queue.push(() => {
        this.holder = token
        resolve(token)
      })
    })
  }

  private release(): void {
    this.holder = undefined
    this.queue.shift()?.()
  }
}

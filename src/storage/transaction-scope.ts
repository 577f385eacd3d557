/**
 * Transaction nesting levels, shared by the adapters: a scope is the root adapter or one
 * `transaction(fn)` call; {@link runTransaction} runs one nesting level with the same rules on
 * every adapter (serialized on its parent, finished once `fn` settles, nested transactions
 * left running waited for before commit or rollback). What commit and rollback mean (SQL
 * COMMIT, a savepoint, an undo journal) stays the adapter's.
 */
import { TransactionLock } from './transaction-lock.js'

/** A transaction nesting level of an adapter: the root (no parent) or one `transaction(fn)` call. */
export interface TransactionScope {
  readonly lock: TransactionLock
  finished: boolean
  /** The enclosing transaction's scope: when it finishes, this one can no longer write. */
  readonly parent?: TransactionScope
}

/** A fresh root scope. */
export function rootScope(): TransactionScope {
  return { lock: new TransactionLock(), finished: false }
}

/** Throws unless `scope` and every transaction enclosing it are running and the storage is open. */
export function assertUsable(scope: TransactionScope, closed: boolean, storage: string): void {
  for (let s: TransactionScope | undefined = scope; s; s = s.parent) {
    if (s.finished) throw new Error('this transaction has already finished; use the storage it came from')
  }
  if (closed) throw new Error(`${storage} storage is closed`)
}

/** What `close()` of a transaction adapter answers: only the storage it came from closes. */
export function closeTransactionAdapter(): Promise<never> {
  return Promise.reject(new Error('a transaction adapter cannot be closed; close the storage it came from'))
}

/** One opened transaction, as the adapter began it. */
export interface OpenedTransaction<S extends TransactionScope> {
  /** The scope of the `tx` adapter; create it with {@link childScope}. */
  scope: S
  /** Makes the writes permanent (or part of the enclosing transaction). A throw is followed by `rollback`. */
  commit(): void | Promise<void>
  /** Undoes every write made in the scope. */
  rollback(): void | Promise<void>
}

/** The scope of a transaction nested in `parent`, with the adapter's own extra state. */
export function childScope<S extends TransactionScope>(parent: TransactionScope, extra: Omit<S, keyof TransactionScope>): S {
  return { ...extra, lock: new TransactionLock(), finished: false, parent } as S
}

/**
 * Runs one transaction on `parent`: holds its lock (every other operation on it waits), opens
 * the transaction with `begin` (called once the lock is held), runs `fn` in the new scope, then
 * commits, or rolls back and rethrows when `fn` (or the commit) throws.
 *
 * Once `fn` settles the scope is finished, so nested transactions it left running can write no
 * more; they are waited for, so their own commit or rollback happens before this one's.
 */
export function runTransaction<S extends TransactionScope, R>(
  parent: TransactionScope,
  begin: () => OpenedTransaction<S> | Promise<OpenedTransaction<S>>,
  fn: (scope: S) => Promise<R>,
): Promise<R> {
  return parent.lock.hold(async () => {
    const tx = await begin()
    const settle = async () => {
      tx.scope.finished = true
      await tx.scope.lock.hold(async () => undefined)
    }
    let result: R
    try {
      result = await fn(tx.scope)
    } catch (err) {
      await settle()
      await tx.rollback()
      throw err
    }
    await settle()
    try {
      await tx.commit()
    } catch (err) {
      await tx.rollback()
      throw err
    }
    return result
  })
}

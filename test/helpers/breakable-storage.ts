/**
 * A storage adapter that can be made unreachable and brought back: what the key-backend conformance suite's
 * `breakBackend` hook does to a backend whose keys live in the service's storage (`sealed`, the shipped MPC custody).
 * While broken, every call on a collection rejects with the error a storage adapter throws when its database cannot be
 * reached (`StorageUnavailableError`, which every operation answers with 503 `SERVICE_UNAVAILABLE`); the adapter
 * underneath is untouched, so bringing it back is the database answering again.
 */
import { StorageUnavailableError, type Collection, type StorageAdapter } from '../../src/storage/port.js'

export interface BreakableStorage {
  /** The adapter to give the backend: the real one, or failing while broken. */
  storage: StorageAdapter
  /** Makes every collection call fail until the returned function is called. */
  break(): Promise<() => Promise<void>>
}

export function breakableStorage(real: StorageAdapter): BreakableStorage {
  let broken = false
  const unreachable = () => Promise.reject(new StorageUnavailableError('the test made the storage unreachable'))

  const wrapCollection = <T extends object>(collection: T): T =>
    new Proxy(collection, {
      get(target, property) {
        const value = Reflect.get(target, property, target) as unknown
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => (broken ? unreachable() : (value as (...a: unknown[]) => unknown).apply(target, args))
      },
    })

  const wrap = (adapter: StorageAdapter): StorageAdapter =>
    new Proxy(adapter, {
      get(target, property) {
        if (property === 'collection') return (name: string) => wrapCollection<Collection>(target.collection(name))
        if (property === 'transaction')
          return <R>(fn: (tx: StorageAdapter) => Promise<R>) => (broken ? unreachable() : target.transaction((tx) => fn(wrap(tx))))
        const value = Reflect.get(target, property, target) as unknown
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
      },
    })

  return {
    storage: wrap(real),
    async break() {
      broken = true
      return async () => {
        broken = false
      }
    },
  }
}

/**
 * In-process {@link StorageAdapter}: records live in Maps, copied in and out with
 * `structuredClone`. Meant for tests, examples and single-process tools; it follows exactly
 * the query semantics of the SQLite and MongoDB adapters (see the conformance suite).
 */
export { createMemoryStorage, MemoryStorage } from './storage.js'

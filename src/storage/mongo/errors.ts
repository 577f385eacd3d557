import { UniqueConstraintError } from '../port.js'
import type { MongoIndex } from './query.js'

/** MongoDB's duplicate-key error code. */
const DUPLICATE_KEY = 11000

/** True for a duplicate-key error (a single write's, or the first of a bulk write's). */
export function isDuplicateKey(err: unknown): boolean {
  const { code, writeErrors } = err as { code?: unknown; writeErrors?: Array<{ code?: unknown }> }
  return code === DUPLICATE_KEY || (Array.isArray(writeErrors) && writeErrors[0]?.code === DUPLICATE_KEY)
}

/** The name of the index a duplicate-key error names (`... index: <name> dup key: ...`). */
function indexName(err: unknown): string | undefined {
  const { errmsg, message, writeErrors } = err as { errmsg?: unknown; message?: unknown; writeErrors?: Array<{ errmsg?: unknown }> }
  for (const text of [errmsg, message, writeErrors?.[0]?.errmsg]) {
    const match = typeof text === 'string' ? /index: (\S+)/.exec(text) : null
    if (match) return match[1]
  }
  return undefined
}

/** Rethrows a duplicate-key error as the port's {@link UniqueConstraintError} naming the index fields. */
export function mapDuplicateKey(collection: string, indexes: readonly MongoIndex[], err: unknown): unknown {
  if (!isDuplicateKey(err)) return err
  const name = indexName(err)
  if (name === '_id_') return new UniqueConstraintError(collection, ['id'])
  const index = indexes.find((candidate) => candidate.name === name)
  if (index !== undefined) return new UniqueConstraintError(collection, index.fields)
  const keyPattern = (err as { keyPattern?: Record<string, unknown> }).keyPattern
  const fields = keyPattern === undefined ? [] : Object.keys(keyPattern).map((field) => (field === '_id' ? 'id' : field))
  return new UniqueConstraintError(collection, fields)
}

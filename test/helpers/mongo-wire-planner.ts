/**
 * The wire stand-in's answer to `explain` of a find (test/helpers/mongo-wire-server.ts). The
 * stand-in has no query planner — it answers every find by scanning with mingo — so this is a
 * model, not MongoDB: it picks a winning plan over the indexes the stand-in holds by MongoDB's
 * index-eligibility rule (an index can serve a query whose conjunction constrains the index's
 * leading key field with an equality, `$in`, a range or `$elemMatch`; a rooted `$or` needs such
 * an index for each branch; otherwise an index whose leading field is the sort's is walked whole,
 * otherwise the collection is scanned). It shows that the adapter's `explain` goes over the wire
 * and that every service query has an index the adapter created with a usable leading field. It
 * cannot show which plan MongoDB would choose among several (MongoDB ranks candidates by trial),
 * nor the bounds it would compute.
 */
type Doc = Record<string, any>

interface Index {
  name: string
  key: Record<string, number>
}

/** Predicates that bound an index's leading field (not `$ne`, `$nin`, `$exists`, `$not`, `$type`). */
const BOUNDING = ['$eq', '$in', '$gt', '$gte', '$lt', '$lte', '$elemMatch']

function bounds(predicate: unknown): boolean {
  if (typeof predicate !== 'object' || predicate === null || Array.isArray(predicate)) return true
  const operators = Object.keys(predicate)
  return !operators.some((key) => key.startsWith('$')) || operators.some((key) => BOUNDING.includes(key))
}

/** The fields a filter's conjunction bounds, with their predicates, and the `$or`s it holds. */
function conjunction(filter: Doc): { bounded: Map<string, unknown>; ors: Doc[][] } {
  const bounded = new Map<string, unknown>()
  const ors: Doc[][] = []
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and') {
      for (const part of value as Doc[]) {
        const inner = conjunction(part)
        for (const [field, predicate] of inner.bounded) bounded.set(field, predicate)
        ors.push(...inner.ors)
      }
    } else if (key === '$or') ors.push(value as Doc[])
    else if (!key.startsWith('$') && bounds(value)) bounded.set(key, value)
  }
  return { bounded, ors }
}

function indexScan(index: Index, leading?: unknown): Doc {
  const boundsOf = (i: number): string => (i === 0 && leading !== undefined ? `model: ${JSON.stringify(leading)}` : '[MinKey, MaxKey]')
  const indexBounds = Object.fromEntries(Object.keys(index.key).map((field, i) => [field, [boundsOf(i)]]))
  return { stage: 'IXSCAN', keyPattern: index.key, indexName: index.name, direction: 'forward', indexBounds }
}

/** A bounded index scan answering `filter`, or undefined when no index is eligible. */
function boundedAccess(indexes: Index[], filter: Doc): Doc | undefined {
  const { bounded, ors } = conjunction(filter)
  for (const index of indexes) {
    const leading = Object.keys(index.key)[0]
    if (bounded.has(leading)) return indexScan(index, bounded.get(leading))
  }
  for (const branches of ors) {
    const scans = branches.map((branch) => boundedAccess(indexes, branch))
    if (scans.length > 0 && scans.every((scan) => scan !== undefined)) return { stage: 'OR', inputStages: scans }
  }
  return undefined
}

/** `queryPlanner.winningPlan` of a find with `filter` and `sort`, as the model plans it. */
export function modelWinningPlan(indexes: Index[], filter: Doc = {}, sort: Doc = {}): Doc {
  const access = boundedAccess(indexes, filter)
  if (access !== undefined) return { stage: 'FETCH', filter, inputStage: access }
  const sortField = Object.keys(sort)[0]
  const sorted = indexes.find((index) => Object.keys(index.key)[0] === sortField)
  if (sorted !== undefined) return { stage: 'FETCH', filter, inputStage: indexScan(sorted) }
  return { stage: 'COLLSCAN', filter, direction: 'forward' }
}

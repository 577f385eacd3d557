/** Reads SQLite's `EXPLAIN QUERY PLAN` steps as the port's {@link QueryPlan}. */
import type { QueryPlan } from '../port.js'

/** One row of `EXPLAIN QUERY PLAN`. */
export interface PlanStep {
  id: number
  parent: number
  detail: string
}

/**
 * A step reading a whole table: `SCAN t`, with or without `USING INDEX` (an ordered walk of a
 * whole index reads every row too). Scans of a table-valued function over a bound parameter
 * (`SCAN json_each VIRTUAL TABLE`, the elements of a long `in` list) and of a constant row read
 * no collection.
 */
function scansTable(detail: string): boolean {
  if (!detail.startsWith('SCAN ')) return false
  const source = detail.slice('SCAN '.length)
  return source !== 'CONSTANT ROW' && !/^\S+ VIRTUAL TABLE\b/.test(source)
}

/**
 * The plan of the SELECTs of one find, each given as its steps: served by indexes when some step
 * searches an index (`SEARCH ... USING [COVERING] INDEX` or the primary key) and none scans a table.
 * `plan` lists the steps, indented by depth, the SELECTs separated by a blank line.
 */
export function queryPlanOf(selects: PlanStep[][]): QueryPlan {
  const steps = selects.flat()
  const usesIndex = steps.some((step) => step.detail.startsWith('SEARCH ')) && !steps.some((step) => scansTable(step.detail))
  return { usesIndex, plan: selects.map(indented).join('\n\n') }
}

function indented(steps: PlanStep[]): string {
  const depth = new Map<number, number>([[0, -1]])
  return steps
    .map((step) => {
      const level = (depth.get(step.parent) ?? -1) + 1
      depth.set(step.id, level)
      return `${'  '.repeat(level)}${step.detail}`
    })
    .join('\n')
}

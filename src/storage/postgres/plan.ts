/** Reads PostgreSQL's `EXPLAIN (FORMAT JSON)` as the port's {@link QueryPlan}. */
import type { QueryPlan } from '../port.js'

/** One node of an `EXPLAIN (FORMAT JSON)` plan. */
export interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Index Cond'?: string
  Plans?: PlanNode[]
}

const INDEX_NODES = new Set(['Index Scan', 'Index Only Scan', 'Bitmap Index Scan'])

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)]
}

/**
 * The plan of the SELECTs of one find, each given as its root node: served by indexes when no
 * node is a `Seq Scan` (every table is a collection's), some node is an index scan and every
 * index scan has an `Index Cond` (one without walks a whole index, sparing only a sort). A
 * `Function Scan` over a bound list reads no collection.
 */
export function queryPlanOf(roots: PlanNode[]): QueryPlan {
  const nodes = roots.flatMap(nodesOf)
  const indexNodes = nodes.filter((node) => INDEX_NODES.has(node['Node Type']))
  const usesIndex =
    indexNodes.length > 0 &&
    indexNodes.every((node) => node['Index Cond'] !== undefined) &&
    !nodes.some((node) => node['Node Type'] === 'Seq Scan')
  return { usesIndex, plan: roots.map((root) => describe(root, 0)).join('\n\n') }
}

function describe(node: PlanNode, depth: number): string {
  const on = node['Index Name'] ?? node['Relation Name']
  const line = `${'  '.repeat(depth)}${node['Node Type']}${on ? ` on ${on}` : ''}${node['Index Cond'] ? ` (${node['Index Cond']})` : ''}`
  return [line, ...(node.Plans ?? []).map((child) => describe(child, depth + 1))].join('\n')
}

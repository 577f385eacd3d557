/** Reads the winning plan of MongoDB's `explain` as the port's {@link QueryPlan}. Pure: documents in, a verdict out. */
import type { QueryPlan } from '../port.js'

/** A stage of an explain plan, as the server sends it. */
export type PlanStage = { stage?: unknown; inputStage?: unknown; inputStages?: unknown; [key: string]: unknown }

/** Leaf stages that seek an index by nature: the `_id` fast path and MongoDB 8's express plans (equality on one index). */
const SEEKING_STAGES = new Set(['IDHACK', 'EXPRESS_IDHACK', 'EXPRESS_IXSCAN', 'EXPRESS_CLUSTERED_IXSCAN', 'COUNT_SCAN', 'DISTINCT_SCAN'])

/** The bounds of an index field that are no bounds at all: every key, in either direction. */
const WHOLE_INDEX = new Set(['[MinKey, MaxKey]', '[MaxKey, MinKey]'])

/** The leaf stages of a plan tree (where records are read from). */
function leaves(stage: PlanStage): PlanStage[] {
  const children = [stage.inputStage, ...(Array.isArray(stage.inputStages) ? (stage.inputStages as unknown[]) : [])].filter(
    (child): child is PlanStage => typeof child === 'object' && child !== null,
  )
  return children.length === 0 ? [stage] : children.flatMap(leaves)
}

/**
 * Whether a leaf narrows what it reads through an index: an `IXSCAN` whose leading key field is
 * bounded by the query (an `IXSCAN` over the whole index only spares a sort), a seeking stage,
 * or `EOF` (the query provably matches nothing). A `COLLSCAN`, or any stage not known here, does not.
 */
function seeksIndex(leaf: PlanStage): boolean {
  if (leaf.stage === 'EOF' || (typeof leaf.stage === 'string' && SEEKING_STAGES.has(leaf.stage))) return true
  if (leaf.stage !== 'IXSCAN') return false
  const [leading] = Object.keys(leaf.keyPattern ?? {})
  const bounds = (leaf.indexBounds as Record<string, unknown> | undefined)?.[leading]
  return !Array.isArray(bounds) || !bounds.every((interval) => WHOLE_INDEX.has(String(interval)))
}

/**
 * The port's plan of `queryPlanner.winningPlan` (the classic engine's stage tree, or under the
 * slot-based engine its `queryPlan`): served by indexes when every leaf stage seeks an index.
 */
export function queryPlanOf(winningPlan: PlanStage): QueryPlan {
  const { queryPlan } = winningPlan
  const tree = (typeof queryPlan === 'object' && queryPlan !== null ? queryPlan : winningPlan) as PlanStage
  return { usesIndex: leaves(tree).every(seeksIndex), plan: JSON.stringify(tree, null, 2) }
}

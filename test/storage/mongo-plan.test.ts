/**
 * How the MongoDB adapter reads `explain`'s winning plan (src/storage/mongo/plan.ts), on plans
 * shaped as MongoDB returns them: the classic engine's stage tree, the slot-based engine's
 * `queryPlan`, `$or` plans, MongoDB 8's express plans. These are written here, not captured from a
 * server (none runs on this machine); the suite checks the adapter on a real MongoDB with MONGODB_URL.
 */
import { describe, expect, it } from 'vitest'
import { queryPlanOf } from '../../src/storage/mongo/plan.js'

const ixscan = (keyPattern: Record<string, number>, indexBounds: Record<string, string[]>) => ({
  stage: 'IXSCAN',
  keyPattern,
  indexName: Object.keys(keyPattern).join('_'),
  direction: 'forward',
  indexBounds,
})
const bounded = ixscan(
  { tenantId: 1, vaultId: 1, createdAt: 1, _id: 1 },
  {
    tenantId: ['["t", "t"]'],
    vaultId: ['["v", "v"]'],
    createdAt: ['[MinKey, MaxKey]'],
    _id: ['[MinKey, MaxKey]'],
  },
)
const wholeIndex = ixscan({ createdAt: 1, _id: 1 }, { createdAt: ['[MinKey, MaxKey]'], _id: ['[MinKey, MaxKey]'] })

describe('queryPlanOf (MongoDB winning plans)', () => {
  it.each([
    ['a bounded IXSCAN under FETCH and LIMIT', { stage: 'LIMIT', inputStage: { stage: 'FETCH', inputStage: bounded } }],
    ['the same under the slot-based engine', { queryPlan: { stage: 'FETCH', inputStage: bounded }, slotBasedPlan: { stages: '...' } }],
    ['an OR of bounded IXSCANs', { stage: 'FETCH', inputStage: { stage: 'OR', inputStages: [bounded, bounded] } }],
    ['a single-field index bounded by an equality', { stage: 'FETCH', inputStage: ixscan({ did: 1 }, { did: ['["d", "d"]'] }) }],
    ['the _id fast path', { stage: 'IDHACK' }],
    ['an express equality plan', { stage: 'EXPRESS_IXSCAN', keyPattern: { did: 1 }, indexName: 'ux_did' }],
    ['a query that provably matches nothing', { stage: 'EOF' }],
  ])('%s: served by an index', (_name, winningPlan) => {
    expect(queryPlanOf(winningPlan).usesIndex).toBe(true)
  })

  it.each([
    ['a COLLSCAN', { stage: 'COLLSCAN', filter: {}, direction: 'forward' }],
    ['a SORT over a COLLSCAN', { stage: 'SORT', inputStage: { stage: 'COLLSCAN' } }],
    ['a walk of a whole index (sort only)', { stage: 'FETCH', inputStage: wholeIndex }],
    ['a walk of a whole index backwards', { stage: 'FETCH', inputStage: ixscan({ createdAt: -1 }, { createdAt: ['[MaxKey, MinKey]'] }) }],
    ['an OR with one branch scanning', { stage: 'OR', inputStages: [bounded, { stage: 'COLLSCAN' }] }],
    ['an unknown leaf stage', { stage: 'SOMETHING_NEW' }],
  ])('%s: not served by an index', (_name, winningPlan) => {
    expect(queryPlanOf(winningPlan).usesIndex).toBe(false)
  })

  it('gives the plan tree as JSON text', () => {
    const { plan } = queryPlanOf({ queryPlan: { stage: 'FETCH', inputStage: bounded }, slotBasedPlan: {} })
    expect(JSON.parse(plan)).toEqual({ stage: 'FETCH', inputStage: bounded })
  })
})

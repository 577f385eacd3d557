/**
 * A path parameter that is not valid percent-encoded UTF-8 fails in Express's routing, before a route's handlers run.
 * Every route of the operation table still answers it as its contract says: a result-answering route (DID resolution)
 * with a result naming `invalidDid`, an OAuth-format one (the OID4VCI issuer's wallet-facing endpoints) with an OAuth
 * error body, any other with the spec's error body — never a 500. The routes are read from the table, so a route added
 * to it is held to this too. Root routes (`createWellKnownRouter`) are not the router's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { routesOf } from '../../src/operations/routes.js'
import { CONTRACTS } from '../../src/service/contracts.js'
import { startHarness, type Harness } from '../helpers/harness.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(() => h.close())

const PARAMETRIZED = routesOf(CONTRACTS).filter((route) => route.path.includes('/:') && route.root !== true)

describe('undecodable path parameters, on every route of the table that has one', () => {
  it('the table has such routes, DID resolution among them', () => {
    expect(PARAMETRIZED.map((route) => route.path)).toContain('/1.0/identifiers/:did')
  })

  for (const route of PARAMETRIZED) {
    it(`${route.method.toUpperCase()} ${route.path}`, async () => {
      const path = route.path.replace(/:\w+/g, '%E0%A4%A')
      const res = await h.request(route.method.toUpperCase(), path, route.method === 'get' ? {} : { json: {} })
      expect(res.status, path).toBeLessThan(500)
      if (route.operations.some((op) => 'outcome' in CONTRACTS[op.name] && CONTRACTS[op.name].outcome !== undefined)) {
        expect([res.status, res.body.didResolutionMetadata?.error, res.body.didDocument]).toEqual([400, 'invalidDid', null])
        expect(res.body.didResolutionMetadata.message).toMatch(/not valid percent-encoded UTF-8/)
      } else if (route.operations.some((op) => 'errorFormat' in CONTRACTS[op.name])) {
        expect([res.status, res.body.error]).toEqual([400, 'invalid_request'])
        expect(res.body.error_description).toMatch(/not valid percent-encoded UTF-8/)
      } else {
        expect(Object.keys(res.body).sort()).toEqual(['errorMessage', 'errorType', 'statusCode'])
        expect(res.body.statusCode).toBe(res.status)
      }
    })
  }
})

/**
 * Every operation, through the embedded API and through `didvault/client` against a real
 * `didvault serve` process (the built CLI), from the one list of cases in
 * `test/helpers/operation-cases.ts`: the same inputs give the same results and the same
 * `IdentityError`s both ways.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from '../../src/client/index.js'
import { createMemoryStorage, IdentityError, IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import { CONTRACTS, type OperationName } from '../../src/service/contracts.js'
import { CLI, ROOT, ensureBuilt } from '../helpers/build.js'
import { API_KEYS, OPERATION_CASES, emptyFixture, type OperationsApi } from '../helpers/operation-cases.js'
import { killAll, spawnNode } from '../helpers/spawn.js'

/** Starts what serves the operations; resolves to it and how to stop it. */
type Start = () => Promise<{ api: OperationsApi; stop(): Promise<void> }>

const RUNS: Record<string, Start> = {
  'embedded API': async () => {
    const tenants = staticTenants({ [API_KEYS.a]: 'a', [API_KEYS.b]: 'b' })
    const service = await IdentityService.create({
      storage: createMemoryStorage(),
      masterKey: randomMasterKey(),
      tenants,
      publicUrl: 'https://status.example.com',
    })
    return { api: service, stop: () => service.close() }
  },
  'didvault/client → didvault serve': async () => {
    ensureBuilt()
    const env = { DIDVAULT_API_KEYS: `a:${API_KEYS.a},b:${API_KEYS.b}` }
    const server = spawnNode([CLI, 'serve', '--port', '0', '--storage', 'memory', '--public-url', 'https://status.example.com'], {
      cwd: ROOT,
      env,
    })
    const [, baseUrl] = await server.waitFor(/didvault listening on ([^\s"]+)"/)
    return { api: createClient({ baseUrl }), stop: killAll }
  },
}

it('the cases call every operation', () => {
  const called = new Set(OPERATION_CASES.map((c) => c.operation))
  expect((Object.keys(CONTRACTS) as OperationName[]).filter((name) => !called.has(name))).toEqual([])
})

describe.each(Object.keys(RUNS))('%s', (run) => {
  let api: OperationsApi
  let stop = async () => {}
  const fixture = emptyFixture()
  beforeAll(async () => {
    ;({ api, stop } = await RUNS[run]())
  }, 180_000)
  afterAll(() => stop())

  // The wallet-facing operations (`client: false`) are not the client's: their cases run on the service only.
  for (const c of OPERATION_CASES.filter((c) => !('client' in CONTRACTS[c.operation]))) {
    it(`${c.operation}: ${c.name}`, async () => {
      const method = (api.as(c.auth(fixture)) as Record<string, unknown>)[c.operation] as (input: unknown) => Promise<unknown>
      const outcome = await method(c.input(fixture)).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      )
      if (c.rejects) {
        expect('error' in outcome && outcome.error).toBeInstanceOf(IdentityError)
        const body = (outcome as { error: IdentityError }).error.toJSON()
        const { statusCode, errorType, message = /./ } = c.rejects
        expect(body).toEqual({ statusCode, errorType, errorMessage: expect.stringMatching(message) })
        return
      }
      if ('error' in outcome) throw outcome.error
      const checked = CONTRACTS[c.operation].response.safeParse(outcome.result)
      expect(checked.success, checked.error?.message).toBe(true)
      c.then?.(outcome.result as never, fixture)
    })
  }
})

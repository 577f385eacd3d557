/** The fixture lifecycle the conformance suites share: a fresh fixture per test, cleaned up after it. */
import { afterEach, beforeEach } from 'vitest'

/**
 * Registers hooks (call inside a `describe`) that make a fixture with `factory` before each test and run its
 * `cleanup` after; the returned function gives the current test's fixture, and throws outside a test.
 */
export function fixturePerTest<F extends { cleanup?: () => Promise<void> | void }>(factory: () => Promise<F>, what: string): () => F {
  let fixture: F | undefined
  beforeEach(async () => {
    fixture = await factory()
  })
  afterEach(async () => {
    await fixture?.cleanup?.()
    fixture = undefined
  })
  return () => {
    if (fixture === undefined) throw new Error(`${what} fixture used outside a test`)
    return fixture
  }
}

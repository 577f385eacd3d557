/**
 * The SoftHSM2 token of a test file that runs the built CLI against it: before all its tests (when SoftHSM2 is
 * installed, see {@link softHsmAvailable}) `dist/` built if stale and a fresh token made; after all, the token removed.
 */
import { afterAll, beforeAll } from 'vitest'
import { ensureBuilt } from './build.js'
import { softHsmAvailable, startSoftHsm, type SoftHsm } from './softhsm.js'

/** Registers the file's hooks; the getter answers the token inside tests (it throws before `beforeAll` made one). */
export function softHsmForCli(): () => SoftHsm {
  let hsm: SoftHsm | undefined
  beforeAll(() => {
    if (!softHsmAvailable()) return
    ensureBuilt()
    hsm = startSoftHsm()
  }, 180_000)
  afterAll(() => hsm?.stop())
  return () => {
    if (hsm === undefined) throw new Error('no SoftHSM2 token: SoftHSM2 is not installed, or beforeAll has not run')
    return hsm
  }
}

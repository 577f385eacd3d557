/**
 * `parsing` (the protocol adapter's wrapper of the library's parsers): the library's per-call schemas are made without
 * zod's JIT compilation, and the application's own zod setting is what it was afterwards — after a parse, after a
 * refusal, and when the application had turned the JIT off itself.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { OAuthError } from '../../../src/oid4vci/oauth-error.js'
import { parsing } from '../../../src/oid4vci/protocol/request.js'

const initial = z.config().jitless
afterEach(() => {
  z.config({ jitless: initial })
})

describe('parsing', () => {
  it('runs the parse with zod’s JIT off, and gives the setting back', () => {
    expect(parsing('invalid_request', () => ({ jitless: z.config().jitless, n: z.object({ n: z.number() }).parse({ n: 1 }).n }))).toEqual({
      jitless: true,
      n: 1,
    })
    expect(z.config().jitless).toBe(initial)
  })

  it('gives the setting back when the parse refuses, as an OAuth error of the code given', () => {
    const refusal = (() => {
      try {
        parsing('invalid_request', () => z.object({ grant_type: z.string() }).parse({}))
      } catch (err) {
        return err
      }
    })()
    expect(refusal).toBeInstanceOf(OAuthError)
    expect((refusal as OAuthError).error).toBe('invalid_request')
    expect(z.config().jitless).toBe(initial)
  })

  it('leaves an application’s own jitless setting on', () => {
    z.config({ jitless: true })
    parsing('invalid_request', () => 1)
    expect(z.config().jitless).toBe(true)
  })
})

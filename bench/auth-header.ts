/**
 * Authorization header parsing on hostile input: the timing the unit test no longer asserts
 * (test/proofs/verifier-hardening.test.ts checks the work bound instead). A header of whitespace
 * runs just under the 16 KiB cap made an earlier, quadratic regex take ~480 ms; parsing it now
 * is one linear pass (microseconds), and a header over the cap costs no more than an ordinary one.
 */
import { bearerToken } from '../src/auth/tenants.js'
import { measure, type MeasureOptions, type Measurement } from './measure.js'

export interface AuthHeaderResults {
  ordinary: Measurement
  hostileUnderCap: Measurement
  overCap: Measurement
}

export async function benchAuthHeader(options: MeasureOptions): Promise<AuthHeaderResults> {
  const ordinary = `Bearer ${'k'.repeat(40)}`
  const hostile = `Bearer ${' \n'.repeat(8_000)}x`
  const over = `Bearer ${' \n'.repeat(20_000)}x`
  return {
    ordinary: await measure({ label: 'Authorization parsing, ordinary header', fn: () => bearerToken(ordinary) }, options),
    hostileUnderCap: await measure({ label: 'Authorization parsing, 16 KiB of whitespace', fn: () => bearerToken(hostile) }, options),
    overCap: await measure({ label: 'Authorization parsing, over the cap', fn: () => bearerToken(over) }, options),
  }
}

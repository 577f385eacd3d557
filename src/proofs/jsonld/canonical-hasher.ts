/**
 * The hashes the proof suites build on: sha256 of an input's canonical N-Quads. A
 * {@link CanonicalHasher} checks each input against its bounds first, answers from the
 * process's cache of canonical hashes (in this thread: a hit never costs a canonicalization),
 * and hands the misses of one call to its `compute` as one unit of work — in the service, one
 * task of the worker pool; by default (the proof suites used directly, the service's own
 * DID-auth credential, which no caller shapes) in this thread.
 */
import { createHash } from 'node:crypto'
import type { IdentityError } from '../../errors.js'
import type { DataIntegrityRunner } from '../data-integrity/steps.js'
import { DEFAULT_JSONLD_LIMITS, measureJsonLd, type JsonLdLimits } from './bounds.js'
import { canonicalOutcome, type CanonicalFailure, type CanonicalOutcome } from './canonize.js'
import { UnknownContextError } from './document-loader.js'
import { JsonLdProcessingError } from './errors.js'

/** Canonical hashes remembered (a document verified again, or signed then verified, is not re-canonicalized). */
const MAX_REMEMBERED = 1024

/** An input to canonicalize: its JSON text, and how many values it holds. */
export interface CanonicalInput {
  json: string
  nodes: number
}

/** Canonicalizes inputs: one outcome per input, in order. One call is one unit of work. */
export type CanonicalCompute = (inputs: readonly CanonicalInput[]) => Promise<CanonicalOutcome[]>

/** Computes the canonical hashes of JSON-LD inputs within bounds. */
export interface CanonicalHasher {
  /** The bounds every input is checked against before any processing. */
  readonly limits: JsonLdLimits
  /**
   * sha256 of the canonical form of each input (taken as JSON), one promise per input, the
   * misses computed together. A promise rejects with {@link JsonLdBoundsError} (over a bound, a
   * forbidden key), {@link UnknownContextError} or {@link JsonLdProcessingError} for its input
   * alone, or with the unit's failure (e.g. {@link JsonLdDeadlineError}); the promises are
   * marked handled, so those a caller never awaits raise no unhandled rejection.
   */
  hashEach(inputs: readonly object[]): Array<Promise<Uint8Array>>
  /**
   * Runs a Data Integrity library step (`data-integrity/steps.ts`) where this hasher's work runs: the service's pool
   * hands it to a worker under its deadline and the tenant's cap (a step stopped there rejects with
   * {@link JsonLdDeadlineError}); without it the step runs in the calling thread.
   */
  readonly runDataIntegrity?: DataIntegrityRunner
}

/** Process-wide: contexts never change once known, so equal JSON means equal N-Quads whichever thread computed them. */
const remembered = new Map<string, Uint8Array>()

function recall(key: string): Uint8Array | undefined {
  const known = remembered.get(key)
  if (known !== undefined) {
    remembered.delete(key)
    remembered.set(key, known)
  }
  return known
}

function remember(key: string, hash: Uint8Array): void {
  remembered.set(key, hash)
  if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string)
}

/** The error a failed input stands for. */
function failureError(failure: CanonicalFailure): IdentityError {
  if ('unknownContext' in failure) return new UnknownContextError(failure.unknownContext)
  return new JsonLdProcessingError(failure.code, failure.message)
}

/** `promise`, marked handled (its rejection still reaches whoever awaits it). */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined)
  return promise
}

/** A hasher checking inputs against `limits` and computing misses with `compute` (and Data Integrity steps with `runDataIntegrity`). */
export function canonicalHasher(limits: JsonLdLimits, compute: CanonicalCompute, runDataIntegrity?: DataIntegrityRunner): CanonicalHasher {
  return {
    limits,
    ...(runDataIntegrity !== undefined && { runDataIntegrity }),
    hashEach(inputs) {
      const results = new Array<Promise<Uint8Array>>(inputs.length)
      const misses = new Map<string, CanonicalInput & { at: number[] }>()
      inputs.forEach((input, index) => {
        const nodes = measureJsonLd(input, limits)
        if (typeof nodes !== 'number') {
          results[index] = handled(Promise.reject(nodes))
          return
        }
        const json = JSON.stringify(input)
        const key = createHash('sha256').update(json).digest('base64')
        const known = recall(key)
        if (known !== undefined) {
          results[index] = Promise.resolve(known)
          return
        }
        const miss = misses.get(key) ?? { json, nodes, at: [] }
        miss.at.push(index)
        misses.set(key, miss)
      })
      if (misses.size === 0) return results
      const work = [...misses]
      const computed = handled(compute(work.map(([, { json, nodes }]) => ({ json, nodes }))))
      work.forEach(([key, miss], i) => {
        const hash = handled(
          computed.then((outcomes) => {
            const outcome = outcomes[i]
            if (!(outcome instanceof Uint8Array)) throw failureError(outcome)
            remember(key, outcome)
            return outcome
          }),
        )
        for (const at of miss.at) results[at] = hash
      })
      return results
    },
  }
}

/** Canonicalizes in this thread, one input after the other. */
export async function computeInThread(inputs: readonly CanonicalInput[]): Promise<CanonicalOutcome[]> {
  const outcomes: CanonicalOutcome[] = []
  for (const { json } of inputs) outcomes.push(await canonicalOutcome(json))
  return outcomes
}

/**
 * The default hasher: default bounds, canonicalization in this thread. For inputs no caller
 * shapes (the service's DID-auth credential) and the proof suites used on their own; the
 * service canonicalizes what callers send in its worker pool.
 */
export const IN_THREAD_HASHER: CanonicalHasher = canonicalHasher(DEFAULT_JSONLD_LIMITS, computeInThread)

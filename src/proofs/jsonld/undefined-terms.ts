/**
 * Terms no context defines (W3C VCDM 2.0 §5.2, DESIGN §4 *Undefined JSON-LD terms*). Safe mode
 * refuses them rather than leave them out of a signature; when signing, didvault can instead
 * append the W3C undefined-terms context, whose `@vocab` maps each of them to
 * `https://www.w3.org/ns/credentials/undefined-term#<term>`, so they are signed.
 *
 * The context is appended only to a document safe mode refused for an undefined term, so a
 * credential whose terms are all defined is signed exactly as without it. It stays last: a
 * context added after it (a proof suite's) is placed before it.
 */
import { UNDEFINED_TERMS_V2_URL, type ContextEntry } from './contexts.js'
import { JsonLdProcessingError } from './errors.js'
import { contextList } from './proof-set.js'
import type { JsonLdDocument } from './types.js'

/**
 * What signing does with terms no context defines: `vocab` signs them under the undefined-terms
 * context (appended last when needed), `reject` refuses the document (422).
 */
export type UndefinedTerms = 'vocab' | 'reject'

/** The policies, the default first. */
export const UNDEFINED_TERMS_POLICIES = ['vocab', 'reject'] as const satisfies readonly UndefinedTerms[]

/**
 * Safe-mode events an `@vocab` mapping resolves: a property no context defines, and a type that
 * is neither a defined term nor an absolute IRI. Others (a relative `@id`, a key that cannot
 * become an IRI) are refused with or without it.
 */
const UNDEFINED_TERM_EVENTS: ReadonlySet<string> = new Set(['invalid property', 'relative @type reference'])

/** Whether `err` is safe mode refusing a term no context defines. */
export function isUndefinedTermError(err: unknown): err is JsonLdProcessingError {
  return err instanceof JsonLdProcessingError && UNDEFINED_TERM_EVENTS.has(err.code)
}

/** `document` with the undefined-terms context appended to its `@context`, unless it is there already. */
export function withUndefinedTerms<T extends JsonLdDocument>(document: T): T {
  const context = contextList(document['@context'])
  if (context.includes(UNDEFINED_TERMS_V2_URL)) return document
  return { ...document, '@context': [...context, UNDEFINED_TERMS_V2_URL] }
}

/** `context` with `added` after its other entries, but before an undefined-terms context that ends it. */
export function addContextBeforeUndefinedTerms(context: unknown, added: ContextEntry): unknown[] {
  const entries = contextList(context)
  if (entries.at(-1) !== UNDEFINED_TERMS_V2_URL) return [...entries, added]
  return [...entries.slice(0, -1), added, UNDEFINED_TERMS_V2_URL]
}

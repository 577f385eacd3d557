/**
 * RDF Dataset Canonicalization (RDFC-1.0, formerly URDNA2015) in jsonld's safe mode, over
 * the offline document loader. This is the CPU-heavy step of JSON-LD signing and
 * verification: the service runs it in its worker pool (`canonize-worker.ts`), never on the
 * event loop, and only on inputs within the bounds (`bounds.ts`).
 */
import jsonld from 'jsonld'
import { sha256 } from '@noble/hashes/sha2.js'
import { utf8ToBytes } from '@noble/hashes/utils.js'
import { getContext } from './contexts.js'
import { documentLoader, UnknownContextError } from './document-loader.js'
import { JsonLdProcessingError, shown } from './errors.js'

/** What rdf-canonize throws when a document's blank nodes need more than the allowed work ("poison graphs"). */
const WORK_LIMIT = /^Maximum deep iterations exceeded/

/**
 * Canonical N-Quads of a JSON-LD document. Safe mode: anything jsonld would drop or
 * could not map to an absolute IRI is an error, never silently unsigned.
 *
 * @throws {UnknownContextError} the document references a context that is not bundled/registered
 * @throws {JsonLdProcessingError} the document is not safely canonicalizable, or its blank
 *   nodes need more disambiguation work than allowed (rdf-canonize's `maxWorkFactor` 1: a
 *   count of steps, not a clock; the service's time bound is its worker pool's deadline)
 */
export async function canonize(input: object): Promise<string> {
  try {
    return await jsonld.canonize(input, {
      algorithm: 'RDFC-1.0',
      format: 'application/n-quads',
      safe: true,
      base: null,
      documentLoader,
      // Blank-node disambiguation is bounded: a graph built to make it explode (many
      // indistinguishable blank nodes) is refused instead of running for hours.
      canonizeOptions: { maxWorkFactor: 1 },
    })
  } catch (err) {
    throw translate(err)
  }
}

/**
 * Processes the context known under `url` (bundled or registered) as jsonld does for a
 * document referencing it, so that a malformed one — a bad term definition, a scoped context
 * that is not known, a protected term redefined within it — is found before a document needs it.
 *
 * @throws {UnknownContextError} it references a context that is not bundled/registered (or is not one)
 * @throws {JsonLdProcessingError} jsonld refuses it
 */
export async function checkContext(url: string): Promise<void> {
  try {
    await jsonld.expand({ '@context': url }, { documentLoader, base: null })
  } catch (err) {
    throw translate(err)
  }
}

/**
 * Why one input could not be canonicalized, as plain data (it crosses the worker boundary):
 * a context URL this thread does not know, or a {@link JsonLdProcessingError}'s code and message.
 */
export type CanonicalFailure = { unknownContext: string } | { code: string; message: string }

/** sha256 of an input's canonical N-Quads, or why there is none. */
export type CanonicalOutcome = Uint8Array | CanonicalFailure

/**
 * sha256 of the canonical N-Quads of the JSON text `json` (what is canonicalized is exactly
 * the text's value), or why it has none. Anything else thrown is a fault and propagates.
 */
export async function canonicalOutcome(json: string): Promise<CanonicalOutcome> {
  try {
    return sha256(utf8ToBytes(await canonize(JSON.parse(json) as object)))
  } catch (err) {
    if (err instanceof UnknownContextError) return { unknownContext: err.url }
    if (err instanceof JsonLdProcessingError) return { code: err.code, message: err.message }
    throw err
  }
}

interface JsonLdErrorShape {
  name?: unknown
  message?: unknown
  details?: {
    code?: unknown
    cause?: unknown
    term?: unknown
    context?: unknown
    event?: { code?: unknown; details?: Record<string, unknown> }
  }
}

/**
 * The first context URL in a scoped context that is neither bundled nor registered. jsonld
 * reports a scoped context it could not load as an `invalid scoped context`, without the
 * loader's error; the URL is what the caller needs to hear about.
 */
function unknownUrlIn(context: unknown): string | undefined {
  const entries = Array.isArray(context) ? context : [context]
  return entries.find((entry): entry is string => typeof entry === 'string' && getContext(entry) === undefined)
}

/** The loader's own error wherever jsonld wrapped it (or dropped it: a scoped context), else a {@link JsonLdProcessingError}. */
function translate(err: unknown): unknown {
  for (let e: unknown = err, depth = 0; e && depth < 8; e = (e as JsonLdErrorShape).details?.cause, depth++) {
    if (e instanceof UnknownContextError) return e
  }
  const shape = err as JsonLdErrorShape
  if (err instanceof Error && WORK_LIMIT.test(err.message)) {
    return new JsonLdProcessingError(
      'canonicalization limit',
      'JSON-LD canonicalization refused: the document’s blank nodes need too much work to tell apart',
    )
  }
  if (typeof shape?.name !== 'string' || !shape.name.startsWith('jsonld.')) return err
  const event = shape.details?.event
  if (typeof event?.code === 'string') {
    const subject = event.details?.property ?? event.details?.type ?? event.details?.value
    const about = subject === undefined ? '' : ` (${shown(String(JSON.stringify(subject)))})`
    return new JsonLdProcessingError(event.code, `JSON-LD safe mode rejected the document: ${event.code}${about}`)
  }
  const code = typeof shape.details?.code === 'string' ? shape.details.code : shape.name
  const unknown = code === 'invalid scoped context' ? unknownUrlIn(shape.details?.context) : undefined
  if (unknown !== undefined) return new UnknownContextError(unknown)
  const term = typeof shape.details?.term === 'string' ? shown(JSON.stringify(shape.details.term)) : undefined
  if (code === 'protected term redefinition' && term !== undefined) {
    const message = `JSON-LD processing failed: a context redefines the protected term ${term} (an earlier context protects it)`
    return new JsonLdProcessingError(code, message)
  }
  const about = term === undefined ? '' : ` (term ${term})`
  return new JsonLdProcessingError(code, `JSON-LD processing failed: ${shown(String(shape.message))}${about}`)
}

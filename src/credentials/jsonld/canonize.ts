/**
 * RDF Dataset Canonicalization (RDFC-1.0, formerly URDNA2015) in jsonld's safe mode, over
 * the offline document loader, and the hashes the proof suites build on.
 */
import { createHash } from 'node:crypto'
import jsonld from 'jsonld'
import { sha256 } from '@noble/hashes/sha2.js'
import { utf8ToBytes } from '@noble/hashes/utils.js'
import { documentLoader, UnknownContextError } from './document-loader.js'
import { JsonLdProcessingError, shown } from './errors.js'
import type { JsonLdDocument } from './types.js'

/** Canonical hashes remembered (a document verified again, or signed then verified, is not re-canonicalized). */
const MAX_REMEMBERED = 1024
/** Longest one canonicalization may spend in blank-node disambiguation, ms. */
const CANONIZE_TIMEOUT_MS = 2_000
/** What rdf-canonize throws when a document's blank nodes need more than the allowed work ("poison graphs"). */
const WORK_LIMIT = /^(Maximum deep iterations exceeded|Abort signal received)/

/**
 * Canonical N-Quads of a JSON-LD document. Safe mode: anything jsonld would drop or
 * could not map to an absolute IRI is an error, never silently unsigned.
 *
 * @throws {UnknownContextError} the document references a context that is not bundled/registered
 * @throws {JsonLdProcessingError} the document is not safely canonicalizable, or its blank
 *   nodes need more disambiguation work than allowed (at most 2 s, and rdf-canonize's
 *   `maxWorkFactor` 1)
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
      canonizeOptions: { maxWorkFactor: 1, signal: AbortSignal.timeout(CANONIZE_TIMEOUT_MS) },
    })
  } catch (err) {
    throw translate(err)
  }
}

const remembered = new Map<string, Uint8Array>()

/**
 * sha256 of the canonical form of `input`, taken as JSON (what is canonicalized is exactly
 * the JSON text's value). Results are remembered by the JSON text's hash, least recently
 * used first out: contexts never change once known, so equal JSON means equal N-Quads.
 */
export async function hashCanonical(input: object): Promise<Uint8Array> {
  const json = JSON.stringify(input)
  const key = createHash('sha256').update(json).digest('base64')
  const known = remembered.get(key)
  if (known !== undefined) {
    remembered.delete(key)
    remembered.set(key, known)
    return known
  }
  const hash = sha256(utf8ToBytes(await canonize(JSON.parse(json) as object)))
  remembered.set(key, hash)
  if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string)
  return hash
}

/** sha256 of the canonical form of `document` without its `proof` (the proof set's common input). */
export async function hashDocument(document: JsonLdDocument): Promise<Uint8Array> {
  const { proof: _proof, ...unsigned } = document
  return hashCanonical(unsigned)
}

interface JsonLdErrorShape {
  name?: unknown
  message?: unknown
  details?: { code?: unknown; cause?: unknown; event?: { code?: unknown; details?: Record<string, unknown> } }
}

/** The loader's own error wherever jsonld wrapped it, else a {@link JsonLdProcessingError}. */
function translate(err: unknown): unknown {
  for (let e: unknown = err, depth = 0; e && depth < 8; e = (e as JsonLdErrorShape).details?.cause, depth++) {
    if (e instanceof UnknownContextError) return e
  }
  const shape = err as JsonLdErrorShape
  if (err instanceof Error && WORK_LIMIT.test(err.message)) {
    return new JsonLdProcessingError('canonicalization limit', 'JSON-LD canonicalization refused: the document’s blank nodes need too much work to tell apart')
  }
  if (typeof shape?.name !== 'string' || !shape.name.startsWith('jsonld.')) return err
  const event = shape.details?.event
  if (typeof event?.code === 'string') {
    const subject = event.details?.property ?? event.details?.type ?? event.details?.value
    const about = subject === undefined ? '' : ` (${shown(String(JSON.stringify(subject)))})`
    return new JsonLdProcessingError(event.code, `JSON-LD safe mode rejected the document: ${event.code}${about}`)
  }
  const code = typeof shape.details?.code === 'string' ? shape.details.code : shape.name
  return new JsonLdProcessingError(code, `JSON-LD processing failed: ${shown(String(shape.message))}`)
}

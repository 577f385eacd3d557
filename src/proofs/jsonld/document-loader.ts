/**
 * The only jsonld document loader didvault uses. It answers from the bundled and registered
 * contexts ({@link getContext}) and never touches the network.
 */
import { IdentityError } from '../../errors.js'
import { getContext, type ContextDocument } from './contexts.js'
import { shown } from './errors.js'

/**
 * A document referenced a JSON-LD context URL that is neither bundled nor registered.
 * It is a `VALIDATION_ERROR` (422): the caller sent something didvault will not fetch.
 */
export class UnknownContextError extends IdentityError {
  /** The context URL, as referenced by the document (the message shows at most 200 characters). */
  readonly url: string

  constructor(url: string) {
    super(
      'VALIDATION_ERROR',
      `unknown JSON-LD context ${JSON.stringify(shown(url))}: contexts are never fetched; register it with registerContext()`,
    )
    this.name = 'UnknownContextError'
    this.url = url
  }
}

/** A document loader's answer, in jsonld's `RemoteDocument` shape. */
export interface LoadedContext {
  contextUrl: null
  documentUrl: string
  document: ContextDocument
  /** `static`: jsonld may keep the processed context in its process-wide cache. */
  tag: 'static'
}

/**
 * jsonld `documentLoader` over the bundled/registered contexts. Its answers carry the tag
 * `static`, so jsonld processes each context once per process and reuses it.
 *
 * @throws {UnknownContextError} for any other URL (no fetch is ever attempted)
 */
export async function documentLoader(url: string): Promise<LoadedContext> {
  const document = getContext(url)
  if (document === undefined) throw new UnknownContextError(url)
  return { contextUrl: null, documentUrl: url, document, tag: 'static' }
}

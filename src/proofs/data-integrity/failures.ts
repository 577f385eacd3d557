/**
 * What the libraries throw, as didvault's errors: the caller's mistakes (an unknown context, a document JSON-LD safe
 * mode or JCS refuses, a pointer that selects nothing) are 422; a failure of the key port is passed on unchanged.
 */
import { IdentityError, invalid } from '../../errors.js'
import { UnknownContextError } from '../jsonld/document-loader.js'
import { JsonLdProcessingError, shown } from '../jsonld/errors.js'

interface Wrapped {
  message?: unknown
  details?: { cause?: unknown; event?: { code?: unknown; details?: { property?: unknown; type?: unknown } } }
  cause?: unknown
}

/** The {@link IdentityError} (an unknown context above all) wherever jsonld wrapped it. */
export function identityErrorIn(error: unknown): IdentityError | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 8; depth++) {
    if (e instanceof UnknownContextError || e instanceof IdentityError) return e
    e = (e as Wrapped).details?.cause ?? (e as Wrapped).cause
  }
  return undefined
}

/** The message of anything thrown, bounded for an error body. */
export function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const event = (error as Wrapped | undefined)?.details?.event
  if (typeof event?.code !== 'string') return shown(message)
  const subject = event.details?.property ?? event.details?.type
  return shown(`JSON-LD safe mode rejected the document: ${event.code}${subject === undefined ? '' : ` (${JSON.stringify(subject)})`}`)
}

/**
 * Runs a library step on the caller's document: an error of `fromKeyPort` (set by the signer adapter) propagates as
 * it is; an {@link IdentityError} found in the error is thrown; anything else is the document's fault, a 422.
 */
export async function onDocument<T>(what: string, step: () => Promise<T>, fromKeyPort: () => unknown): Promise<T> {
  try {
    return await step()
  } catch (error) {
    const keyPortError = fromKeyPort()
    // The key port's own failure (unavailable, refused), exactly as it was thrown.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (keyPortError !== undefined) throw keyPortError
    const code = (error as Wrapped | undefined)?.details?.event?.code
    // JSON-LD safe mode's refusal keeps its event code: an undefined term is told apart (and signed under the
    // undefined-terms context by the JSON-LD format) as when the service's hasher canonicalizes.
    if (typeof code === 'string') throw identityErrorIn(error) ?? new JsonLdProcessingError(code, `${what}: ${messageOf(error)}`)
    throw identityErrorIn(error) ?? invalid(`${what}: ${messageOf(error)}`)
  }
}

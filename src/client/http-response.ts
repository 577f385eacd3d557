/** A response as the call's outcome: a 2xx's JSON body, the `IdentityError` of an error body, or a {@link TransportError}. */
import { IdentityError, isErrorType, type ErrorBody } from '../errors.js'
import { TransportError } from './transport-error.js'

function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null) return false
  const { statusCode, errorType, errorMessage } = body as Record<string, unknown>
  return typeof statusCode === 'number' && typeof errorType === 'string' && isErrorType(errorType) && typeof errorMessage === 'string'
}

/** Reads `response` (to `what`, e.g. `POST /vaults`, for messages): resolves to its JSON body when 2xx, rejects otherwise. */
export async function outcomeOf(response: Response, what: string): Promise<unknown> {
  let text: string
  try {
    text = await response.text()
  } catch (err) {
    throw new TransportError(`${what}: the response was cut off (HTTP ${response.status})`, { status: response.status, cause: err })
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw new TransportError(`${what}: HTTP ${response.status} with a body that is not JSON`, { status: response.status })
  }
  if (response.ok) return body
  // The HTTP status is the service's answer; a body saying otherwise is not trusted for it (its type and text are kept).
  if (isErrorBody(body)) throw new IdentityError(body.errorType, body.errorMessage, response.status)
  throw new TransportError(`${what}: HTTP ${response.status} without didvault's error body`, { status: response.status })
}

/**
 * Reads a served document (an operation whose contract has `document: true`) as the embedded API
 * answers it: `{ document, contentType, etag, maxAge }` — the body parsed when its type is JSON.
 */
export async function documentOutcomeOf(response: Response, what: string): Promise<unknown> {
  if (!response.ok) return outcomeOf(response, what)
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0].trim()
  const text = await response.text()
  let document: unknown = text
  if (/[+/]json$/.test(contentType)) {
    try {
      document = JSON.parse(text)
    } catch {
      throw new TransportError(`${what}: HTTP ${response.status} with a ${contentType} body that is not JSON`, { status: response.status })
    }
  }
  const maxAge = /max-age=(\d+)/.exec(response.headers.get('cache-control') ?? '')?.[1]
  return { document, contentType, etag: response.headers.get('etag') ?? '', maxAge: maxAge === undefined ? 0 : Number(maxAge) }
}

/** A response as the call's outcome: a 2xx's JSON body, the `IdentityError` of an error body, or a {@link TransportError}. */
import type { z } from 'zod'
import { IdentityError, isErrorType, type ErrorBody } from '../errors.js'
import type { ErrorStatus, OperationContract } from '../operations/contract.js'
import { TransportError } from './transport-error.js'

type Contract = OperationContract<z.ZodObject, z.ZodType, z.ZodType>

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

/** The media types a response at `status` may be read in, by the contract: its `media` at 200, an error status's own. */
function declaredMediaTypes(contract: Contract, status: number): string[] | undefined {
  if (status === 200) return Object.keys(contract.media ?? { 'application/json': {} })
  const declared = contract.errors[status as ErrorStatus]
  return typeof declared === 'object' ? (declared.mediaTypes ?? ['application/json']) : undefined
}

/** `type/subtype` and the `profile` parameter (the part of a media type that names what the body is), in lower case. */
function mediaTypeKey(text: string): string {
  const [essence, ...parameters] = text.split(';').map((part) => part.trim())
  const profile = parameters
    .find((p) => /^profile\s*=/i.test(p))
    ?.replace(/^profile\s*=\s*/i, '')
    .replace(/^"(.*)"$/, '$1')
  return `${essence.toLowerCase()}${profile === undefined ? '' : `;profile=${profile}`}`
}

/**
 * Reads the answer of an operation whose every answer is a result (`outcome` in its contract, as DID resolution's):
 * resolves to the JSON body at 200 or at an error status declaring its own body, in a media type the contract
 * declares there; an error body (or anything else) is read as {@link outcomeOf} reads it.
 */
export async function resultOutcomeOf(response: Response, what: string, contract: Contract): Promise<unknown> {
  const declared = declaredMediaTypes(contract, response.status)
  if (declared === undefined) return outcomeOf(response, what)
  const type = response.headers.get('content-type') ?? ''
  if (!declared.map(mediaTypeKey).includes(mediaTypeKey(type))) {
    throw new TransportError(`${what}: HTTP ${response.status} in ${type || 'no media type'}, not ${declared.join(' or ')}`, {
      status: response.status,
    })
  }
  let text: string
  try {
    text = await response.text()
  } catch (err) {
    throw new TransportError(`${what}: the response was cut off (HTTP ${response.status})`, { status: response.status, cause: err })
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new TransportError(`${what}: HTTP ${response.status} with a ${type} body that is not JSON`, { status: response.status })
  }
}

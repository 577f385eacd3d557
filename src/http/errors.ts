/** Maps anything a request can fail with to the spec's error body and status. */
import { IdentityError, type ErrorBody } from '../errors.js'
import { malformedJson } from '../operations/check-json-text.js'

/** Errors raised by Express's JSON body parser carry a `type`. */
interface BodyParserError {
  type?: string
  status?: number
}

export function httpError(err: unknown): ErrorBody {
  if (err instanceof IdentityError) return err.toJSON()
  const type = (err as BodyParserError | undefined)?.type
  if (type === 'entity.too.large') return new IdentityError('PAYLOAD_TOO_LARGE', 'request body too large').toJSON()
  if (type === 'entity.parse.failed') return malformedJson().toJSON()
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new IdentityError('VALIDATION_ERROR', 'unsupported body encoding').toJSON()
  }
  const status = (err as BodyParserError | undefined)?.status
  if (typeof status === 'number' && status >= 400 && status < 500) return new IdentityError('VALIDATION_ERROR', 'bad request').toJSON()
  return new IdentityError('INTERNAL_ERROR', 'request failed').toJSON()
}

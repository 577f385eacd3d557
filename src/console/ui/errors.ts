/** How an error reads in the console: the server's `errorType` and message, else the transport's or the code's. */
import { IdentityError, TransportError } from '../../client/index.js'

/** What the banner shows of an error. */
export interface ShownError {
  /** The server's `errorType` (`NOT_FOUND`, `UNAUTHORIZED` …), `TransportError`, or the error's name. */
  type: string
  message: string
}

/** The error as the banner shows it. */
export function shownError(error: unknown): ShownError {
  if (error instanceof IdentityError) return { type: error.errorType, message: error.message }
  if (error instanceof TransportError) return { type: 'TransportError', message: error.message }
  if (error instanceof Error) return { type: error.name, message: error.message }
  return { type: 'Error', message: String(error) }
}

/** The first item error of a batch answer (`{ items, errors }`: the server answers each item), as the error it is. */
export function itemError(result: { errors?: Array<{ error: { statusCode: number; errorType: string; errorMessage: string } }> }) {
  const first = result.errors?.[0]
  return first === undefined ? undefined : IdentityError.fromBody(first.error as Parameters<typeof IdentityError.fromBody>[0])
}

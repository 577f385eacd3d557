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

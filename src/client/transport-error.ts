/**
 * A call that got no answer from the service: the request could not be sent or its response
 * read (network down, connection cut, refused by CORS), or what came back is not the service's
 * JSON (a proxy's error page, a 2xx that is not JSON). It is not an `IdentityError`: the service
 * may never have seen the request, so whether it took effect is unknown.
 */
export class TransportError extends Error {
  /** The HTTP status, when a response came. */
  readonly status?: number

  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'TransportError'
    if (options.status !== undefined) this.status = options.status
  }
}

/**
 * What the adapter needs of a wallet's HTTP request, and the library errors turned into {@link OAuthError}s.
 */
import { Oauth2ServerErrorResponseError, type RequestLike } from '@openid4vc/oauth2'
import { ValidationError } from '@openid4vc/utils'
import { config as zodConfig } from 'zod'
import { OAuthError } from '../oauth-error.js'

/** A wallet's request, as the router sees it. */
export interface WalletRequest {
  /** The HTTP method (`POST`, `GET`). */
  method: string
  /** The request URL as the public sees it (publicUrl + path under the mount): DPoP's `htu` is checked against it. */
  url: string
  /** The `DPoP` header. */
  dpop?: string
  /** The `Authorization` header. */
  authorization?: string
}

/** The library's form of a request. */
export function requestLike(request: WalletRequest): RequestLike {
  const headers = new Headers()
  if (request.dpop !== undefined) headers.set('DPoP', request.dpop)
  if (request.authorization !== undefined) headers.set('Authorization', request.authorization)
  return { method: request.method.toUpperCase() as RequestLike['method'], url: request.url, headers }
}

/**
 * The {@link OAuthError} a library error stands for. A parse error keeps the library's description (it names fields,
 * not values); a verification error takes `description`, since the library's may quote a code verifier or a nonce.
 */
export function oauthErrorOf(err: unknown, error: string, description: string): OAuthError {
  if (err instanceof OAuthError) return err
  if (err instanceof Oauth2ServerErrorResponseError) return new OAuthError(err.errorResponse.error, description, err.status)
  if (err instanceof ValidationError) return new OAuthError(error, firstLine(err.message))
  return new OAuthError(error, description)
}

/** The parse error's first line and the field lines after it, bounded. */
function firstLine(message: string): string {
  return message.split('\n').slice(0, 4).join(' ').slice(0, 300)
}

/**
 * Runs `parse` (synchronous: a call of the library's parsers), turning what it throws into an {@link OAuthError}
 * keeping the library's (field-naming) description. The library builds some schemas afresh on each call
 * (`parseCredentialRequest`'s `.strict()` object and `z.union`), and zod compiles each new object schema with `new
 * Function` at its first parse, which costs more than the parse itself: the schemas made during the call are made
 * without that compilation (zod's `jitless`, read when a schema is made), the setting restored before anything else
 * runs. Schemas made at import keep theirs.
 */
export function parsing<T>(error: string, parse: () => T): T {
  const jitless = zodConfig().jitless
  zodConfig({ jitless: true })
  try {
    return parse()
  } catch (err) {
    if (err instanceof Oauth2ServerErrorResponseError) {
      throw new OAuthError(err.errorResponse.error, firstLine(err.errorResponse.error_description ?? 'invalid request'), err.status)
    }
    throw oauthErrorOf(err, error, 'the request is malformed')
  } finally {
    zodConfig({ jitless })
  }
}

/**
 * Cross-origin calls from browsers (CORS): pages of the listed origins may call the routes — their
 * preflights are answered and every response names their exact origin — while any other origin
 * gets no CORS header at all, so browsers refuse to send it the request (preflighted calls) or to
 * show it the response. No origin is listed by default.
 */
import type { RequestHandler } from 'express'

export interface CorsOptions {
  /** Origins whose pages may call the routes, as `scheme://host[:port]` (e.g. `https://app.example.com`). No wildcard. */
  origins: string[]
}

const ORIGIN = /^([a-z][a-z0-9+.-]*):\/\/([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' }

/** What a preflight may ask for: the router's methods, and the headers the operations read. */
const ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE'
const ALLOW_HEADERS = 'authorization, x-did-auth, content-type, x-request-id'
/** What pages may read of a response besides the safelisted headers: the request's id. */
const EXPOSE_HEADERS = 'x-request-id'
/** How long browsers may reuse a preflight's answer, seconds. */
const PREFLIGHT_MAX_AGE = '600'

/**
 * `origin` spelled as browsers send it in `Origin` (scheme and host in lower case, no default
 * port). Throws a `TypeError` naming the problem when it is not `scheme://host[:port]` (a path,
 * a wildcard or `null` included).
 */
export function canonicalOrigin(origin: string): string {
  const match = ORIGIN.exec(origin)
  if (!match) throw new TypeError(`not an origin (scheme://host[:port], no path, no wildcard): ${JSON.stringify(origin)}`)
  const [, scheme, host, digits] = match
  const port = digits === undefined ? undefined : String(Number(digits))
  if (port !== undefined && Number(port) > 65535) throw new TypeError(`port out of range in origin ${JSON.stringify(origin)}`)
  const lower = scheme.toLowerCase()
  const shownPort = port === undefined || DEFAULT_PORTS[lower] === port ? '' : `:${port}`
  return `${lower}://${host.toLowerCase()}${shownPort}`
}

/** The middleware: CORS headers for the listed origins only; a listed origin's preflight is answered 204. */
export function cors(options: CorsOptions): RequestHandler {
  const allowed = new Set(options.origins.map(canonicalOrigin))
  return (req, res, next) => {
    // Responses differ by Origin once CORS is on: caches must not hand one origin's answer to another.
    res.vary('Origin')
    const origin = req.get('origin')
    if (origin === undefined || !allowed.has(origin)) return next()
    res.set('access-control-allow-origin', origin)
    if (req.method !== 'OPTIONS' || req.get('access-control-request-method') === undefined) {
      res.set('access-control-expose-headers', EXPOSE_HEADERS)
      return next()
    }
    res.set({
      'access-control-allow-methods': ALLOW_METHODS,
      'access-control-allow-headers': ALLOW_HEADERS,
      'access-control-max-age': PREFLIGHT_MAX_AGE,
    })
    res.status(204).end()
  }
}

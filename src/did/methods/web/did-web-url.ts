/**
 * The did:web method's DID → URL rule (W3C CCG did:web, *Read (Resolve)*): the method-specific
 * identifier is a host, its port written `%3A<port>`, then `:`-separated path segments;
 * `did:web:host%3Aport:a:b` is at `https://host:port/a/b/did.json`, and a DID without a path at
 * `https://host[:port]/.well-known/did.json`. Each part is percent-decoded (as web-did-resolver
 * does); a part that would leave its place in the URL (`/`, `?`, `#`, `\`, `@`, `.`/`..` segments)
 * or a host that is not a host is refused.
 */

/** Longest did:web DID considered, characters. */
export const MAX_DID_WEB_LENGTH = 2_000

const DID_WEB = /^did:web:[A-Za-z0-9._%-]+(:[A-Za-z0-9._%-]+)*$/
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(?::\d{1,5})?$/
const SEGMENT_FORBIDDEN = /[/?#\\@\s]/

/** The DID of a DID URL: without its fragment, query and path. */
export const didOfDidUrl = (didUrl: string): string => didUrl.split(/[#?/]/)[0]

/** The URL of `did`'s document, or why `did` is not a did:web DID this rule maps. */
export function didWebUrl(did: string): URL | { invalid: string } {
  if (did.length > MAX_DID_WEB_LENGTH) return { invalid: `longer than ${MAX_DID_WEB_LENGTH} characters` }
  if (!DID_WEB.test(did)) return { invalid: 'not did:web:<host>[%3A<port>][:<path>]…' }
  let parts: string[]
  try {
    parts = did.slice('did:web:'.length).split(':').map(decodeURIComponent)
  } catch {
    return { invalid: 'a part is not valid percent-encoding' }
  }
  const [host, ...path] = parts
  if (!HOST.test(host)) return { invalid: `${JSON.stringify(host.slice(0, 100))} is not a host[:port]` }
  if (path.some((segment) => SEGMENT_FORBIDDEN.test(segment) || segment === '.' || segment === '..' || segment === ''))
    return { invalid: 'a path segment holds /, ?, #, \\, @ or white space, or is empty, . or ..' }
  let url: URL
  try {
    url = new URL(`https://${host}/${path.length === 0 ? '.well-known' : path.map(encodeURIComponent).join('/')}/did.json`)
  } catch {
    return { invalid: `${JSON.stringify(host.slice(0, 100))} is not a host[:port]` }
  }
  return url
}

/**
 * The did:web DID of a wallet the service holds: `did:web:<publicUrl host, port as %3A…>:<publicUrl path
 * segments>:dids:<walletId>`, whose document is served at `<publicUrl>/dids/<walletId>/did.json`. The wallet id is
 * a random UUID, so the DID names no secret. `publicUrl` is the service's setting (already checked as a base URL).
 */
export function didWebOfWallet(publicUrl: string, walletId: string): string {
  const url = new URL(publicUrl)
  const host = url.port === '' ? url.hostname : `${url.hostname}%3A${url.port}`
  const path = url.pathname.split('/').filter((segment) => segment !== '')
  return ['did:web', host, ...path.map(encodeURIComponent), 'dids', encodeURIComponent(walletId)].join(':')
}

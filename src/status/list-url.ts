/** The public URL of a status list, and the list id of such a URL. */

/** `<baseUrl>/status/<listId>`. */
export function listUrlOf(baseUrl: string, listId: string): string {
  return `${baseUrl}/status/${listId}`
}

/** The list id a `statusListCredential` URL names (its last path segment after `/status/`), if it has that shape. */
export function listIdOf(url: string): string | undefined {
  const match = /\/status\/([A-Za-z0-9_-]{1,64})$/.exec(url)
  return match?.[1]
}

/**
 * `url` as a public base URL: absolute http(s), without query, fragment or trailing slash.
 *
 * @throws {TypeError} naming `setting` when it is not one
 */
export function publicBaseUrl(url: string, setting: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new TypeError(`${setting} must be an absolute http(s) URL`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`${setting} must be an http(s) URL`)
  if (parsed.search !== '' || parsed.hash !== '' || url.includes('?') || url.includes('#'))
    throw new TypeError(`${setting} must have no query or fragment`)
  if (parsed.username !== '' || parsed.password !== '') throw new TypeError(`${setting} must carry no credentials`)
  return parsed.href.replace(/\/+$/, '')
}

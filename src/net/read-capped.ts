/** Reading an HTTP response body no larger than a cap, for requests to servers the operator configured. */

/**
 * The body of `response` as UTF-8 text, or `undefined` when it is larger than `maxBytes` (by its
 * `Content-Length` or as read: reading stops at the cap and the stream is cancelled). A response
 * without a body is `''`. Throws what the stream throws (a timeout's abort, a cut connection).
 */
export async function readCappedText(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? 0)
  if (response.body === null) return ''
  if (declared > maxBytes) {
    await response.body.cancel().catch(() => undefined)
    return undefined
  }
  const chunks: Uint8Array[] = []
  let size = 0
  // Leaving the loop early cancels the stream: nothing past the cap is read.
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.length
    if (size > maxBytes) return undefined
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

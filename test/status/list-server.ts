/** A loopback HTTP server serving status lists as a test sets them, logging every request it gets. */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'

export interface ServedList {
  body: string
  status?: number
  headers?: Record<string, string>
  /** Waits this long before answering. */
  delayMs?: number
}

export interface ListServer {
  origin: string
  /** Path → what is served there. */
  lists: Map<string, ServedList>
  /** Every request: its path and its If-None-Match. */
  requests: Array<{ path: string; ifNoneMatch?: string }>
  close(): Promise<void>
}

export async function startListServer(): Promise<ListServer> {
  const lists = new Map<string, ServedList>()
  const requests: ListServer['requests'] = []
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/'
    const ifNoneMatch = req.headers['if-none-match']
    requests.push({ path, ...(ifNoneMatch !== undefined && { ifNoneMatch }) })
    const served = lists.get(path)
    const answer = () => {
      if (served === undefined) return res.writeHead(404).end()
      if (ifNoneMatch !== undefined && served.headers?.etag === ifNoneMatch) return res.writeHead(304, served.headers).end()
      res.writeHead(served.status ?? 200, { 'content-type': 'application/json', ...served.headers }).end(served.body)
    }
    if (served?.delayMs) setTimeout(answer, served.delayMs)
    else answer()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    lists,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * A status list of `length` bits with the bits `set` set, GZIP then base64url (with the multibase
 * `u` prefix unless `multibase` is false): written here bit by bit as W3C Bitstring Status List
 * v1.0 defines it (index 0 is the high bit of the first byte), not with the library under test.
 */
export function encodedList(set: number[], { length = 131_072, multibase = true } = {}): string {
  const bytes = Buffer.alloc(Math.ceil(length / 8))
  for (const index of set) bytes[index >> 3] |= 0x80 >> (index & 7)
  const encoded = gzipSync(bytes).toString('base64url')
  return multibase ? `u${encoded}` : encoded
}

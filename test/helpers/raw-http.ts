/**
 * HTTP/1.1 by hand over one TCP connection, for tests that must know which connection a request
 * went on: keep-alive reuse, a request sent on a kept-alive connection at a given moment, a body
 * left unfinished, and whether (and when) the server closed the connection.
 */
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'

export interface RawResponse {
  status: number
  /** Lower-case names. */
  headers: Record<string, string>
  /** Parsed when JSON, else the text. */
  body: any
}

/** One connection to a loopback port; responses are read in order (Content-Length bodies). */
export class RawConnection {
  readonly socket: Socket
  /** Settles when the server has closed the connection (or it failed). */
  readonly closed: Promise<void>
  #buffer = Buffer.alloc(0)
  #waiting: Array<{ resolve(r: RawResponse): void; reject(e: Error): void }> = []
  #ended = false

  private constructor(socket: Socket) {
    this.socket = socket
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk])
      this.#drain()
    })
    this.closed = new Promise((resolve) => {
      const end = () => {
        this.#ended = true
        for (const w of this.#waiting.splice(0)) w.reject(new Error('the connection was closed before a response'))
        resolve()
      }
      socket.once('close', end)
      socket.once('error', () => undefined)
    })
  }

  static async open(port: number): Promise<RawConnection> {
    const socket = connect(port, '127.0.0.1')
    await once(socket, 'connect')
    return new RawConnection(socket)
  }

  /** The client side's port (to find which process holds the server side). */
  get localPort(): number {
    return this.socket.localPort!
  }

  /** Sends a whole request (keep-alive, HTTP/1.1's default); resolves with its response. */
  request(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
    const response = this.#next()
    this.socket.write(head(method, path, headers, body) + (body ?? ''))
    return response
  }

  /**
   * Sends a request's head and the first `sent` bytes of its body: the server has it in flight
   * until `finish()` sends the rest (which resolves with the response).
   */
  partial(method: string, path: string, headers: Record<string, string>, body: string, sent = 10): { finish(): Promise<RawResponse> } {
    const response = this.#next()
    this.socket.write(head(method, path, headers, body) + body.slice(0, sent))
    return {
      finish: () => {
        this.socket.write(body.slice(sent))
        return response
      },
    }
  }

  close(): void {
    this.socket.destroy()
  }

  #next(): Promise<RawResponse> {
    if (this.#ended) return Promise.reject(new Error('the connection is closed'))
    const response = new Promise<RawResponse>((resolve, reject) => this.#waiting.push({ resolve, reject }))
    // A request never finished (`partial` without `finish`) is not awaited: its rejection at the close is expected, not unhandled.
    response.catch(() => undefined)
    return response
  }

  #drain(): void {
    for (;;) {
      const end = this.#buffer.indexOf('\r\n\r\n')
      if (end === -1 || this.#waiting.length === 0) return
      const [statusLine, ...lines] = this.#buffer.subarray(0, end).toString('latin1').split('\r\n')
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const colon = line.indexOf(':')
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
      }
      const length = Number(headers['content-length'] ?? 0)
      if (this.#buffer.length < end + 4 + length) return
      const text = this.#buffer.subarray(end + 4, end + 4 + length).toString('utf8')
      this.#buffer = this.#buffer.subarray(end + 4 + length)
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {
        // not JSON: the text
      }
      this.#waiting.shift()!.resolve({ status: Number(statusLine.split(' ')[1]), headers, body })
    }
  }
}

function head(method: string, path: string, headers: Record<string, string>, body: string | undefined): string {
  const all: Record<string, string> = { host: '127.0.0.1', ...headers }
  if (body !== undefined) {
    all['content-type'] ??= 'application/json'
    all['content-length'] = String(Buffer.byteLength(body))
  }
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`
}

/**
 * Requests Node's HTTP parser rejects before Express sees them (headers over
 * `maxHeaderSize`, malformed request lines) answered with the spec's error body instead of
 * Node's bare status line.
 */
import type { Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { ErrorBody } from '../errors.js'

/**
 * Installs the `clientError` handler on `server`: 431 for oversized headers, 400 for a
 * request the parser cannot read; either way the connection is closed.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy()
      return
    }
    const body: ErrorBody =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? { statusCode: 431, errorType: 'PAYLOAD_TOO_LARGE', errorMessage: 'request headers too large' }
        : { statusCode: 400, errorType: 'VALIDATION_ERROR', errorMessage: 'malformed HTTP request' }
    const json = JSON.stringify(body)
    const reason = body.statusCode === 431 ? 'Request Header Fields Too Large' : 'Bad Request'
    socket.end(
      `HTTP/1.1 ${body.statusCode} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ` +
        `${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    )
  })
}

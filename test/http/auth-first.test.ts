/**
 * The Base Auth Token (and the DID-auth token) are checked from the headers before the body is
 * read: an unauthenticated request is answered at once, without waiting for or parsing its body.
 */
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, snapshot, startHarness, TENANT_A, type Harness } from '../helpers/harness.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(() => h.close())

/** Sends only the headers of a request announcing a `length`-byte body; resolves to what the server answers before any body byte is sent. */
function headersOnly(path: string, headers: Record<string, string>, length: number): Promise<string> {
  const { hostname, port, pathname } = new URL(h.url + path)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const lines = [
        `POST ${pathname} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        'Content-Type: application/json',
        `Content-Length: ${length}`,
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ]
      socket.write(lines.join('\r\n') + '\r\n\r\n')
    })
    let received = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer without the body; got ${JSON.stringify(received)}`))
    }, 5_000)
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8')
      const end = received.indexOf('\r\n\r\n')
      const length = /content-length: (\d+)/i.exec(received)?.[1]
      if (end >= 0 && length !== undefined && received.length >= end + 4 + Number(length)) {
        clearTimeout(timer)
        socket.destroy()
        resolve(received)
      }
    })
    socket.on('error', reject)
  })
}

describe('authentication before the body', () => {
  it('a missing or unknown Base Auth Token is answered without the body being sent', async () => {
    for (const headers of [{}, { Authorization: 'Bearer not-a-key-of-any-tenant' }] as Array<Record<string, string>>) {
      const answer = await headersOnly('/vaults', headers, 1_000_000)
      expect(answer).toMatch(/^HTTP\/1\.1 403 /)
      // The connection closes: the server does not go on receiving the body only to discard it.
      expect(answer).toMatch(/^connection: close$/im)
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ statusCode: 403, errorType: 'UNAUTHENTICATED' })
    }
  })

  it('a missing DID-auth token is answered without the body too (operations that need one)', async () => {
    const answer = await headersOnly('/wallet/rename', { Authorization: `Bearer ${TENANT_A}` }, 1_000_000)
    expect(answer).toMatch(/^HTTP\/1\.1 403 /)
    expect(answer).toContain('"errorType":"UNAUTHENTICATED"')
  })

  it('unauthenticated: 403 whatever the body — malformed JSON, another content type, over the size limit — and nothing written', async () => {
    const before = await snapshot(h)
    for (const token of [null, 'wrong-token-0123456789abcdef']) {
      expectError(
        await h.request('POST', '/vaults', { token, body: '{"name": ', headers: { 'content-type': 'application/json' } }),
        403,
        'UNAUTHENTICATED',
      )
      expectError(
        await h.request('POST', '/vaults', { token, body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        403,
        'UNAUTHENTICATED',
      )
      expectError(await h.request('POST', '/vaults', { token, json: { name: 'x'.repeat(2 * 1024 * 1024) } }), 403, 'UNAUTHENTICATED')
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('authenticated: the body is then read and checked as before (422 malformed, 413 too large)', async () => {
    expectError(
      await h.request('POST', '/vaults', { body: '{"name": ', headers: { 'content-type': 'application/json' } }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(await h.request('POST', '/vaults', { json: { name: 'x'.repeat(2 * 1024 * 1024) } }), 413, 'PAYLOAD_TOO_LARGE')
    expect((await h.request('POST', '/vaults', { json: { name: 'fine' } })).status).toBe(200)
  })
})

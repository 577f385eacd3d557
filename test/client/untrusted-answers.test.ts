/**
 * The typed client against answers it must not trust, over real HTTP on loopback: a redirect
 * (to another origin or its own) is never followed — the API key, DID-auth tokens and body stay
 * where the caller sent them — and an error body whose `statusCode` disagrees with the HTTP
 * status is taken at the HTTP status (its type and text kept).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createClient, TransportError } from '../../src/client/index.js'
import { IdentityError } from '../../src/index.js'

interface Received {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

/** A loopback server answering each request with `answer`, recording what reached it. */
async function serve(answer: (request: IncomingMessage, response: ServerResponse) => void) {
  const received: Received[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
      answer(request, response)
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received }
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}

const API_KEY = 'api-key-that-must-stay-home'
const DID_AUTH = 'did-auth-token-that-must-stay-home'

describe('redirects are never followed', () => {
  it.each([301, 302, 303, 307, 308])(
    'a %i to another origin: a TransportError naming that origin, and the other origin receives nothing',
    async (status) => {
      const other = await serve((_request, response) => json(response, 200, { ok: true }))
      const service = await serve((_request, response) => {
        response.writeHead(status, { location: `${other.origin}/vaults/v1/wallet?token=secret-in-location` })
        response.end()
      })
      const client = createClient({ baseUrl: service.origin, apiKey: API_KEY, didAuth: DID_AUTH })
      const error = await client.createVaultWallet({ vaultID: 'v1', wallet: { alias: 'alice' } }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TransportError)
      expect(error).not.toBeInstanceOf(IdentityError)
      expect((error as TransportError).status).toBe(status)
      expect((error as TransportError).message).toBe(
        `POST /vaults/v1/wallet: the server answered a redirect to ${other.origin}; didvault's client follows none ` +
          `(credentials and the body would go with it): set baseUrl to where the service is`,
      )
      expect(other.received).toEqual([])
      // The request reached the service once, with its credentials, and was not sent again.
      expect(service.received).toHaveLength(1)
      expect(service.received[0]).toMatchObject({ method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'x-did-auth': DID_AUTH } })
    },
  )

  it('a redirect to its own origin is not followed either, and a Location that does not parse is not echoed', async () => {
    const service = await serve((request, response) => {
      response.writeHead(302, { location: request.url === '/vaults' ? '/elsewhere' : 'http://[bad' })
      response.end()
    })
    const client = createClient({ baseUrl: service.origin, apiKey: API_KEY })
    const own = await client.getVaults().catch((e: unknown) => e)
    expect((own as TransportError).message).toMatch(new RegExp(`^GET /vaults: the server answered a redirect to ${service.origin};`))
    const bad = await client.getWallets().catch((e: unknown) => e)
    expect((bad as TransportError).message).toMatch(/^GET \/wallets: the server answered a redirect to an address that does not parse;/)
    expect(service.received.map((r) => r.url)).toEqual(['/vaults', '/wallets'])
  })
})

describe('the HTTP status is the answer', () => {
  it.each([
    [403, { statusCode: 200, errorType: 'FORBIDDEN', errorMessage: 'not yours' }],
    [500, { statusCode: 422, errorType: 'VALIDATION_ERROR', errorMessage: 'looks like your fault' }],
    [422, { statusCode: 503, errorType: 'NOT_FOUND', errorMessage: 'no such vault' }],
  ])(
    'HTTP %i with a body claiming another statusCode: an IdentityError of the HTTP status, the body’s type and text',
    async (status, body) => {
      const service = await serve((_request, response) => json(response, status, body))
      const error = await createClient({ baseUrl: service.origin, apiKey: API_KEY })
        .getVaults()
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(IdentityError)
      expect((error as IdentityError).toJSON()).toEqual({ statusCode: status, errorType: body.errorType, errorMessage: body.errorMessage })
    },
  )
})

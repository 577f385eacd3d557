/**
 * An on-chain network's rpcUrl may carry a provider key (Infura `/v3/<key>`, Alchemy `/v2/<key>`):
 * callers name the network by its public apiUrl, responses never show the rpcUrl, and a failing
 * chain reaches the operator's onError instead of vanishing into a generic item error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorInfo } from '../../src/operations/runtime.js'
import { startHarness, type Harness } from '../helpers/harness.js'

const SECRET = 'SECRET-PROVIDER-KEY-123'
const errors: Array<[string, unknown, ErrorInfo | undefined]> = []
let h: Harness

beforeAll(async () => {
  h = await startHarness({
    service: {
      // port 9 (discard): nothing answers, so every chain call fails
      networks: [
        {
          name: 'chain',
          chainId: 1337,
          rpcUrl: `http://127.0.0.1:9/v3/${SECRET}?token=${SECRET}`,
          registry: '0xdca7ef03e98e0dc2b855be647c39abe984fcf21b',
        },
      ],
      onError: (operation, error, info) => errors.push([operation, error, info]),
    },
  })
})
afterAll(() => h.close())

describe('rpcUrl secrecy', () => {
  it('the public apiUrl is the origin; the rpcUrl with its key appears in no response', async () => {
    expect(h.service.config.apiUrls).toEqual(['http://127.0.0.1:9'])
    const res = await h.request('POST', '/wallet', {
      json: {
        walletConfig: {
          apiUrl: 'http://127.0.0.1:9',
          txsInput: [{ service: { name: 'S', value: 'https://s.example.com', validity: 60_000 } }],
        },
      },
    })
    expect(res.status).toBe(200)
    expect(JSON.stringify(res.body)).not.toContain(SECRET)
    expect(res.body.wallet.registry.apiUrl).toBe('http://127.0.0.1:9')
    expect(res.body.wallet.registry.errors[0].error).toMatchObject({ statusCode: 500, errorType: 'INTERNAL_ERROR' })
    // Logged under the operation's table name, with the failed part and the request's id.
    const [, , info] = errors.find(([op]) => op === 'generateWallet')!
    expect(info).toEqual({ requestId: expect.any(String), item: 'apply walletConfig' })
  })

  it('naming the rpcUrl itself (with its key) is not a way in', async () => {
    const res = await h.request('POST', '/wallet', { json: { walletConfig: { apiUrl: `http://127.0.0.1:9/v3/${SECRET}` } } })
    expect(res.status).toBe(422)
    expect(JSON.stringify(res.body)).not.toContain(SECRET)
  })
})

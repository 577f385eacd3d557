/**
 * Token Status List entries are allocated as Bitstring ones, unique across processes (issue 31 §3): two services on one
 * PostgreSQL database (a real server) issue SD-JWT VCs with status for the same issuer at once, in lists of 8 entries —
 * no index is given twice in a list, and full lists roll over to new ones.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { IdentityService, randomMasterKey, staticTenants } from '../../../src/index.js'
import { createPostgresStorage } from '../../../src/storage/postgres/index.js'
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres.js'

const API_KEY = 'tsl-postgres-api-key-0123456789'
const authorization = `Bearer ${API_KEY}`
const SIZE = 8
const PER_SERVICE = 12

let server: TestPostgres
const services: IdentityService[] = []

beforeAll(async () => {
  server = await startTestPostgres('tsl-allocation')
  const masterKey = randomMasterKey()
  for (let i = 0; i < 2; i++) {
    const storage = await createPostgresStorage({ connectionString: server.url, schema: server.schema })
    services.push(
      await IdentityService.create({
        storage,
        masterKey,
        tenants: staticTenants({ [API_KEY]: 'tenant-a' }),
        publicUrl: 'https://status.example.com',
        statusListSize: SIZE,
        statusPublishIntervalMs: 60_000,
      }),
    )
  }
}, 120_000)
afterAll(async () => {
  for (const service of services) await service.close()
  await server?.stop()
})

it('two services allocate unique indexes in the same issuer’s lists, rolling over when full', async () => {
  const { wallet } = await services[0].as({ authorization }).generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })
  const issue = async (service: IdentityService) => {
    const jwt = (await service.as({ authorization }).generateToken({ iss: wallet.did })).jwt
    const as = service.as({ authorization, didAuth: jwt })
    const out: Array<{ idx: number; uri: string }> = []
    for (let n = 0; n < PER_SERVICE; n++) {
      const { vcs } = await as.signClaims({
        iss: wallet.did,
        format: 'SD-JWT',
        sub: wallet.did,
        status: { purposes: ['revocation'] },
        claims: [{ vct: 'Identity', payload: { n } }],
      })
      const payload = JSON.parse(Buffer.from((vcs[0] as { sdjwt: string }).sdjwt.split('.')[1], 'base64url').toString()) as {
        status: { status_list: { idx: number; uri: string } }
      }
      out.push(payload.status.status_list)
    }
    return out
  }
  const all = (await Promise.all(services.map(issue))).flat()
  expect(all).toHaveLength(2 * PER_SERVICE)
  const keys = all.map(({ uri, idx }) => `${uri}#${idx}`)
  expect(new Set(keys).size).toBe(keys.length)
  for (const { idx } of all) expect(idx >= 0 && idx < SIZE).toBe(true)
  const perList = new Map<string, number>()
  for (const { uri } of all) perList.set(uri, (perList.get(uri) ?? 0) + 1)
  expect(perList.size).toBeGreaterThanOrEqual(Math.ceil((2 * PER_SERVICE) / SIZE))
  for (const count of perList.values()) expect(count).toBeLessThanOrEqual(SIZE)
}, 120_000)

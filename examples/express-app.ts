/**
 * An existing Express app that mounts didvault's routes under `/identity`.
 * Run: node --import tsx examples/express-app.ts   (PORT=0 picks a free port)
 *
 * In your project the imports are `from 'didvault'` and `from 'didvault/express'`
 * (and `createSqliteStorage` from `'didvault/sqlite'` to keep data across restarts).
 */
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { IdentityService, createMemoryStorage, randomMasterKey, staticTenants } from '../src/index.js'
import { createRouter } from '../src/http/index.js'

const apiKey = process.env.IDENTITY_API_KEY ?? `dev_${randomBytes(24).toString('base64url')}`
const service = await IdentityService.create({
  storage: createMemoryStorage(),
  masterKey: process.env.DIDVAULT_MASTER_KEY ?? randomMasterKey(),
  tenants: staticTenants({ [apiKey]: 'my-app' }),
})

const app = express()
app.get('/health', (_req, res) => {
  res.json({ status: 'ok' })
})
app.use('/identity', createRouter(service))

const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address() as AddressInfo
  console.log(`listening on http://${address}:${port} (didvault routes under /identity)`)
  if (!process.env.IDENTITY_API_KEY) console.log(`development API key (set IDENTITY_API_KEY to choose one): ${apiKey}`)
})

const shutdown = () => server.close(() => void service.close().then(() => process.exit(0)))
process.once('SIGTERM', shutdown)
process.once('SIGINT', shutdown)

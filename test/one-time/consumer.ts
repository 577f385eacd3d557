/**
 * A second process for the one-time tests (run with tsx): opens a service on the database named
 * by argv (`sqlite <path>` or `postgres <url> <schema>`) with `DIDVAULT_TEST_MASTER_KEY`, prints
 * `ready` (its clock stands at `DIDVAULT_TEST_NOW`, the parent's), waits for the file `<go>`, then consumes every value of `<values.json>` and remembers
 * every jti of it, all at once, and prints what it got as one JSON line.
 */
import { existsSync, readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { IdentityService } from '../../src/service/identity-service.js'
import { staticTenants } from '../../src/auth/tenants.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { createPostgresStorage } from '../../src/storage/postgres/index.js'

const [kind, ...rest] = process.argv.slice(2)
const [go, valuesFile] = rest.slice(-2)
const storage =
  kind === 'sqlite' ? createSqliteStorage({ path: rest[0] }) : await createPostgresStorage({ connectionString: rest[0], schema: rest[1] })
const now = Number(process.env.DIDVAULT_TEST_NOW)
const masterKey = process.env.DIDVAULT_TEST_MASTER_KEY!
const service = await IdentityService.create({ storage, masterKey, tenants: staticTenants({}), audit: false, now: () => now })
const { tenantId, codes, jtis } = JSON.parse(readFileSync(valuesFile, 'utf8')) as { tenantId: string; codes: string[]; jtis: string[] }
console.log('ready')
while (!existsSync(go)) await sleep(2)
const [consumed, remembered] = await Promise.all([
  Promise.all(codes.map(async (code) => ((await service.oneTime.consume(tenantId, 'pre-auth-code', code)) ? code : undefined))),
  Promise.all(jtis.map(async (jti) => ((await service.oneTime.remember(tenantId, 'dpop-jti', jti, 60_000)) ? jti : undefined))),
])
console.log(JSON.stringify({ consumed: consumed.filter(Boolean), remembered: remembered.filter(Boolean) }))
await service.close()

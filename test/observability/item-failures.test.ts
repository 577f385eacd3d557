/**
 * Failed items of a 200 answer, through `didvault serve` (the built CLI, a real child process, a
 * real SQLite file): the fault is injected in the database itself — a trigger that refuses one
 * write, as a failing disk or a constraint would —, the answer keeps the spec's batch shape, and
 * the operator sees the failure: an error record naming the operation as the request record does,
 * with the request's id and the cause, and `didvault_batch_item_failures_total` counting every
 * failed item by operation, error type and status. A whole request's 500 names its operation the
 * same way in both of its records.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest'
import { CLI, ensureBuilt } from '../helpers/build.js'
import { http, killAll, spawnNode, type Spawned } from '../helpers/spawn.js'

const KEY = 'key-acme-123456789'
const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)/
const REFUSED_ALIAS = 'refused by the disk'
const CAUSE = 'injected fault: the disk refused this write'

beforeAll(ensureBuilt, 180_000)
let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-items-'))
})
afterEach(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

/** The JSON records of the process's stdout and stderr. */
const records = (proc: Spawned) =>
  [...proc.stdout().split('\n'), ...proc.stderr().split('\n')]
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)

/** The first record matching `match`, once written (lines are written asynchronously). */
async function recordOf(proc: Spawned, match: (r: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++, await sleep(50)) {
    const found = records(proc).find(match)
    if (found) return found
  }
  throw new Error(`no such record in\n${proc.stdout()}\n${proc.stderr()}`)
}

it('a batch item failing inside: 200 with its error item; an error record with operation, request id and cause; counted by operation and error type', async () => {
  const db = join(dir, 'x.db')
  const proc = spawnNode([CLI, 'serve', '--port', '0', '--storage', `sqlite:${db}`], {
    cwd: dir,
    env: { DIDVAULT_API_KEYS: `acme:${KEY}` },
  })
  const [, url] = await proc.waitFor(LISTENING, 60_000)
  const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
    http(`${url}${path}`, { method: 'POST', token: KEY, json, headers })
  const wallets = [(await post('/wallet', {})).body.wallet, (await post('/wallet', {})).body.wallet] as Array<{ did: string }>
  const tokens = await Promise.all(wallets.map(async ({ did }) => (await post('/did-auth-jwt', { iss: did })).body.jwt as string))

  // The fault: the database refuses any wallet write giving this alias.
  const sqlite = new Database(db)
  sqlite.exec(
    `CREATE TRIGGER refuse_alias_update BEFORE UPDATE ON wallets WHEN json_extract(NEW.data, '$.alias') = '${REFUSED_ALIAS}' ` +
      `BEGIN SELECT RAISE(ABORT, '${CAUSE}'); END;` +
      `CREATE TRIGGER refuse_alias_insert BEFORE INSERT ON wallets WHEN json_extract(NEW.data, '$.alias') = '${REFUSED_ALIAS}' ` +
      `BEGIN SELECT RAISE(ABORT, '${CAUSE}'); END;`,
  )
  sqlite.close()

  const unknown = `did:ethr:dev:0x${'ab'.repeat(20)}`
  const items = [
    { did: wallets[0].did, alias: REFUSED_ALIAS },
    { did: wallets[1].did, alias: 'renamed' },
    { did: unknown, alias: 'nobody' },
  ]
  const renamed = await post('/wallet/rename', { wallets: items }, { 'x-did-auth': tokens.join(','), 'x-request-id': 'batch-with-a-fault' })
  // The spec's batch shape: a 200, the item done, the others in `errors`.
  expect(renamed.status).toBe(200)
  expect(renamed.body.wallets.map((w: { alias: string }) => w.alias)).toEqual(['renamed'])
  expect(renamed.body.errors).toEqual([
    { wallet: items[0], error: { statusCode: 500, errorType: 'INTERNAL_ERROR', errorMessage: 'rename wallet failed' } },
    { wallet: items[2], error: expect.objectContaining({ statusCode: 422, errorType: 'NOT_FOUND' }) },
  ])
  expect(JSON.stringify(renamed.body)).not.toContain('injected')

  // The error record: like a whole request's 500, with the request's id, the operation's table name and the cause.
  const failure = await recordOf(proc, (r) => r.level === 50 && r.requestId === 'batch-with-a-fault')
  expect(failure).toMatchObject({
    operation: 'renameWallets',
    item: 'rename wallet',
    msg: 'didvault: renameWallets: an item failed (rename wallet)',
  })
  expect(failure.err).toContain(CAUSE)
  const request = await recordOf(proc, (r) => r.msg === 'request' && r.requestId === 'batch-with-a-fault')
  expect(request).toMatchObject({ operation: 'renameWallets', status: 200 })

  // Counted: every failed item, by operation, error type and status.
  const scrape = (await http(`${url}/metrics`)).body as string
  expect(scrape).toContain('didvault_batch_item_failures_total{operation="renameWallets",errorType="INTERNAL_ERROR",status="500"} 1')
  expect(scrape).toContain('didvault_batch_item_failures_total{operation="renameWallets",errorType="NOT_FOUND",status="422"} 1')

  // A whole request's 500: its request record and its error record name the operation alike.
  const refused = await post('/wallet', { wallet: { alias: REFUSED_ALIAS } }, { 'x-request-id': 'whole-request-fault' })
  expect(refused.body).toEqual({ statusCode: 500, errorType: 'INTERNAL_ERROR', errorMessage: 'Generate Identity Wallet failed' })
  const error = await recordOf(proc, (r) => r.level === 50 && r.requestId === 'whole-request-fault' && r.msg !== 'request')
  expect(error).toMatchObject({ operation: 'generateWallet', msg: 'didvault: generateWallet failed' })
  expect(error.err).toContain(CAUSE)
  expect(await recordOf(proc, (r) => r.msg === 'request' && r.requestId === 'whole-request-fault')).toMatchObject({
    operation: 'generateWallet',
    status: 500,
  })
}, 60_000)

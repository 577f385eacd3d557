/**
 * Issue 20, status lists through the service on one storage adapter:
 *
 * - changes: `changeStatus` (the embedded API) in batches of 100 items, each an entry of a
 *   suspension list flipped (suspension toggles, so the batches can go on forever; every item is
 *   a real change: entry, list version and change record written, the list's signature scheduled
 *   at the default 1 s interval) → items/s; the same for SD-JWT VCs' Token Status List entries (suspended, 2, and
 *   back, 0), as for Bitstring lists (issue 31);
 * - publishing a changed 131,072-entry list, per format (JWT, JSON-LD; 1,000 entries allocated,
 *   500 set): one entry flipped (not timed), then `publishStatusLists()` timed — read the set
 *   entries, encode (GZIP + multibase), sign, store — p50.
 */
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { IdentityService, randomMasterKey, staticTenants, type StorageAdapter } from '../src/index.js'
import { CREDENTIALS_V2_URL } from '../src/proofs/jsonld/index.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { collectionOf } from '../src/storage/declaration.js'
import { STATUS_LISTS } from '../src/status/records.js'
import { measure, summarize, type MeasureOptions, type Measurement } from './measure.js'

const API_KEY = 'bench-status-api-key-0123456789'
const PUBLIC_URL = 'https://status.example.com'
const BATCH = 100
/** Credentials issued with a suspension entry for the changes: 10 batches, then the same again with the other value. */
const ENTRIES = 1_000

type As = ReturnType<IdentityService['as']>
type Entry = { statusListCredential: string; statusListIndex: string }

export interface StatusResults {
  changeBatch100: Measurement
  changesPerSec: number
  /** Token Status List entries (SD-JWT VCs), the same batches. */
  tokenChangeBatch100: Measurement
  tokenChangesPerSec: number
  publish: { JWT: Measurement; 'JSON-LD': Measurement }
}

/** The suspension entries of `count` credentials issued by `iss` in `format`. */
async function issueWithStatus(as: As, iss: string, format: 'JWT' | 'JSON-LD', count: number): Promise<Entry[]> {
  const out: Entry[] = []
  for (let done = 0; done < count; done += BATCH) {
    const claims = Array.from({ length: Math.min(BATCH, count - done) }, (_, i) => ({ payload: { n: done + i } }))
    const { vcs } = await as.signClaims({
      iss,
      format,
      ...(format === 'JSON-LD' ? { context: CREDENTIALS_V2_URL } : {}),
      status: { purposes: ['suspension'] },
      claims,
    })
    for (const vc of vcs as Array<{ jwt?: string; jsonld?: { credentialStatus: Entry } }>) {
      const status = vc.jwt !== undefined ? statusOfJwt(vc.jwt) : vc.jsonld!.credentialStatus
      out.push({ statusListCredential: status.statusListCredential, statusListIndex: status.statusListIndex })
    }
  }
  return out
}

/** The Token Status List entries (suspension) of `count` SD-JWT VCs issued by `iss`, named as `POST /claims/status` takes them. */
async function issueSdJwtWithStatus(as: As, iss: string, count: number): Promise<Entry[]> {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const { x, y } = publicKey.export({ format: 'jwk' }) as { x: string; y: string }
  const holderJwk = { kty: 'EC' as const, crv: 'P-256' as const, x, y }
  const out: Entry[] = []
  for (let done = 0; done < count; done += BATCH) {
    const claims = Array.from({ length: Math.min(BATCH, count - done) }, (_, i) => ({
      vct: 'https://bench.example.com/member',
      payload: { n: done + i },
      holderJwk,
    }))
    const { vcs } = await as.signClaims({ iss, format: 'SD-JWT', status: { purposes: ['suspension'] }, claims })
    for (const vc of vcs as Array<{ sdjwt: string }>) {
      const payload = JSON.parse(Buffer.from(vc.sdjwt.split('~')[0].split('.')[1], 'base64url').toString()) as {
        status: { status_list: { idx: number; uri: string } }
      }
      out.push({ statusListCredential: payload.status.status_list.uri, statusListIndex: String(payload.status.status_list.idx) })
    }
  }
  return out
}

const statusOfJwt = (jwt: string) =>
  (JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as { vc: { credentialStatus: Entry } }).vc.credentialStatus

/** Sets `entries` to `value` in one `changeStatus` call; throws unless every item changed its entry. */
async function change(as: As, entries: Entry[], value: boolean): Promise<void> {
  const out = await as.changeStatus({ items: entries.map((e) => ({ ...e, purpose: 'suspension' as const, value })) })
  if (out.errors.length > 0 || out.items.some((i) => !i.entries.every((e) => e.changed)))
    throw new Error(`bench: status change failed: ${JSON.stringify(out.errors[0] ?? out.items[0])}`)
}

/** Times `publish` after each (untimed) `before`: a warm-up, then for `durationMs`. */
async function measureAfter(label: string, before: () => Promise<void>, publish: () => Promise<void>, options: MeasureOptions) {
  const run = async (ms: number, durations: number[]) => {
    for (const end = performance.now() + ms; performance.now() < end;) {
      await before()
      const t = performance.now()
      await publish()
      durations.push(performance.now() - t)
    }
  }
  await run(options.warmupMs, [])
  const durations: number[] = []
  await run(options.durationMs, durations)
  return summarize(label, durations)
}

/**
 * Publication of a changed list of `format`: a new issuer's list with {@link ENTRIES} entries, every
 * other one set; then one entry flipped (not timed) and `publishStatusLists()` timed, each time
 * checked to have stored a new signed list.
 */
async function measurePublish(
  service: IdentityService,
  storage: StorageAdapter,
  label: string,
  format: 'JWT' | 'JSON-LD',
  options: MeasureOptions,
) {
  const authorization = `Bearer ${API_KEY}`
  const { wallet } = await service.as({ authorization }).generateWallet({})
  const as = service.as({ authorization, didAuth: (await service.as({ authorization }).generateToken({ iss: wallet.did })).jwt })
  const entries = await issueWithStatus(as, wallet.did, format, ENTRIES)
  for (let i = 0; i < ENTRIES; i += BATCH)
    await change(
      as,
      entries.slice(i, i + BATCH).filter((_, j) => j % 2 === 0),
      true,
    )
  await service.publishStatusLists()
  const listId = entries[0].statusListCredential.split('/').pop()!
  const entry = entries[1]
  let value = false
  let etag: string | undefined
  return measureAfter(
    `${label}: publish a changed ${format} list (131,072)`,
    async () => {
      const published = (await collectionOf(storage, STATUS_LISTS).get(listId))?.etag
      if (published === etag) throw new Error(`bench: the ${format} list was not signed again`)
      etag = published
      await change(as, [entry], (value = !value))
    },
    () => service.publishStatusLists(),
    options,
  )
}

export async function benchStatus(label: string, storage: StorageAdapter, options: MeasureOptions): Promise<StatusResults> {
  const authorization = `Bearer ${API_KEY}`
  // Changes: the default publication interval (lists are signed in the background as they would be).
  const service = await IdentityService.create({
    storage,
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [API_KEY]: 'bench-status' }),
    publicUrl: PUBLIC_URL,
  })
  try {
    const { wallet } = await service.as({ authorization }).generateWallet({})
    const as = service.as({ authorization, didAuth: (await service.as({ authorization }).generateToken({ iss: wallet.did })).jwt })
    const entries = await issueWithStatus(as, wallet.did, 'JWT', ENTRIES)
    let batch = 0
    const changeBatch100 = await measure(
      {
        label: `${label}: status change, batch of ${BATCH}`,
        fn: () => {
          const start = (batch % (ENTRIES / BATCH)) * BATCH
          const value = Math.floor(batch / (ENTRIES / BATCH)) % 2 === 0
          batch++
          return change(as, entries.slice(start, start + BATCH), value)
        },
      },
      options,
    )
    const sdJwtEntries = await issueSdJwtWithStatus(as, wallet.did, ENTRIES)
    let tokenBatch = 0
    const tokenChangeBatch100 = await measure(
      {
        label: `${label}: Token Status List change, batch of ${BATCH}`,
        fn: () => {
          const start = (tokenBatch % (ENTRIES / BATCH)) * BATCH
          const value = Math.floor(tokenBatch / (ENTRIES / BATCH)) % 2 === 0
          tokenBatch++
          return change(as, sdJwtEntries.slice(start, start + BATCH), value)
        },
      },
      options,
    )
    const publish = {
      JWT: await measurePublish(service, storage, label, 'JWT', options),
      'JSON-LD': await measurePublish(service, storage, label, 'JSON-LD', options),
    }
    return {
      changeBatch100,
      changesPerSec: Number((changeBatch100.opsPerSec * BATCH).toFixed(1)),
      tokenChangeBatch100,
      tokenChangesPerSec: Number((tokenChangeBatch100.opsPerSec * BATCH).toFixed(1)),
      publish,
    }
  } finally {
    await service.close()
  }
}

/** {@link benchStatus} on a SQLite file of its own. */
export async function benchStatusSqlite(options: MeasureOptions): Promise<StatusResults> {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-status-'))
  try {
    return await benchStatus('sqlite', createSqliteStorage({ path: join(dir, 'status.db') }), options)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The issues' targets: ≥ 1,000 changes/s in batches of 100, of Bitstring and (issue 31: as for Bitstring lists) Token
 * Status List entries; publishing a changed list ≤ 50 ms p50, each format.
 */
export function statusTargets(results: StatusResults, storage = 'sqlite') {
  const changes = results.changesPerSec
  const tokenChanges = results.tokenChangesPerSec
  return [
    { name: 'statusChangesPerSecBatchesOf100', storage, min: 1_000, actual: changes, pass: changes >= 1_000 },
    { name: 'tokenStatusChangesPerSecBatchesOf100', storage, min: 1_000, actual: tokenChanges, pass: tokenChanges >= 1_000 },
    ...(['JWT', 'JSON-LD'] as const).map((format) => {
      const actual = results.publish[format].p50Ms
      return { name: `statusListPublishP50Ms:${format}`, storage, max: 50, actual, pass: actual <= 50 }
    }),
  ]
}

// Standalone: `node --import tsx bench/status.ts` (SQLite in a temporary directory), with the run's measurement options.
if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await benchStatusSqlite({ warmupMs: 500, durationMs: 2_000 })
  const targets = statusTargets(results)
  process.stdout.write(`${JSON.stringify({ ...results, targets, allTargetsPass: targets.every((t) => t.pass) }, null, 2)}\n`)
}

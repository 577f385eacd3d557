/**
 * Stored credentials on one storage adapter, through the service (`storeClaims`, `getClaims`):
 *
 * - store: batches of 1,000 VC-JWTs (parsed and indexed, not verified), against the floor of
 *   the adapter's own batched insert of the same records (`insertMany` of 1,000, one transaction);
 * - fetch by issuer (10 rows) with access filtering (the caller is the issuer: one ground of the
 *   access `or`), at 10k and 100k stored, against the adapter's raw indexed page (issuer = ?,
 *   limit 10, no access filter) measured interleaved.
 *
 * The credentials are synthetic VC-JWTs (a well-formed header and payload, a dummy signature):
 * Store does not check signatures unless asked, so signing 100k would only measure the signer.
 */
import { randomUUID } from 'node:crypto'
import { IdentityService, randomMasterKey, staticTenants, type StorageAdapter } from '../src/index.js'
import type { CredentialRecord } from '../src/credentials/records.js'
import { measurePair, type MeasureOptions, type Measurement } from './measure.js'

const API_KEY = 'bench-credentials-api-key-0123456789'
const TENANT = 'bench-credentials'
const BATCH = 1_000

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
const HEADER = b64({ alg: 'ES256K', typ: 'JWT' })
let serial = 0

/** A synthetic VC-JWT by `iss` (unique content). */
function vcJwt(iss: string): string {
  serial += 1
  const sub = `did:ethr:dev:0x${serial.toString(16).padStart(40, '0')}`
  const payload = {
    iss,
    sub,
    jti: `urn:uuid:${randomUUID()}`,
    nbf: 1_700_000_000,
    vc: { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], credentialSubject: { n: serial } },
  }
  return `${HEADER}.${b64(payload)}.c2ln`
}

export interface FetchFigures {
  stored: number
  fetchByIssuer: Measurement
  rawIndexedPage: Measurement
  ratio: number
}

export interface CredentialResults {
  storeBatch1000: Measurement
  storeRowsPerSec: number
  rawInsertBatch1000: Measurement
  rawInsertRowsPerSec: number
  storeVsRawInsert: number
  fetch: { at10k: FetchFigures; at100k: FetchFigures; latencyRatio100kVs10k: number }
}

const round = (n: number, digits: number) => Number(n.toFixed(digits))

export async function benchCredentials(label: string, storage: StorageAdapter, options: MeasureOptions): Promise<CredentialResults> {
  const service = await IdentityService.create({ storage, masterKey: randomMasterKey(), tenants: staticTenants({ [API_KEY]: TENANT }) })
  try {
    const authorization = `Bearer ${API_KEY}`
    const api = service.as({ authorization })
    const me = (await api.generateWallet({ wallet: { alias: 'issuer' } })).wallet
    const asMe = service.as({ authorization, didAuth: (await api.generateToken({ iss: me.did })).jwt })
    const others = Array.from({ length: 50 }, (_, i) => `did:ethr:dev:0x${(i + 1).toString(16).padStart(40, 'f')}`)
    const batchOf = (n: number, iss?: string) =>
      Array.from({ length: n }, (_, i) => ({ jwt: vcJwt(iss ?? others[(serial + i) % others.length]) }))

    const raw = storage.collection<CredentialRecord>('credentials')
    const rawRecords = (): CredentialRecord[] =>
      Array.from({ length: BATCH }, () => ({
        id: randomUUID(),
        tenantId: 'bench-raw',
        format: 'JWT',
        jwt: vcJwt(others[0]),
        issuer: others[0],
        subject: others[1],
        types: ['VerifiableCredential'],
        storedBy: [me.did],
        isPublicAccess: false,
        roles: [],
        hash: randomUUID(),
        createdAt: Date.now(),
      }))
    const [storeBatch1000, rawInsertBatch1000] = await measurePair(
      { label: `${label}: store 1,000 VC-JWTs (service)`, fn: () => asMe.storeClaims({ claims: batchOf(BATCH) }) },
      {
        label: `${label}: raw insertMany of 1,000 credential records`,
        fn: () => storage.transaction((tx) => tx.collection<CredentialRecord>('credentials').insertMany(rawRecords())),
      },
      options,
    )
    await raw.deleteMany({ field: 'tenantId', op: 'eq', value: 'bench-raw' })

    // Ten credentials by the caller; everything else by other issuers, not public.
    await asMe.storeClaims({ claims: batchOf(10, me.did) })
    const count = () => storage.collection('credentials').count({ field: 'tenantId', op: 'eq', value: TENANT })
    const fillTo = async (n: number) => {
      for (let have = await count(); have < n; have += BATCH) await asMe.storeClaims({ claims: batchOf(Math.min(BATCH, n - have)) })
    }
    const figures = async (): Promise<FetchFigures> => {
      const stored = await count()
      const [fetchByIssuer, rawIndexedPage] = await measurePair(
        {
          label: `${label}: fetch by issuer, 10 rows, access-filtered, ${stored} stored`,
          fn: async () => {
            if ((await asMe.getClaims({ issuer: me.did, limit: 10 })).vcs.length !== 10) throw new Error('bench: expected 10 rows')
          },
        },
        {
          label: `${label}: raw indexed page (issuer, 10 rows), ${stored} stored`,
          fn: () =>
            raw.find(
              {
                and: [
                  { field: 'tenantId', op: 'eq', value: TENANT },
                  { field: 'issuer', op: 'eq', value: me.did },
                ],
              },
              { limit: 10 },
            ),
        },
        options,
      )
      return { stored, fetchByIssuer, rawIndexedPage, ratio: round(fetchByIssuer.opsPerSec / rawIndexedPage.opsPerSec, 3) }
    }
    await fillTo(10_000)
    const at10k = await figures()
    await fillTo(100_000)
    const at100k = await figures()
    return {
      storeBatch1000,
      storeRowsPerSec: round(storeBatch1000.opsPerSec * BATCH, 0),
      rawInsertBatch1000,
      rawInsertRowsPerSec: round(rawInsertBatch1000.opsPerSec * BATCH, 0),
      storeVsRawInsert: round(storeBatch1000.opsPerSec / rawInsertBatch1000.opsPerSec, 3),
      fetch: { at10k, at100k, latencyRatio100kVs10k: round(at100k.fetchByIssuer.p50Ms / at10k.fetchByIssuer.p50Ms, 2) },
    }
  } finally {
    await service.close()
  }
}

// Standalone: `node --import tsx bench/credentials.ts` (SQLite in a temporary directory).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const { createSqliteStorage } = await import('../src/storage/sqlite/index.js')
  const dir = mkdtempSync(join(tmpdir(), 'didvault-bench-credentials-'))
  try {
    const results = await benchCredentials('sqlite', createSqliteStorage({ path: join(dir, 'credentials.db') }), {
      warmupMs: 200,
      durationMs: 1_000,
    })
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

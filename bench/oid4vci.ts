/**
 * `npm run bench -- --only oid4vci` (issue 33): pre-authorized issuance of one SD-JWT VC over loopback HTTP — the token
 * request (form), the nonce request and the credential request with one key proof — against the embedded router with
 * the OID4VCI module on a SQLite file and on PostgreSQL, and against a floor Express app on loopback answering the same
 * three requests with no storage (it verifies the key proof with jose and signs with @sd-jwt/sd-jwt-vc), interleaved in
 * chunks. Offers are made, and fetched by reference, before the timed part (the wallet caches the metadata: the
 * endpoints are fixed). Reports issuances/s, served ÷ floor (target ≥ 0.5), the storage's sync mode, and a batch of 10
 * proofs in one credential request. Skipped, saying why, while the table lacks the flow's operations.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { ES256, digest } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import express from 'express'
import * as jose from 'jose'
import pg from 'pg'
import { IdentityService, randomMasterKey, staticTenants } from '../src/index.js'
import { createRouter } from '../src/http/router.js'
import { oid4vci } from '../src/oid4vc.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { createPostgresStorage } from '../src/storage/postgres/index.js'
import type { StorageAdapter } from '../src/storage/port.js'
import { startTestPostgres } from '../test/helpers/postgres.js'
import { summarize, type Measurement } from './measure.js'

const TOKEN = 'bench-oid4vci-tenant-token'
const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'
const VCT = 'https://credentials.example.com/identity'
const CLAIMS = { given_name: 'Erika', family_name: 'Mustermann', birthdate: '1964-08-12' }
/** Issuances per target (and as many for the floor), in interleaved chunks. */
const ISSUANCES = Number(process.env.DIDVAULT_BENCH_OID4VCI_N) || 300
const CHUNK = 10
const BATCH = 10

/** The served issuer's public URL (its identifiers); the requests go to its loopback origin. */
const SERVED_PUBLIC_URL = 'https://issuer.bench.example'

export interface Oid4vciTargetResults {
  storage: string
  /** SQLite `synchronous`, or PostgreSQL's `fsync` and `synchronous_commit`. */
  syncMode: string
  issuance: Measurement
  floor: Measurement
  /** served ÷ floor (issuances/s). */
  ratio: number
  batch: { issuance: Measurement; floor: Measurement; ratio: number }
  /** PostgreSQL: whether the read cache answered (docs/storage.md *Read cache*), and its hits and misses over the run. */
  readCache?: { live: boolean; hits: number; misses: number }
}

export interface Oid4vciBenchResults {
  sqlite: Oid4vciTargetResults
  postgres: Oid4vciTargetResults
}

/**
 * An issuer: its Credential Issuer Identifier (an https URL: the library checks proofs' `aud` is one), where its
 * endpoints answer on loopback HTTP, and a pre-authorized code per issuance to come.
 */
interface Target {
  credentialIssuer: string
  endpoint: string
  codes: string[]
  close(): Promise<void>
}

/** A holder key and the wallet's three requests (token, nonce, credential with `proofs` key proofs). */
export async function redeem(endpoint: string, credentialIssuer: string, code: string, proofs: number): Promise<void> {
  const token = await post(`${endpoint}/token`, new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': code }))
  const { c_nonce: nonce } = await post(`${endpoint}/nonce`)
  const jwts = await Promise.all(
    Array.from({ length: proofs }, async () => {
      const { publicKey, privateKey } = await jose.generateKeyPair('ES256')
      return new jose.SignJWT({ aud: credentialIssuer, nonce, iat: Math.floor(Date.now() / 1000) })
        .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: await jose.exportJWK(publicKey) })
        .sign(privateKey)
    }),
  )
  const body = { credential_configuration_id: proofs > 1 ? 'IdentityBatch' : 'Identity', proofs: { jwt: jwts } }
  const answer = await post(`${endpoint}/credential`, body, `${token.token_type} ${token.access_token}`)
  if (!Array.isArray(answer.credentials) || answer.credentials.length !== proofs)
    throw new Error(`bench: credential answer ${JSON.stringify(answer)}`)
}

async function post(url: string, body?: URLSearchParams | object, authorization?: string): Promise<any> {
  const form = body instanceof URLSearchParams
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      ...(body !== undefined && { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' }),
      ...(authorization && { authorization }),
    },
    body: body === undefined ? undefined : form ? body.toString() : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`bench: ${url} answered ${res.status}: ${text}`)
  return JSON.parse(text)
}

async function listening(): Promise<{ server: Server; origin: string }> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()))

/** The embedded router with the OID4VCI module on `storage`; `count` offers made and fetched by reference beforehand. */
async function servedTarget(storage: StorageAdapter, count: number): Promise<Target> {
  const { server, origin } = await listening()
  const service = await IdentityService.create({
    storage,
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [TOKEN]: 'bench' }),
    publicUrl: SERVED_PUBLIC_URL,
    oid4vci: oid4vci(),
  })
  const app = express()
  app.use(createRouter(service))
  server.on('request', app)
  const api = service.as({ authorization: `Bearer ${TOKEN}` })
  const { wallet } = await api.generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })
  const { jwt } = await api.generateToken({ iss: wallet.did })
  const issuing = service.as({ authorization: `Bearer ${TOKEN}`, didAuth: jwt })
  const base = { issuer: 'bench', format: 'dc+sd-jwt', vct: VCT, issuingDid: wallet.did } as const
  await issuing.createCredentialConfiguration({ id: 'Identity', ...base })
  await issuing.createCredentialConfiguration({ id: 'IdentityBatch', ...base, batchSize: BATCH })
  const operations = issuing as unknown as Record<string, (input: unknown) => Promise<{ credentialOfferUri: string }>>
  const codes: string[] = []
  for (let i = 0; i < count; i++) {
    const id = i < count - 2 * CHUNK ? 'Identity' : 'IdentityBatch'
    const offer = await operations.createCredentialOffer({ configurations: [{ id, claims: CLAIMS }] })
    const document = (await (await fetch(offer.credentialOfferUri.replace(SERVED_PUBLIC_URL, origin))).json()) as {
      grants: Record<string, Record<string, string>>
    }
    codes.push(document.grants[PRE_AUTH]['pre-authorized_code'])
  }
  return {
    credentialIssuer: `${SERVED_PUBLIC_URL}/oid4vci/bench`,
    endpoint: `${origin}/oid4vci/bench`,
    codes,
    close: async () => {
      await closeServer(server)
      await service.close()
    },
  }
}

/** The floor: the same three requests on Express, stateless (a token and a nonce are random; nothing is checked against storage). */
export async function floorTarget(count: number): Promise<Target> {
  const { server, origin } = await listening()
  const credentialIssuer = 'https://floor.bench.example/oid4vci/floor'
  const { privateKey } = await ES256.generateKeyPair()
  const sdjwt = new SDJwtVcInstance({
    hasher: digest,
    signer: await ES256.getSigner(privateKey),
    signAlg: 'ES256',
    saltGenerator: () => randomBytes(16).toString('base64url'),
  })
  const app = express()
  app.post('/oid4vci/floor/token', express.urlencoded({ extended: false }), (_req, res) => {
    res.json({ access_token: randomBytes(32).toString('base64url'), token_type: 'Bearer', expires_in: 300 })
  })
  app.post('/oid4vci/floor/nonce', (_req, res) => res.json({ c_nonce: randomBytes(32).toString('base64url') }))
  app.post('/oid4vci/floor/credential', express.json(), async (req, res) => {
    const credentials = []
    for (const proof of req.body.proofs.jwt as string[]) {
      const header = jose.decodeProtectedHeader(proof)
      await jose.jwtVerify(proof, await jose.importJWK(header.jwk!, 'ES256'), { audience: credentialIssuer, typ: 'openid4vci-proof+jwt' })
      const credential = await sdjwt.issue(
        { iss: credentialIssuer, iat: Math.floor(Date.now() / 1000), vct: VCT, cnf: { jwk: header.jwk }, ...CLAIMS },
        { _sd: Object.keys(CLAIMS) as never },
      )
      credentials.push({ credential })
    }
    res.json({ credentials })
  })
  server.on('request', app)
  return {
    credentialIssuer,
    endpoint: `${origin}/oid4vci/floor`,
    codes: Array.from({ length: count }, () => randomUUID()),
    close: () => closeServer(server),
  }
}

/** `served` and `floor` in alternating chunks of {@link CHUNK}, `proofs` key proofs per issuance. */
async function interleaved(label: string, served: Target, floor: Target, count: number, proofs: number) {
  const durations: [number[], number[]] = [[], []]
  for (let done = 0; done < count; done += CHUNK) {
    for (const [i, target] of [served, floor].entries()) {
      for (const code of target.codes.splice(0, Math.min(CHUNK, count - done))) {
        const t = performance.now()
        await redeem(target.endpoint, target.credentialIssuer, code, proofs)
        durations[i].push(performance.now() - t)
      }
    }
  }
  const issuance = summarize(`oid4vci ${label}`, durations[0])
  const floorMeasure = summarize(`oid4vci ${label} floor`, durations[1])
  return { issuance, floor: floorMeasure, ratio: Number((issuance.opsPerSec / floorMeasure.opsPerSec).toFixed(3)) }
}

async function benchTarget(
  storage: string,
  adapter: StorageAdapter,
  syncMode: string,
  described: () => Partial<Oid4vciTargetResults> = () => ({}),
): Promise<Oid4vciTargetResults> {
  // Warm-up issuances, the timed ones, and a batch part of 2 chunks.
  const warmup = CHUNK
  const served = await servedTarget(adapter, warmup + ISSUANCES + 2 * CHUNK)
  const floor = await floorTarget(warmup + ISSUANCES + 2 * CHUNK)
  try {
    await interleaved(`${storage} warm-up`, served, floor, warmup, 1)
    const single = await interleaved(storage, served, floor, ISSUANCES, 1)
    const batch = await interleaved(`${storage} batch of ${BATCH}`, served, floor, 2 * CHUNK, BATCH)
    return { storage, syncMode, ...single, batch, ...described() }
  } finally {
    await served.close()
    await floor.close()
  }
}

/** The section: SQLite and PostgreSQL. */
export async function benchOid4vci(): Promise<Oid4vciBenchResults> {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-oid4vci-'))
  const postgres = await startTestPostgres('bench oid4vci', (line) => process.stderr.write(`${line}\n`))
  try {
    const sqlite = await benchTarget('sqlite', createSqliteStorage({ path: join(dir, 'oid4vci.db') }), 'synchronous=FULL (the default)')
    const client = new pg.Client({ connectionString: postgres.url })
    await client.connect()
    const setting = async (name: string) => (await client.query<{ v: string }>(`SELECT current_setting('${name}') AS v`)).rows[0].v
    const syncMode = `fsync=${await setting('fsync')}, synchronous_commit=${await setting('synchronous_commit')} (${postgres.server})`
    await client.end()
    const pgStorage = await createPostgresStorage({ connectionString: postgres.url, schema: postgres.schema })
    const readCache = () => ({ readCache: { live: pgStorage.readCacheLive, ...pgStorage.readCacheStats } })
    return { sqlite, postgres: await benchTarget('postgres', pgStorage, syncMode, readCache) }
  } finally {
    await postgres.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

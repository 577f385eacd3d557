/**
 * `npm run bench -- --only oid4vp` (issue 34): a wallet's answer to a one-credential SD-JWT VC request over loopback
 * HTTP — the POST to the `response_uri` (`direct_post`: a form with `vp_token`; `direct_post.jwt`: the same encrypted to
 * the request's key) — against the embedded router with the OID4VP module on a SQLite file, ÷ `POST /presentations/
 * verify` of the same router on presentations made the same way (the same credential, a fresh KB-JWT each), interleaved
 * in chunks. Requests and presentations are made before the timed part; only the POSTs are timed. Reports responses
 * verified per second and the ratio (target ≥ 0.7 for `direct_post`; `direct_post.jwt` reported).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { digest, ES256 } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import express from 'express'
import * as jose from 'jose'
import { IdentityService, randomMasterKey, staticTenants } from '../src/index.js'
import { createRouter } from '../src/http/router.js'
import { oid4vp } from '../src/oid4vc.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { summarize, type Measurement } from './measure.js'

const TOKEN = 'bench-oid4vp-tenant-token'
const PUBLIC_URL = 'https://verifier.bench.example'
const VCT = 'https://credentials.example.com/identity'
const CLAIMS = { given_name: 'Erika', family_name: 'Mustermann', birthdate: '1964-08-12' }
/** Responses per mode (and as many verify calls), in interleaved chunks. */
const RESPONSES = Number(process.env.DIDVAULT_BENCH_OID4VP_N) || 200
const CHUNK = 10
const DCQL = {
  credentials: [
    { id: 'identity', format: 'dc+sd-jwt', meta: { vct_values: [VCT] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }] },
  ],
}

type Mode = 'direct_post' | 'direct_post.jwt'

export interface Oid4vpModeResults {
  response: Measurement
  verify: Measurement
  /** response_uri POSTs ÷ `/presentations/verify` POSTs (per second). */
  ratio: number
}

export interface Oid4vpBenchResults {
  storage: string
  syncMode: string
  directPost: Oid4vpModeResults
  directPostJwt: Oid4vpModeResults
}

/** One timed POST: where, what. */
interface Prepared {
  url: string
  body: string
  contentType: string
  headers?: Record<string, string>
}

async function listening(): Promise<{ server: Server; origin: string }> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

async function send(p: Prepared): Promise<Record<string, unknown>> {
  const res = await fetch(p.url, { method: 'POST', headers: { 'content-type': p.contentType, ...p.headers }, body: p.body })
  const text = await res.text()
  if (!res.ok) throw new Error(`bench: ${p.url} answered ${res.status}: ${text}`)
  return JSON.parse(text) as Record<string, unknown>
}

/** The verifier: service + router on a SQLite file, a verifier DID and an SD-JWT VC held by a key outside didvault. */
async function setUp(path: string) {
  const { server, origin } = await listening()
  const service = await IdentityService.create({
    storage: createSqliteStorage({ path }),
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [TOKEN]: 'bench' }),
    publicUrl: PUBLIC_URL,
    oid4vp: oid4vp({ requestTtlSeconds: 3600 }),
  })
  const app = express()
  app.use(createRouter(service))
  server.on('request', app)
  const api = service.as({ authorization: `Bearer ${TOKEN}` })
  const { wallet } = await api.generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })
  const { jwt } = await api.generateToken({ iss: wallet.did })
  const verifier = service.as({ authorization: `Bearer ${TOKEN}`, didAuth: jwt })
  const holder = await jose.generateKeyPair('ES256', { extractable: true })
  const holderJwk = await jose.exportJWK(holder.publicKey)
  const { vcs } = await verifier.signClaims({
    iss: wallet.did,
    format: 'SD-JWT',
    claims: [{ vct: VCT, payload: CLAIMS, disclose: Object.keys(CLAIMS).map((k) => `/${k}`), holderJwk }],
  } as never)
  const credential = (vcs as Array<{ sdjwt: string }>)[0].sdjwt
  const holderPrivate = await jose.exportJWK(holder.privateKey)
  const library = new SDJwtVcInstance({ hasher: digest, kbSigner: await ES256.getSigner(holderPrivate), kbSignAlg: 'ES256' })
  const present = (nonce: string, aud: string) =>
    library.present(
      credential,
      { given_name: true, family_name: true },
      {
        kb: { payload: { iat: Math.floor(Date.now() / 1000), aud, nonce } },
      },
    )
  return {
    service,
    verifier,
    did: wallet.did,
    jwt,
    origin,
    present,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await service.close()
    },
  }
}

type Setup = Awaited<ReturnType<typeof setUp>>

/** `count` requests of `mode` and the wallet's answer to each, ready to post. */
async function prepareResponses(s: Setup, mode: Mode, count: number): Promise<Prepared[]> {
  const operations = s.verifier as unknown as Record<string, (input: unknown) => Promise<Record<string, any>>>
  const prepared: Prepared[] = []
  for (let i = 0; i < count; i++) {
    const made = await operations.createPresentationRequest({
      dcqlQuery: DCQL,
      clientId: { prefix: 'decentralized_identifier', did: s.did },
      responseMode: mode,
    })
    const fetched = await fetch(String(made.requestUri).replace(PUBLIC_URL, s.origin))
    const request = jose.decodeJwt(await fetched.text()) as Record<string, any>
    const vpToken = JSON.stringify({ identity: [await s.present(request.nonce, request.client_id)] })
    const url = String(request.response_uri).replace(PUBLIC_URL, s.origin)
    if (mode === 'direct_post') {
      prepared.push({
        url,
        contentType: 'application/x-www-form-urlencoded',
        body: new URLSearchParams({ vp_token: vpToken, state: request.state }).toString(),
      })
    } else {
      const key = request.client_metadata.jwks.keys[0] as jose.JWK
      const jwe = await new jose.CompactEncrypt(
        new TextEncoder().encode(JSON.stringify({ vp_token: JSON.parse(vpToken), state: request.state })),
      )
        .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: key.kid! })
        .encrypt(await jose.importJWK(key, 'ECDH-ES'))
      prepared.push({ url, contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams({ response: jwe }).toString() })
    }
  }
  return prepared
}

/** `count` calls of `POST /presentations/verify` on presentations made the same way. */
async function prepareVerifies(s: Setup, count: number): Promise<Prepared[]> {
  const prepared: Prepared[] = []
  for (let i = 0; i < count; i++) {
    const nonce = jose.base64url.encode(crypto.getRandomValues(new Uint8Array(32)))
    const aud = `decentralized_identifier:${s.did}`
    const sdjwt = await s.present(nonce, aud)
    prepared.push({
      url: `${s.origin}/presentations/verify`,
      contentType: 'application/json',
      headers: { authorization: `Bearer ${TOKEN}`, 'x-did-auth': s.jwt },
      body: JSON.stringify({ presentation: { sdjwt }, nonce, aud }),
    })
  }
  return prepared
}

async function interleaved(label: string, responses: Prepared[], verifies: Prepared[]): Promise<Oid4vpModeResults> {
  const durations: [number[], number[]] = [[], []]
  for (let done = 0; done < responses.length; done += CHUNK) {
    for (const [i, list] of [responses, verifies].entries()) {
      for (const p of list.slice(done, done + CHUNK)) {
        const t = performance.now()
        const answer = await send(p)
        durations[i].push(performance.now() - t)
        if (i === 1 && answer.verified !== true) throw new Error(`bench: verify answered ${JSON.stringify(answer)}`)
      }
    }
  }
  const response = summarize(`oid4vp ${label} response_uri`, durations[0])
  const verify = summarize(`oid4vp ${label} /presentations/verify`, durations[1])
  return { response, verify, ratio: Number((response.opsPerSec / verify.opsPerSec).toFixed(3)) }
}

/** The section: `direct_post` and `direct_post.jwt` on a SQLite file. */
export async function benchOid4vp(): Promise<Oid4vpBenchResults> {
  const dir = mkdtempSync(join(os.tmpdir(), 'didvault-bench-oid4vp-'))
  const s = await setUp(join(dir, 'oid4vp.db'))
  try {
    const results: Record<Mode, Oid4vpModeResults> = {} as never
    for (const mode of ['direct_post', 'direct_post.jwt'] as const) {
      await interleaved(`${mode} warm-up`, await prepareResponses(s, mode, CHUNK), await prepareVerifies(s, CHUNK))
      results[mode] = await interleaved(mode, await prepareResponses(s, mode, RESPONSES), await prepareVerifies(s, RESPONSES))
    }
    // Every answered request holds its result.
    return {
      storage: 'sqlite',
      syncMode: 'synchronous=FULL (the default)',
      directPost: results.direct_post,
      directPostJwt: results['direct_post.jwt'],
    }
  } finally {
    await s.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

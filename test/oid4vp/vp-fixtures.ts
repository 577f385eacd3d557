/** Shared set-up of the OID4VP verifier's request tests: a harness with the module, wallets, a DCQL query, a chain. */
import { execFileSync } from 'node:child_process'
import { createPrivateKey } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { expect } from 'vitest'
import { oid4vp } from '../../src/oid4vc.js'
import type { Oid4vpOptions } from '../../src/oid4vp/module.js'
import { startHarness, TENANT_A, type Harness } from '../helpers/harness.js'

export const PUBLIC_URL = 'https://verifier.example.com/id'

export const QUERY = {
  credentials: [
    {
      id: 'pid',
      format: 'dc+sd-jwt',
      meta: { vct_values: ['https://credentials.example.com/identity'] },
      claims: [{ path: ['given_name'] }, { path: ['family_name'] }],
    },
  ],
}

/** A harness (SQLite file) with the verifier module and `publicUrl`. */
export function vpHarness(options: Oid4vpOptions = {}, service: Record<string, unknown> = {}): Promise<Harness> {
  return startHarness({ storage: 'sqlite', service: { publicUrl: PUBLIC_URL, oid4vp: oid4vp(options), ...service } })
}

/** A wallet of the tenant (`method`, P-256) and a DID-auth token for it. */
export async function vpWallet(h: Harness, method = 'jwk', token = TENANT_A): Promise<{ did: string; jwt: string }> {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: method, keyType: 'P-256' } }, token })
  expect(made.status).toBe(200)
  const did: string = made.body.wallet.did
  const minted = await h.request('POST', '/did-auth-jwt', { json: { iss: did }, token })
  expect(minted.status).toBe(200)
  return { did, jwt: minted.body.jwt }
}

/** The request id of an answer's `requestUri`. */
export const requestIdOf = (requestUri: string) => requestUri.split('/').pop()!

/** Fetches the request object of `id` (GET), expecting 200 and its media type. */
export async function fetchRequestObject(h: Harness, id: string): Promise<string> {
  const res = await h.request('GET', `/oid4vp/request-objects/${id}`, { token: null })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/oauth-authz-req\+jwt/)
  return res.body as string
}

export const headerOf = (jwt: string) => decodeProtectedHeader(jwt) as Record<string, unknown>
export const payloadOf = (jwt: string) => decodeJwt(jwt) as Record<string, unknown>

/** A self-signed P-256 certificate with a DNS SAN (openssl), and its private key as a JWK. */
export function selfSignedChain(dns = 'verifier.example.com'): { chain: string[]; privateKeyJwk: Record<string, unknown> } {
  const dir = mkdtempSync(join(tmpdir(), 'vp-x509-'))
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-subj',
        '/CN=verifier',
        '-days',
        '2',
        '-addext',
        `subjectAltName=DNS:${dns}`,
      ],
      { stdio: 'ignore' },
    )
    const privateKeyJwk = createPrivateKey(readFileSync(join(dir, 'key.pem'))).export({ format: 'jwk' }) as Record<string, unknown>
    return { chain: [readFileSync(join(dir, 'cert.pem'), 'utf8')], privateKeyJwk }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

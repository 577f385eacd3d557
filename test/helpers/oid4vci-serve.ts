/**
 * A real `didvault serve` process as an OID4VCI issuer, for end-to-end tests: the CLI run from the sources (tsx) on a
 * SQLite file or a PostgreSQL schema, with the config file's `oid4vci` section on (and its `oid4vp` verifier when asked), behind the test-only TLS terminator
 * (test/helpers/tls.ts) whose https origin is its `publicUrl`. The tenant's API key comes from `DIDVAULT_API_KEYS`; an
 * issuing wallet (did:jwk, P-256) and an SD-JWT VC configuration are made through `didvault/client`, as an issuing
 * backend would. Wallet clients run as children trusting the test CA (`runWallet`, `runWalletMetadata`); the
 * management client speaks plain HTTP to the process's own loopback port.
 */
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createClient, type DidvaultClient } from '../../src/client/index.js'
import { CONTRACTS } from '../../src/service/contracts.js'
import { freeLoopbackPort } from './ports.js'
import type { TestPostgres } from './postgres.js'
import { spawnNode, type Spawned } from './spawn.js'
import { tlsTerminator, type TestCa, type TlsTerminator } from './tls.js'

const ROOT = join(import.meta.dirname, '../..')
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href
const MAIN = join(ROOT, 'src/cli/main.ts')
const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)/

/** The routes of the issuance flow the wallets need, beside the metadata. */
const FLOW_ROUTES = [
  'post /oid4vci/offers',
  'post /oid4vci/:issuer/token',
  'post /oid4vci/:issuer/nonce',
  'post /oid4vci/:issuer/credential',
]

/** Whether the operation table serves `method path` (whatever the operation's name). */
export function hasRoute(method: string, path: string): boolean {
  return Object.values(CONTRACTS).some((contract) =>
    (contract.routes as ReadonlyArray<{ method: string; path: string }>).some((r) => r.method === method && r.path === path),
  )
}

/** Whether the table has the whole pre-authorized flow: offers, token, nonce and the credential endpoint. */
export const FLOWS_READY = FLOW_ROUTES.every((route) => hasRoute(...(route.split(' ') as [string, string])))

export const SERVED_VCT = 'https://credentials.example.com/identity'
export const SERVED_CONFIGURATION = 'Identity'
export const SERVED_CLAIMS = { given_name: 'Erika', family_name: 'Mustermann' }

export type ServedStorage = 'sqlite' | 'postgres'

export interface ServedIssuerOptions {
  storage: ServedStorage
  ca: TestCa
  /** Where the SQLite file and the config file go (the process's working directory). */
  dir: string
  /** The server of `storage: 'postgres'`; the issuer takes `schema` (default the server's own schema). */
  postgres?: TestPostgres
  schema?: string
  /** More of the config file's `oid4vci` section (`enabled: true` is set). */
  oid4vci?: Record<string, unknown>
  /** The config file's `oid4vp` section (the verifier, `enabled: true` set), when given. */
  oid4vp?: Record<string, unknown>
  /** More of the SD-JWT VC configuration made through the client. */
  configuration?: Record<string, unknown>
  /** More serve flags. */
  flags?: string[]
  /** A built CLI to run (`dist/cli/main.js`, which `--console` needs) instead of the sources through tsx. */
  cli?: string
  /** Also a second tenant (`globex`, its own API key, issuer slug, issuing DID and configuration `Identity`). */
  otherTenant?: boolean
}

/** A tenant's issuing backend on the served process. */
export interface IssuingBackend {
  tenant: string
  apiKey: string
  slug: string
  /** `<publicUrl>/oid4vci/<slug>`. */
  credentialIssuer: string
  issuingDid: string
  /** `didvault/client` with the API key and a DID-auth token of the issuing DID. */
  client: DidvaultClient
}

export interface ServedIssuer {
  storage: ServedStorage
  /** The `--storage` value the process runs on. */
  storageUrl: string
  /** `https://localhost:<terminator port>`: the process's publicUrl. */
  publicUrl: string
  /** The process's own loopback URL (plain HTTP). */
  localUrl: string
  tenant: string
  apiKey: string
  slug: string
  /** `<publicUrl>/oid4vci/<slug>`. */
  credentialIssuer: string
  issuingDid: string
  configurationId: string
  /** `didvault/client` with the API key and a DID-auth token of the issuing DID (the issuing backend). */
  client: DidvaultClient
  process: Spawned
  terminator: TlsTerminator
  /** The second tenant, when asked for (`otherTenant`). */
  other?: IssuingBackend
  /** SIGTERM, wait for the exit, close the terminator. */
  stop(): Promise<void>
}

/** Starts the process, makes the issuing wallet and the configuration; rejects with the process's output when it fails. */
export async function startServedIssuer(options: ServedIssuerOptions): Promise<ServedIssuer> {
  const port = await freeLoopbackPort()
  const terminator = await tlsTerminator(options.ca, port)
  const publicUrl = terminator.origin
  const tenant = 'acme'
  const apiKey = `key-${randomBytes(12).toString('hex')}`
  const slug = `acme-${randomBytes(3).toString('hex')}`
  const otherKey = `key-${randomBytes(12).toString('hex')}`
  const otherSlug = `globex-${randomBytes(3).toString('hex')}`
  const storageUrl =
    options.storage === 'sqlite'
      ? `sqlite:${join(options.dir, `issuer-${slug}.db`)}`
      : `${options.postgres!.url}?schema=${options.schema ?? options.postgres!.schema}`
  const configFile = join(options.dir, `didvault-${slug}.json`)
  const oid4vp = options.oid4vp && { oid4vp: { enabled: true, ...options.oid4vp } }
  writeFileSync(configFile, JSON.stringify({ oid4vci: { enabled: true, ...options.oid4vci }, ...oid4vp }))
  const args = ['serve', '--config', configFile, '--port', String(port), '--storage', storageUrl, '--public-url', publicUrl]
  const entry = options.cli === undefined ? ['--import', TSX, MAIN] : [options.cli]
  const child = spawnNode([...entry, ...args, ...(options.flags ?? [])], {
    cwd: options.dir,
    env: {
      DIDVAULT_API_KEYS: `${tenant}:${apiKey}${options.otherTenant ? `,globex:${otherKey}` : ''}`,
      DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex'),
    },
  })
  const stop = async () => {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGTERM')
    await child.exited
    await terminator.close()
  }
  try {
    const localUrl = (await child.waitFor(LISTENING, 60_000))[1]
    const backend = async (apiKey: string, slug: string): Promise<{ client: DidvaultClient; issuingDid: string }> => {
      const base = createClient({ baseUrl: localUrl, apiKey })
      const { wallet } = await base.generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })
      const { jwt } = await base.generateToken({ iss: wallet.did })
      const client = createClient({ baseUrl: localUrl, apiKey, didAuth: jwt })
      await client.createCredentialConfiguration({
        id: SERVED_CONFIGURATION,
        issuer: slug,
        format: 'dc+sd-jwt',
        vct: SERVED_VCT,
        issuingDid: wallet.did,
        display: [{ name: 'Identity', locale: 'en' }],
        claims: Object.keys(SERVED_CLAIMS).map((name) => ({ path: [name] })),
        ...options.configuration,
      })
      return { client, issuingDid: wallet.did }
    }
    const { client, issuingDid } = await backend(apiKey, slug)
    const other = options.otherTenant
      ? {
          tenant: 'globex',
          apiKey: otherKey,
          slug: otherSlug,
          credentialIssuer: `${publicUrl}/oid4vci/${otherSlug}`,
          ...(await backend(otherKey, otherSlug)),
        }
      : undefined
    return {
      storage: options.storage,
      storageUrl,
      publicUrl,
      localUrl,
      tenant,
      apiKey,
      slug,
      credentialIssuer: `${publicUrl}/oid4vci/${slug}`,
      issuingDid,
      configurationId: SERVED_CONFIGURATION,
      client,
      process: child,
      terminator,
      other,
      stop,
    }
  } catch (err) {
    await stop()
    throw new Error(`${(err as Error).message}\n--- serve stderr\n${child.stderr()}`, { cause: err })
  }
}

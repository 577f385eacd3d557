/**
 * Each wallet client's metadata step alone (what it does before it reads an offer's grants): given a Credential Issuer
 * Identifier, the client resolves the Credential Issuer Metadata and the authorization server's the way it does in its
 * flow, and the result says what it found and which URLs it fetched. Run in a child trusting the test CA
 * ({@link runWalletMetadata}), like the flows of test/helpers/oid4vci-wallets.ts.
 */
import { fileURLToPath } from 'node:url'
import { dirname, resolve } from 'node:path'
import { oid4vcCallbacks } from './oid4vci-callbacks.js'
import { spawnNode } from './spawn.js'
import type { WalletName } from './oid4vci-wallets.js'

/** What a client's metadata step found. */
export interface MetadataResult {
  client: WalletName
  credentialIssuer: string
  credentialEndpoint: string
  tokenEndpoint: string
  nonceEndpoint?: string
  configurationIds: string[]
  /** The URLs the client fetched, in order. */
  fetched: string[]
}

/** `fetch` recording each URL in `fetched`. */
function recordingFetch(fetched: string[]): typeof fetch {
  const original = globalThis.fetch
  return (input, init) => {
    fetched.push(String(input instanceof Request ? input.url : input))
    return original(input, init)
  }
}

/** `@openid4vc/openid4vci`'s client: `resolveIssuerMetadata` (inserted paths first). */
async function openid4vcMetadata(credentialIssuer: string): Promise<MetadataResult> {
  const { Openid4vciClient } = await import('@openid4vc/openid4vci')
  const fetched: string[] = []
  const client = new Openid4vciClient({ callbacks: oid4vcCallbacks([], recordingFetch(fetched)) })
  const resolved = await client.resolveIssuerMetadata(credentialIssuer)
  return {
    client: 'openid4vc',
    credentialIssuer: resolved.credentialIssuer.credential_issuer,
    credentialEndpoint: resolved.credentialIssuer.credential_endpoint,
    tokenEndpoint: resolved.authorizationServers[0].token_endpoint,
    nonceEndpoint: resolved.credentialIssuer.nonce_endpoint,
    configurationIds: Object.keys(resolved.knownCredentialConfigurations),
    fetched,
  }
}

/**
 * `@digitalbazaar/oid4-client`: `discoverIssuer` at the appended location (what `robustDiscoverIssuer` tries first),
 * then at the inserted one (its fallback); both must give the same document.
 */
async function digitalbazaarMetadata(credentialIssuer: string): Promise<MetadataResult> {
  const specifier: string = '@digitalbazaar/oid4-client' // untyped JavaScript package
  const { discoverIssuer } = (await import(specifier)) as {
    discoverIssuer(options: { issuerConfigUrl: string }): Promise<{ issuerConfig: Record<string, any> }>
  }
  const fetched: string[] = []
  globalThis.fetch = recordingFetch(fetched)
  const { origin, pathname } = new URL(credentialIssuer)
  const appended = await discoverIssuer({ issuerConfigUrl: `${credentialIssuer}/.well-known/openid-credential-issuer` })
  const inserted = await discoverIssuer({ issuerConfigUrl: `${origin}/.well-known/openid-credential-issuer${pathname}` })
  if (JSON.stringify(appended.issuerConfig) !== JSON.stringify(inserted.issuerConfig))
    throw new Error('the appended and inserted Credential Issuer Metadata differ')
  const config = appended.issuerConfig
  return {
    client: 'digitalbazaar',
    credentialIssuer: config.credential_issuer,
    credentialEndpoint: config.credential_endpoint,
    tokenEndpoint: config.token_endpoint,
    nonceEndpoint: config.nonce_endpoint,
    configurationIds: Object.keys(config.credential_configurations_supported ?? {}),
    fetched,
  }
}

/** `@sphereon/oid4vci-client` (draft 15): `MetadataClientV1_0_15.retrieveAllMetadata` (appended paths only). */
async function sphereonMetadata(credentialIssuer: string): Promise<MetadataResult> {
  const { MetadataClientV1_0_15 } = await import('@sphereon/oid4vci-client')
  const fetched: string[] = []
  globalThis.fetch = recordingFetch(fetched)
  const metadata = await MetadataClientV1_0_15.retrieveAllMetadata(credentialIssuer, { errorOnNotFound: true })
  return {
    client: 'sphereon',
    credentialIssuer: metadata.credentialIssuerMetadata!.credential_issuer,
    credentialEndpoint: metadata.credential_endpoint,
    tokenEndpoint: metadata.token_endpoint,
    nonceEndpoint: (metadata.credentialIssuerMetadata as { nonce_endpoint?: string }).nonce_endpoint,
    configurationIds: Object.keys(metadata.credentialIssuerMetadata!.credential_configurations_supported ?? {}),
    fetched,
  }
}

export const WALLET_METADATA: Record<WalletName, (credentialIssuer: string) => Promise<MetadataResult>> = {
  openid4vc: openid4vcMetadata,
  digitalbazaar: digitalbazaarMetadata,
  sphereon: sphereonMetadata,
}

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), 'oid4vci-wallet-main.ts')
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** Runs `wallet`'s metadata step on `credentialIssuer` in a child trusting `caFile` (`NODE_EXTRA_CA_CERTS`). */
export async function runWalletMetadata(wallet: WalletName, credentialIssuer: string, caFile: string): Promise<MetadataResult> {
  const child = spawnNode(['--import', 'tsx', MAIN, `metadata:${wallet}`, credentialIssuer], {
    cwd: ROOT,
    env: { NODE_EXTRA_CA_CERTS: caFile },
  })
  const exit = await child.exited
  const line = child
    .stdout()
    .split('\n')
    .find((l) => l.startsWith('WALLET-RESULT '))
  if (exit.code !== 0 || !line)
    throw new Error(`${wallet} metadata failed (exit ${exit.code})\n--- stdout\n${child.stdout()}\n--- stderr\n${child.stderr()}`)
  return JSON.parse(line.slice('WALLET-RESULT '.length)) as MetadataResult
}

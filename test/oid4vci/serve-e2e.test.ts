/**
 * `didvault serve` as an OID4VCI issuer end to end (issue 33, "Tests with real wallets"): a real process from the
 * sources, on a SQLite file and on PostgreSQL, behind a TLS terminator with a throw-away CA (its https origin is the
 * process's publicUrl); the three wallet clients run as children trusting that CA.
 *
 * Today: each client's metadata step (Credential Issuer and authorization server metadata, appended and inserted
 * well-known paths) over https. The full flows — an offer made through didvault/client, redeemed by the wallet, the
 * SD-JWT VC verified with @sd-jwt/sd-jwt-vc and bound to the wallet's key, the stored record and the audit record read
 * through the client — are written here and run once the offer, token, nonce and credential endpoints are in the
 * operation table (FLOWS_READY).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ES256, digest } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { thumbprint } from '../helpers/oid4vci-callbacks.js'
import {
  FLOWS_READY,
  SERVED_CLAIMS,
  SERVED_VCT,
  startServedIssuer,
  type ServedIssuer,
  type ServedStorage,
} from '../helpers/oid4vci-serve.js'
import { runWalletMetadata } from '../helpers/oid4vci-wallet-metadata.js'
import { runWallet, type WalletName, type WalletOptions } from '../helpers/oid4vci-wallets.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'
import { makeTestCa, type TestCa } from '../helpers/tls.js'

const WALLET_NAMES: WalletName[] = ['openid4vc', 'digitalbazaar', 'sphereon']
const STORAGES: ServedStorage[] = ['sqlite', 'postgres']

/** The public JWK a did:jwk names. */
const jwkOfDidJwk = (did: string) => JSON.parse(Buffer.from(did.slice('did:jwk:'.length).split('#')[0], 'base64url').toString('utf8'))

let ca: TestCa
let dir: string
beforeAll(() => {
  ca = makeTestCa()
  dir = mkdtempSync(join(tmpdir(), 'didvault-oid4vci-serve-'))
})
afterAll(() => {
  ca?.remove()
  rmSync(dir, { recursive: true, force: true })
})

describe.each(STORAGES)('didvault serve as an OID4VCI issuer (%s)', (storage) => {
  let postgres: TestPostgres | undefined
  let issuer: ServedIssuer
  beforeAll(async () => {
    if (storage === 'postgres') postgres = await startTestPostgres('oid4vci-serve')
    issuer = await startServedIssuer({ storage, ca, dir, postgres })
  }, 180_000)
  afterAll(async () => {
    await issuer?.stop()
    await postgres?.stop()
  })

  it.each(WALLET_NAMES)('%s: the metadata step over https finds the issuer, its endpoints and the configuration', async (wallet) => {
    const before = issuer.terminator.connections()
    const logFrom = issuer.process.stdout().length
    const found = await runWalletMetadata(wallet, issuer.credentialIssuer, ca.caFile)
    expect(found).toMatchObject({
      credentialIssuer: issuer.credentialIssuer,
      credentialEndpoint: `${issuer.credentialIssuer}/credential`,
      tokenEndpoint: `${issuer.credentialIssuer}/token`,
      nonceEndpoint: `${issuer.credentialIssuer}/nonce`,
      configurationIds: [issuer.configurationId],
    })
    // Over the terminator (https, the test CA trusted); the process answered 200 at each path this client asks for.
    expect(issuer.terminator.connections()).toBeGreaterThan(before)
    for (const url of found.fetched) expect(url.startsWith(`${issuer.publicUrl}/`)).toBe(true)
    const answered = issuer.process
      .stdout()
      .slice(logFrom)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { path?: string; status?: number })
      .filter((record) => record.status === 200)
      .map((record) => record.path)
    const path = `/oid4vci/${issuer.slug}`
    const expected = {
      openid4vc: [`/.well-known/openid-credential-issuer${path}`, `/.well-known/oauth-authorization-server${path}`],
      digitalbazaar: [
        `${path}/.well-known/openid-credential-issuer`,
        `/.well-known/openid-credential-issuer${path}`,
        `/.well-known/oauth-authorization-server${path}`,
      ],
      sphereon: [`${path}/.well-known/openid-credential-issuer`, `${path}/.well-known/oauth-authorization-server`],
    }[wallet]
    expect(answered).toEqual(expect.arrayContaining(expected))
  })

  const flows: Array<{ wallet: WalletName; flow: string; txCode?: boolean; dpop?: boolean; untyped?: boolean }> = [
    { wallet: 'openid4vc', flow: 'pre-authorized' },
    { wallet: 'openid4vc', flow: 'pre-authorized with tx_code', txCode: true },
    { wallet: 'openid4vc', flow: 'pre-authorized with DPoP', dpop: true },
    { wallet: 'sphereon', flow: 'pre-authorized' },
    { wallet: 'sphereon', flow: 'pre-authorized with tx_code', txCode: true },
    // digitalbazaar's wallet signs key proofs without `typ` and `iat` (test/helpers/oid4vci-wallets.md): it is served
    // by a configuration that accepts such proofs, off by default.
    { wallet: 'digitalbazaar', flow: 'pre-authorized (a configuration with acceptUntypedProofs)', untyped: true },
  ]
  for (const c of flows) {
    it.skipIf(!FLOWS_READY)(
      `${c.wallet}: ${c.flow} — credential verified and bound, stored and audited`,
      async () => {
        const operations = issuer.client as unknown as Record<string, (input: unknown) => Promise<any>>
        const configurationId = c.untyped ? `${issuer.configurationId}-untyped-proofs` : issuer.configurationId
        if (c.untyped) {
          const [served] = (await issuer.client.getCredentialConfigurations()).configurations.filter((x) => x.id === issuer.configurationId)
          const { createdAt: _c, updatedAt: _u, credentialIssuer: _i, ...given } = served as Record<string, unknown>
          await operations.createCredentialConfiguration({ ...given, id: configurationId, acceptUntypedProofs: true })
        }
        const offer = await operations.createCredentialOffer({
          configurations: [{ id: configurationId, claims: SERVED_CLAIMS }],
          ...(c.txCode && { txCode: true }),
        })
        expect(offer.offerUri).toMatch(/^openid-credential-offer:\/\//)
        const options: WalletOptions = { ...(c.txCode && { txCode: offer.txCode }), ...(c.dpop && { dpop: true }) }
        const result = await runWallet(c.wallet, offer.offerUri, { ...options, caFile: ca.caFile })

        expect(result.credentials).toHaveLength(1)
        const verifier = new SDJwtVcInstance({ hasher: digest, verifier: await ES256.getVerifier(jwkOfDidJwk(issuer.issuingDid)) })
        const { payload } = await verifier.verify(result.credentials[0] as string)
        expect(payload).toMatchObject({ vct: SERVED_VCT, ...SERVED_CLAIMS })
        expect([issuer.issuingDid, issuer.credentialIssuer]).toContain(payload.iss)
        const cnf = payload.cnf as { jwk: Parameters<typeof thumbprint>[0] }
        const holderThumbprint = await thumbprint(result.holderJwks[0])
        expect(await thumbprint(cnf.jwk)).toBe(holderThumbprint)

        // Stored as a credential record of the tenant, issued by the issuing DID; audited naming the holder key.
        const stored = await operations.getClaims({ issuer: issuer.issuingDid })
        expect(stored.vcs.length).toBeGreaterThan(0)
        const audit = await operations.getAuditRecords({ action: 'credential.issue' })
        expect(JSON.stringify(audit.records)).toContain(holderThumbprint)
      },
      120_000,
    )
  }
})

/**
 * The config file's `oid4vci` section and `serve` as an OID4VCI issuer: what the schema accepts and refuses (a private
 * key among the login assertion keys, an issuer declared twice…), `--oid4vci on|off` over the file, a start without
 * publicUrl refused before anything is created, a missing optional peer named, and a served process that applies the
 * declared issuers at start and serves their metadata at the appended and the inserted (host root) well-known paths.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config/load.js'
import { effectiveConfig } from '../../src/config/effective.js'
import { flagLayer, serveOptionsOf, type ServeFlags } from '../../src/cli/serve-config.js'
import { withOptionalPeer } from '../../src/cli/optional-peer.js'
import { OID4VCI_PEERS } from '../../src/cli/oid4vci.js'
import { createClient } from '../../src/client/index.js'
import { http, killAll } from '../helpers/spawn.js'
import { freeLoopbackPort } from '../helpers/ports.js'
import { configCli } from './cli.js'
import { configIssuesOf } from './issues-of.js'

const PUBLIC_KEY = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
}
const CONFIGURATION = { id: 'Identity', format: 'dc+sd-jwt', vct: 'https://credentials.example.com/identity', issuingDid: 'did:jwk:e30' }

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-oid4vci-config-'))
})
afterEach(killAll)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const issuesOf = (value: unknown): string[] => configIssuesOf(value, dir)

describe('the oid4vci section of the config file', () => {
  it('accepts the settings, public login keys and declared issuers', () => {
    const section = {
      enabled: true,
      txCodeAttempts: 3,
      accessTokenTtlSeconds: 120,
      nonceTtlSeconds: 120,
      offerTtlSeconds: 900,
      loginUrl: 'https://login.example.com/didvault',
      loginAssertionKeys: [PUBLIC_KEY],
      issuers: [
        { tenant: 'acme', slug: 'acme', configurations: [CONFIGURATION] },
        { tenant: 'other', slug: 'other-issuer', configurations: [{ ...CONFIGURATION, batchSize: 5 }] },
      ],
    }
    expect(parseConfig({ oid4vci: section }, 'x.json', dir).oid4vci).toEqual(section)
  })

  it.each([
    [
      { loginUrl: 'https://l.example', loginAssertionKeys: [{ ...PUBLIC_KEY, d: 'secret' }] },
      'oid4vci.loginAssertionKeys[0].d: a private key member',
    ],
    [
      { loginUrl: 'https://l.example', loginAssertionKeys: [{ kty: 'oct', k: 'c2VjcmV0' }] },
      'oid4vci.loginAssertionKeys[0].kty: Invalid option',
    ],
    [
      { loginUrl: 'https://l.example', loginAssertionKeys: [{ kty: 'RSA', n: 'x', e: 'AQAB', p: 'y' }] },
      'oid4vci.loginAssertionKeys[0].p: a private key member',
    ],
    [{ loginUrl: 'https://l.example' }, 'oid4vci.loginAssertionKeys: loginUrl and loginAssertionKeys go together'],
    [{ txCodeAttempts: 0 }, 'oid4vci.txCodeAttempts: Too small'],
    [{ offerTtlSeconds: 86_401 }, 'oid4vci.offerTtlSeconds: Too big'],
    [{ pin: 1 }, 'oid4vci.pin: unknown key'],
    [{ issuers: [{ tenant: 'acme', slug: 'Acme', configurations: [CONFIGURATION] }] }, 'oid4vci.issuers[0].slug: must be 1–63 lowercase'],
    [
      { issuers: [{ tenant: 'acme', slug: 'acme', configurations: [{ ...CONFIGURATION, issuer: 'acme' }] }] },
      'oid4vci.issuers[0].configurations[0].issuer: unknown key',
    ],
    [
      { issuers: [{ tenant: 'acme', slug: 'acme', configurations: [CONFIGURATION, CONFIGURATION] }] },
      'oid4vci.issuers[0].configurations[1].id: configuration Identity is listed twice',
    ],
    [
      {
        issuers: [
          { tenant: 'acme', slug: 'acme', configurations: [CONFIGURATION] },
          { tenant: 'acme', slug: 'acme-2', configurations: [CONFIGURATION] },
        ],
      },
      'oid4vci.issuers[1].tenant: tenant acme is already issuers[0]',
    ],
    [
      {
        issuers: [
          { tenant: 'acme', slug: 'acme', configurations: [CONFIGURATION] },
          { tenant: 'other', slug: 'acme', configurations: [CONFIGURATION] },
        ],
      },
      'oid4vci.issuers[1].slug: slug acme is already issuers[0]',
    ],
  ])('refuses %j', (section, line) => {
    const issues = issuesOf({ oid4vci: section })
    expect(
      issues.some((issue) => issue.startsWith(line)),
      issues.join('\n'),
    ).toBe(true)
  })

  it('--oid4vci on serves it without a section; off turns a section off; the file’s settings are kept under on', () => {
    const file = parseConfig({ oid4vci: { offerTtlSeconds: 900 } }, 'x.json', dir)
    const options = (flags: Partial<ServeFlags>, f: typeof file | undefined = file) =>
      serveOptionsOf(effectiveConfig(flagLayer(flags as ServeFlags), {}, f).config)
    expect(serveOptionsOf(effectiveConfig(flagLayer({ oid4vci: 'on' } as ServeFlags), {}).config).oid4vci).toEqual({ enabled: true })
    expect(options({}).oid4vci).toEqual({ offerTtlSeconds: 900 })
    expect(options({ oid4vci: 'on' }).oid4vci).toEqual({ offerTtlSeconds: 900, enabled: true })
    expect(options({ oid4vci: 'off' }).oid4vci).toBeUndefined()
    expect(options({}, parseConfig({ oid4vci: { enabled: false } }, 'x.json', dir)).oid4vci).toBeUndefined()
    expect(() => flagLayer({ oid4vci: 'yes' } as ServeFlags)).toThrow('--oid4vci must be on, off; got yes')
  })

  it('a missing optional peer is named with every package the issuer needs', async () => {
    const load = () => import('@openid4vc/not-installed-' + 'package')
    await expect(
      withOptionalPeer([...OID4VCI_PEERS, '@openid4vc/not-installed-package'], 'the OID4VCI issuer (oid4vci)', load),
    ).rejects.toThrow(
      'the OID4VCI issuer (oid4vci) needs the optional packages @openid4vc/openid4vci, @openid4vc/oauth2, @openid4vc/utils, ' +
        '@openid4vc/not-installed-package, not all installed: npm install',
    )
  })
})

describe('serve with the oid4vci section', () => {
  it('without publicUrl: exit 2 naming publicUrl, nothing created', async () => {
    const db = join(dir, 'no-public-url.db')
    const config = join(dir, 'no-public-url.json')
    writeFileSync(config, JSON.stringify({ oid4vci: { enabled: true } }))
    const proc = configCli(['serve', '--config', config, '--port', '0', '--storage', `sqlite:${db}`], dir)
    expect((await proc.exited).code).toBe(2)
    expect(proc.stderr()).toContain('oid4vci needs publicUrl (--public-url, DIDVAULT_PUBLIC_URL or publicUrl in the config file)')
    expect(existsSync(db)).toBe(false)
    expect(existsSync(`${db}.key`)).toBe(false)
  }, 60_000)

  it('applies the declared issuers at start and serves their metadata at the appended and inserted well-known paths', async () => {
    const db = join(dir, 'declared.db')
    const apiKey = `key-${randomBytes(8).toString('hex')}`
    const env = { DIDVAULT_API_KEYS: `acme:${apiKey}` }
    const publicUrl = 'https://issuer.example.com/identity'
    const port = await freeLoopbackPort()
    const start = (section: object) => {
      const config = join(dir, `declared-${randomBytes(4).toString('hex')}.json`)
      writeFileSync(config, JSON.stringify({ publicUrl, oid4vci: section }))
      return configCli(['serve', '--config', config, '--port', String(port), '--storage', `sqlite:${db}`], dir, env)
    }
    const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)/
    // A first start makes the issuing wallet (a declared configuration names a wallet of the tenant).
    const first = start({ enabled: true })
    const base = (await first.waitFor(LISTENING, 60_000))[1]
    const { wallet } = await createClient({ baseUrl: base, apiKey }).generateWallet({
      walletConfig: { didMethod: 'jwk', keyType: 'P-256' },
    })
    first.child.kill('SIGTERM')
    await first.exited

    const second = start({ issuers: [{ tenant: 'acme', slug: 'acme', configurations: [{ ...CONFIGURATION, issuingDid: wallet.did }] }] })
    const url = (await second.waitFor(LISTENING, 60_000))[1]
    const issuer = `${publicUrl}/oid4vci/acme`
    for (const path of [
      '/oid4vci/acme/.well-known/openid-credential-issuer',
      '/.well-known/openid-credential-issuer/identity/oid4vci/acme',
    ]) {
      const res = await http(`${url}${path}`)
      expect(res.status, path).toBe(200)
      expect(res.body.credential_issuer).toBe(issuer)
      expect(Object.keys(res.body.credential_configurations_supported)).toEqual(['Identity'])
    }
    for (const path of [
      '/oid4vci/acme/.well-known/oauth-authorization-server',
      '/.well-known/oauth-authorization-server/identity/oid4vci/acme',
    ]) {
      const res = await http(`${url}${path}`)
      expect(res.status, path).toBe(200)
      expect(res.body.token_endpoint).toBe(`${issuer}/token`)
    }
    // Applied as the operator: the configuration is the tenant's, audited as the config system.
    const listed = await createClient({ baseUrl: url, apiKey }).getCredentialConfigurations({})
    expect(listed.issuer).toBe('acme')
    expect(listed.configurations.map((c) => c.issuingDid)).toEqual([wallet.did])
    const audit = await createClient({ baseUrl: url, apiKey }).getAuditRecords({ action: 'credentialConfiguration.create' })
    expect(JSON.stringify(audit)).toContain('"system":"config"')
  }, 120_000)
})

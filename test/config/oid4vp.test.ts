/**
 * The config file's `oid4vp` section and `serve` as an OID4VP verifier: what the schema accepts and refuses,
 * `--oid4vp on|off` over the file, the certificate chain and key files (relative to the config file; a key readable
 * by others, a file without a PEM certificate, a key that is not PEM refused without echoing its content), a start
 * without publicUrl refused before anything is created, and a missing optional peer named.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config/load.js'
import { effectiveConfig } from '../../src/config/effective.js'
import { flagLayer, serveOptionsOf, type ServeFlags } from '../../src/cli/serve-config.js'
import { withOptionalPeer } from '../../src/cli/optional-peer.js'
import { OID4VP_NEEDS_PUBLIC_URL, OID4VP_PEERS, oid4vpModuleOf } from '../../src/cli/oid4vp.js'
import { UsageError } from '../../src/cli/usage.js'
import { killAll } from '../helpers/spawn.js'
import { configCli } from './cli.js'
import { configIssuesOf } from './issues-of.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-oid4vp-config-'))
  // A self-signed P-256 leaf for the x509 client identifiers.
  execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', join(dir, 'ec.pem')])
  execFileSync('openssl', ['pkcs8', '-topk8', '-nocrypt', '-in', join(dir, 'ec.pem'), '-out', join(dir, 'leaf.key')])
  chmodSync(join(dir, 'leaf.key'), 0o600)
  execFileSync('openssl', [
    'req',
    '-new',
    '-x509',
    '-key',
    join(dir, 'leaf.key'),
    '-out',
    join(dir, 'chain.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=verifier.example.com',
    '-addext',
    'subjectAltName=DNS:verifier.example.com',
  ])
})
afterEach(killAll)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const issuesOf = (value: unknown): string[] => configIssuesOf(value, dir)

describe('the oid4vp section of the config file', () => {
  it('accepts its settings, resolving the x509 files against the config file', () => {
    const config = parseConfig(
      {
        oid4vp: {
          requestTtlSeconds: 120,
          resultTtlSeconds: 600,
          maxResponseBytes: 65_536,
          maxPresentations: 3,
          x509: { chainFile: 'chain.pem', keyFile: 'leaf.key' },
        },
      },
      'x.json',
      dir,
    )
    expect(config.oid4vp).toEqual({
      requestTtlSeconds: 120,
      resultTtlSeconds: 600,
      maxResponseBytes: 65_536,
      maxPresentations: 3,
      x509: { chainFile: join(dir, 'chain.pem'), keyFile: join(dir, 'leaf.key') },
    })
  })

  it('refuses unknown settings, out-of-range values and results kept for less than a request lives', () => {
    expect(issuesOf({ oid4vp: { requestTtl: 5 } }).join('\n')).toMatch(/requestTtl/)
    expect(issuesOf({ oid4vp: { requestTtlSeconds: 3_601 } }).join('\n')).toMatch(/oid4vp\.requestTtlSeconds/)
    expect(issuesOf({ oid4vp: { maxPresentations: 0 } }).join('\n')).toMatch(/oid4vp\.maxPresentations/)
    expect(issuesOf({ oid4vp: { requestTtlSeconds: 600, resultTtlSeconds: 300 } }).join('\n')).toMatch(
      /oid4vp\.resultTtlSeconds.*must be at least requestTtlSeconds/,
    )
    expect(issuesOf({ oid4vp: { x509: { chainFile: 'chain.pem' } } }).join('\n')).toMatch(/oid4vp\.x509\.keyFile/)
  })

  it('--oid4vp on serves it without a section; off turns a section off; the file’s settings are kept under on', () => {
    const file = parseConfig({ oid4vp: { requestTtlSeconds: 120 } }, 'x.json', dir)
    const options = (flags: Partial<ServeFlags>, f: typeof file | undefined = file) =>
      serveOptionsOf(effectiveConfig(flagLayer(flags as ServeFlags), {}, f).config)
    expect(serveOptionsOf(effectiveConfig(flagLayer({ oid4vp: 'on' } as ServeFlags), {}).config).oid4vp).toEqual({ enabled: true })
    expect(options({}).oid4vp).toEqual({ requestTtlSeconds: 120 })
    expect(options({ oid4vp: 'on' }).oid4vp).toEqual({ requestTtlSeconds: 120, enabled: true })
    expect(options({ oid4vp: 'off' }).oid4vp).toBeUndefined()
    expect(() => flagLayer({ oid4vp: 'yes' } as ServeFlags)).toThrow('--oid4vp must be on, off; got yes')
  })

  it('a missing optional peer is named with every package the verifier needs', async () => {
    const load = () => import('@openid4vc/not-installed-' + 'package')
    await expect(
      withOptionalPeer([...OID4VP_PEERS, '@openid4vc/not-installed-package'], 'the OID4VP verifier (oid4vp)', load),
    ).rejects.toThrow(
      'the OID4VP verifier (oid4vp) needs the optional packages @openid4vc/openid4vp, dcql, jose, @openid4vc/not-installed-package',
    )
  })
})

describe('the verifier module of the settings', () => {
  const x509 = { chainFile: '', keyFile: '' }
  beforeAll(() => Object.assign(x509, { chainFile: join(dir, 'chain.pem'), keyFile: join(dir, 'leaf.key') }))

  it('reads the chain (base64 DER, leaf first) and the key (a private JWK in memory)', async () => {
    const module = await oid4vpModuleOf({ x509 }, 'https://verifier.example.com')
    const { chain, privateKeyJwk } = module.options.x509!
    expect(chain).toHaveLength(1)
    expect(Buffer.from(chain[0], 'base64').subarray(0, 1)[0]).toBe(0x30)
    expect(privateKeyJwk).toMatchObject({ kty: 'EC', crv: 'P-256' })
    expect(typeof privateKeyJwk.d).toBe('string')
  })

  it('refuses no publicUrl, a key readable by others, a chain without certificates and a key that is not PEM', async () => {
    await expect(oid4vpModuleOf({}, undefined)).rejects.toThrow(new UsageError(OID4VP_NEEDS_PUBLIC_URL))
    const open = join(dir, 'open.key')
    writeFileSync(open, 'x')
    chmodSync(open, 0o644)
    await expect(oid4vpModuleOf({ x509: { ...x509, keyFile: open } }, 'https://v.example')).rejects.toThrow(/readable by others: chmod 600/)
    const empty = join(dir, 'empty.pem')
    writeFileSync(empty, 'no certificate here')
    await expect(oid4vpModuleOf({ x509: { ...x509, chainFile: empty } }, 'https://v.example')).rejects.toThrow(/holds no PEM certificate/)
    const secret = join(dir, 'garbage.key')
    writeFileSync(secret, 'SECRET-KEY-MATERIAL', { mode: 0o600 })
    const refused = await oid4vpModuleOf({ x509: { ...x509, keyFile: secret } }, 'https://v.example').catch((err: Error) => err)
    expect(refused).toBeInstanceOf(UsageError)
    expect((refused as Error).message).toMatch(/is not a PEM private key/)
    expect((refused as Error).message).not.toContain('SECRET-KEY-MATERIAL')
  })
})

describe('serve with the oid4vp section', () => {
  it('without publicUrl: exit 2 naming publicUrl, nothing created', async () => {
    const db = join(dir, 'no-public-url.db')
    const config = join(dir, 'no-public-url.json')
    writeFileSync(config, JSON.stringify({ oid4vp: { enabled: true } }))
    const proc = configCli(['serve', '--config', config, '--port', '0', '--storage', `sqlite:${db}`], dir)
    expect((await proc.exited).code).toBe(2)
    expect(proc.stderr()).toContain('oid4vp needs publicUrl (--public-url, DIDVAULT_PUBLIC_URL or publicUrl in the config file)')
    expect(existsSync(db)).toBe(false)
    expect(existsSync(`${db}.key`)).toBe(false)
  }, 60_000)
})

/**
 * Precedence of the settings (flag > environment > file > default, each pair), the notes on
 * what the environment overrides in the file, the options `serve` is started with, and the
 * masking of `config print`.
 */
import { parseArgs } from 'node:util'
import { describe, expect, it } from 'vitest'
import { effectiveConfig, DEFAULTS } from '../../src/config/effective.js'
import { parseConfig } from '../../src/config/load.js'
import { maskUrl, printableConfig } from '../../src/config/print.js'
import { envLayer, flagLayer, SERVE_FLAGS, serveOptionsOf } from '../../src/cli/serve-config.js'

const flags = (...args: string[]) => flagLayer(parseArgs({ args, options: SERVE_FLAGS, strict: true }).values)
const file = (value: unknown) => parseConfig(value, '/etc/didvault/c.json', '/etc/didvault')
const merge = (flagArgs: string[], env: NodeJS.ProcessEnv, fileValue?: unknown) =>
  effectiveConfig(flags(...flagArgs), envLayer(env), fileValue === undefined ? undefined : file(fileValue))

describe('precedence: flag > environment > file > default', () => {
  // One setting with all four sources (storage), one with an environment variable and a list (statusListOrigins),
  // and ones without (port, cors).
  const FILE = { storage: 'sqlite:file.db', port: 7000, cors: ['https://file.example'], statusListOrigins: ['https://file.example'] }
  const ENV = { DIDVAULT_STORAGE: 'sqlite:/env.db', DIDVAULT_STATUS_LIST_ORIGINS: 'https://env.example' }
  const FLAGS = ['--storage', 'sqlite:/flag.db', '--port', '6000', '--cors', 'https://flag.example']
  const FLAG_ORIGIN = ['--status-list-origin', 'https://flag.example']

  it('flag over environment', () => {
    const { config } = merge([...FLAGS, ...FLAG_ORIGIN], ENV)
    expect([config.storage, config.statusListOrigins]).toEqual(['sqlite:/flag.db', ['https://flag.example']])
  })

  it('flag over file', () => {
    const { config, notes } = merge([...FLAGS, ...FLAG_ORIGIN], {}, FILE)
    expect([config.storage, config.port, config.cors, config.statusListOrigins]).toEqual([
      'sqlite:/flag.db',
      6000,
      ['https://flag.example'],
      ['https://flag.example'],
    ])
    expect(notes).toEqual([])
  })

  it('environment over file, said in a note', () => {
    const { config, notes } = merge([], ENV, FILE)
    expect([config.storage, config.statusListOrigins]).toEqual(['sqlite:/env.db', ['https://env.example']])
    expect(notes).toEqual([
      'DIDVAULT_STORAGE overrides storage of the config file',
      'DIDVAULT_STATUS_LIST_ORIGINS overrides statusListOrigins of the config file',
    ])
  })

  it('flag over environment over file: no note when a flag decides', () => {
    const { config, notes } = merge([...FLAGS, ...FLAG_ORIGIN], ENV, FILE)
    expect(config.storage).toBe('sqlite:/flag.db')
    expect(notes).toEqual([])
  })

  it('file over default', () => {
    const { config } = merge([], {}, FILE)
    expect([config.storage, config.port, config.cors]).toEqual(['sqlite:/etc/didvault/file.db', 7000, ['https://file.example']])
  })

  it('environment over default, flag over default, and the defaults alone', () => {
    expect(merge([], ENV).config.storage).toBe('sqlite:/env.db')
    expect(merge(FLAGS, {}).config.port).toBe(6000)
    const { config } = merge([], {})
    expect(config).toEqual({ ...DEFAULTS })
  })

  it('DIDVAULT_PUBLIC_URL sits between --public-url and the file’s publicUrl', () => {
    const fileValue = { publicUrl: 'https://file.example' }
    expect(merge([], {}, fileValue).config.publicUrl).toBe('https://file.example')
    expect(merge([], { DIDVAULT_PUBLIC_URL: 'https://env.example' }, fileValue).config.publicUrl).toBe('https://env.example')
    expect(
      merge(['--public-url', 'https://flag.example/'], { DIDVAULT_PUBLIC_URL: 'https://env.example' }, fileValue).config.publicUrl,
    ).toBe('https://flag.example')
  })

  it('a flag replaces a list of the file whole; log and metrics merge field by field', () => {
    const fileValue = {
      contexts: { 'https://example.com/a': 'a.jsonld' },
      log: { level: 'warn', format: 'pretty' },
      metrics: { port: 9464 },
    }
    const { config } = merge(['--context', 'https://example.com/b=b.jsonld', '--log-level', 'debug', '--metrics', 'off'], {}, fileValue)
    expect(config.contexts).toEqual([{ url: 'https://example.com/b', file: 'b.jsonld' }])
    expect(config.log).toEqual({ level: 'debug', format: 'pretty' })
    expect(config.metrics).toEqual({ port: 9464, enabled: false })
    expect(merge([], {}, fileValue).config.contexts).toEqual([
      { url: 'https://example.com/a', file: '/etc/didvault/a.jsonld', setting: 'contexts["https://example.com/a"]' },
    ])
  })

  it('file-only sections pass through; serve gets them as settings, with workers resolved', () => {
    const fileValue = {
      workers: 2,
      networks: [{ name: 'dev', chainId: 1337 }],
      resolvers: { uni: 'https://uni.example' },
      limits: { body: '2mb', batch: 10 },
      tokens: { audience: 'aud' },
      log: { format: 'json' },
    }
    const options = serveOptionsOf(merge([], {}, fileValue).config)
    expect(options).toMatchObject({
      workers: 2,
      settings: {
        networks: [{ name: 'dev', chainId: 1337 }],
        resolvers: { uni: 'https://uni.example' },
        limits: { body: '2mb', batch: 10 },
      },
      log: { format: 'json' },
    })
    expect(options.settings!.tokens).toEqual({ audience: 'aud' })
    expect(serveOptionsOf(merge(['--workers', '3'], {}, fileValue).config).workers).toBe(3)
  })

  it('the drain deadline: shutdown.drainMs of the file, --drain-ms over it; serve gets it, none when neither sets it', () => {
    expect(serveOptionsOf(merge([], {}, { shutdown: { drainMs: 2_500 } }).config).shutdown).toEqual({ drainMs: 2_500 })
    expect(serveOptionsOf(merge(['--drain-ms', '0'], {}, { shutdown: { drainMs: 2_500 } }).config).shutdown).toEqual({ drainMs: 0 })
    expect(serveOptionsOf(merge([], {}, {}).config).shutdown).toBeUndefined()
  })

  it('storage as an object: its URL takes the precedence of storage, its settings reach serve (and config print, masked)', () => {
    const fileValue = {
      storage: { url: 'postgres://app:hunter2@db.example/dv?schema=s1', startTimeoutMs: 5_000, preparedStatements: false },
    }
    const { config } = merge([], {}, fileValue)
    expect(config.storage).toBe('postgres://app:hunter2@db.example/dv?schema=s1')
    expect(serveOptionsOf(config)).toMatchObject({ storageSettings: { startTimeoutMs: 5_000, preparedStatements: false } })
    expect(printableConfig(config).storage).toEqual({
      url: 'postgres://app:***@db.example/dv?schema=s1',
      startTimeoutMs: 5_000,
      preparedStatements: false,
    })
    // A flag or DIDVAULT_STORAGE names another URL; the file's settings still apply to it.
    const flagged = merge(['--storage', 'postgres://other@db2.example/dv'], {}, fileValue).config
    expect([flagged.storage, flagged.storageSettings]).toEqual([
      'postgres://other@db2.example/dv',
      { startTimeoutMs: 5_000, preparedStatements: false },
    ])
    // The string form has no settings.
    expect(merge([], {}, { storage: 'sqlite:x.db' }).config.storageSettings).toBeUndefined()
  })

  it.each([
    [['--metrics', 'maybe'], /--metrics must be on, off; got maybe/],
    [['--metrics-port', '99999'], /--metrics-port must be 0\.\.65535/],
    [['--log-level', 'loud'], /--log-level must be fatal, error/],
    [['--log-format', 'xml'], /--log-format must be json, pretty/],
    [['--port', '1.5'], /--port must be 0\.\.65535/],
    [['--cors', '*'], /--cors: not an origin/],
    [['--drain-ms', '10s'], /--drain-ms must be 0\.\.3600000 \(ms\), got 10s/],
    [['--drain-ms', '3600001'], /--drain-ms must be 0\.\.3600000/],
  ])('a bad flag %j is a usage error naming it', (args, message) => {
    expect(() => flags(...args)).toThrow(message)
  })

  it('a bad environment value is a usage error naming it', () => {
    expect(() => envLayer({ DIDVAULT_PUBLIC_URL: 'nope' })).toThrow(/DIDVAULT_PUBLIC_URL: --public-url must be an absolute http\(s\) URL/)
    expect(() => envLayer({ DIDVAULT_STATUS_LIST_ORIGINS: 'http://x.example' })).toThrow(/--status-list-origin: /)
    expect(() => envLayer({ DIDVAULT_DID_WEB_ORIGINS: 'http://x.example' })).toThrow(/--did-web-origin: didWebOrigins: /)
  })
})

describe('didWebOrigins: a list apart from statusListOrigins, with the same rules and precedence', () => {
  const FILE = { didWebOrigins: ['https://file.example'], statusListOrigins: ['https://lists.example'] }

  it('flag over environment over file over default; the file’s statusListOrigins stay its own', () => {
    const flag = ['--did-web-origin', 'https://flag.example', '--did-web-origin', 'https://flag.example:8443']
    const env = { DIDVAULT_DID_WEB_ORIGINS: 'https://env.example, http://127.0.0.1:9000' }
    expect(merge(flag, env, FILE).config.didWebOrigins).toEqual(['https://flag.example', 'https://flag.example:8443'])
    const fromEnv = merge([], env, FILE)
    expect([fromEnv.config.didWebOrigins, fromEnv.config.statusListOrigins]).toEqual([
      ['https://env.example', 'http://127.0.0.1:9000'],
      ['https://lists.example'],
    ])
    expect(fromEnv.notes).toEqual(['DIDVAULT_DID_WEB_ORIGINS overrides didWebOrigins of the config file'])
    expect(merge([], {}, FILE).config.didWebOrigins).toEqual(['https://file.example'])
    expect(merge([], {}).config.didWebOrigins).toEqual([])
  })

  it('reaches serve and config print', () => {
    const { config } = merge(['--did-web-origin', 'https://flag.example'], {})
    expect(serveOptionsOf(config).didWebOrigins).toEqual(['https://flag.example'])
    expect(printableConfig(config).didWebOrigins).toEqual(['https://flag.example'])
  })

  it('a bad flag is a usage error naming it and the setting', () => {
    expect(() => flags('--did-web-origin', 'http://issuers.example')).toThrow(/--did-web-origin: didWebOrigins: .* must be an origin/)
    expect(() => flags('--did-web-origin', 'https://issuers.example/dids')).toThrow(/--did-web-origin: /)
  })
})

describe('config print masks secrets', () => {
  it.each([
    ['postgres://didvault:hunter2@db.example:5432/didvault', 'postgres://didvault:***@db.example:5432/didvault'],
    ['postgres://db.example/didvault?password=hunter2&schema=tenant', 'postgres://db.example/didvault?password=***&schema=tenant'],
    ['mongodb+srv://app:s3cret-pass@cluster.example/db?authSource=admin', 'mongodb+srv://app:***@cluster.example/db?authSource=admin'],
    ['https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef', 'https://mainnet.infura.io/v3/***'],
    ['https://rpc.example/?apikey=abc&network=mainnet', 'https://rpc.example/?apikey=***&network=mainnet'],
    ['https://eth.example/rpc?token=0123456789abcdef', 'https://eth.example/rpc?token=***'],
    ['http://127.0.0.1:8545', 'http://127.0.0.1:8545/'],
    ['sqlite:./didvault.db', 'sqlite:./didvault.db'],
    ['memory', 'memory'],
    // URLs that do not parse: nothing but the scheme can be told apart from a password.
    ['postgres://didvault:hunter2@db.example:54x32/didvault', 'postgres://***'],
    ['postgres://didvault:hun/ter@2@db.example:5432/didvault', 'postgres://***'],
    ['mongodb://app:s3cret@cluster.example:27o17/db', 'mongodb://***'],
    ['https://rpc.example:8s45/v3/0123456789abcdef', 'https://***'],
  ])('%s → %s', (url, masked) => {
    expect(maskUrl(url, !/^(postgres|mongodb)/.test(url))).toBe(masked)
  })

  it('the printed config holds neither the storage password nor an rpcUrl or resolver key', () => {
    const secrets = ['hunter2-storage-password', '0123456789abcdef0123456789abcdef', 'resolver-key-12345678']
    const { config } = merge(
      [],
      {},
      {
        storage: `postgres://didvault:${secrets[0]}@db.example/didvault`,
        networks: [
          {
            name: 'sepolia',
            chainId: 11155111,
            rpcUrl: `https://sepolia.infura.io/v3/${secrets[1]}`,
            registry: '0x03d5003bf0e79C5F5223588F347ebA39AfbC3818',
          },
        ],
        resolvers: { uni: `https://uni.example/${secrets[2]}` },
      },
    )
    const printed = JSON.stringify(printableConfig(config))
    for (const secret of secrets) expect(printed).not.toContain(secret)
    expect(printed).toContain('postgres://didvault:***@db.example/didvault')
    expect(printed).toContain('https://sepolia.infura.io/v3/***')
  })
})

/**
 * The config file's schema: unknown keys and wrong values name their key path, JSON and YAML
 * load alike, relative paths follow the file, and the generated artefacts (the committed JSON
 * Schema, the settings table and the full example of docs/operations.md) agree with the schema.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { loadConfigFile, parseConfig } from '../../src/config/load.js'
import { settingsTable, TABLE_END, TABLE_START } from '../../src/config/reference.js'
import { configJsonSchema } from '../../src/config/schema.js'
import { configIssuesOf } from './issues-of.js'

const ROOT = join(import.meta.dirname, '../..')
const DOCS = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8')
const REGISTRY = '0x03d5003bf0e79C5F5223588F347ebA39AfbC3818'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-config-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const issuesOf = (value: unknown): string[] => configIssuesOf(value, dir)

describe('unknown keys and wrong values name their key path', () => {
  it.each([
    [{ prot: 8080 }, 'prot: unknown key'],
    [{ networks: [{ name: 'dev', chainId: 1337, rpc: 'http://x' }] }, 'networks[0].rpc: unknown key'],
    [{ limits: { jsonld: { maxNode: 5 } } }, 'limits.jsonld.maxNode: unknown key'],
    [{ tokens: { lifetime: 5 } }, 'tokens.lifetime: unknown key'],
    [{ log: { colour: true } }, 'log.colour: unknown key'],
    [{ metrics: { path: '/m' } }, 'metrics.path: unknown key'],
    [
      { masterKey: 'x'.repeat(64) },
      'masterKey: unknown key (the master key is never a config setting: DIDVAULT_MASTER_KEY (or the SQLite <db>.key file))',
    ],
    [{ apiKeys: 'acme:k' }, 'apiKeys: unknown key (API keys are never config settings: DIDVAULT_API_KEYS, or didvault keys create)'],
  ])('unknown key %j → %s', (value, line) => {
    expect(issuesOf(value)).toEqual([line])
  })

  it.each([
    [{ port: '8080' }, /^port: Invalid input: expected number, received string$/],
    [{ port: 70000 }, /^port: Too big/],
    [{ workers: 0 }, /^workers: /],
    [{ workers: 'many' }, /^workers: /],
    [{ host: '' }, /^host: Too small/],
    [{ storage: 'redis://x' }, /^storage: must be memory, sqlite:<path>/],
    [{ cors: ['https://app.example.com/path'] }, /^cors\[0\]: not an origin/],
    [{ cors: 'https://app.example.com' }, /^cors: Invalid input: expected array/],
    [{ publicUrl: 'https://id.example.com/?q=1' }, /^publicUrl: must have no query or fragment$/],
    [{ publicUrl: 'ftp://id.example.com' }, /^publicUrl: must be an http\(s\) URL$/],
    [
      { statusListOrigins: ['https://ok.example', 'http://lists.example'] },
      /^statusListOrigins\[1\]: "http:\/\/lists\.example" must be an origin/,
    ],
    [
      { didWebOrigins: ['https://ok.example', 'http://issuers.example'] },
      /^didWebOrigins\[1\]: "http:\/\/issuers\.example" must be an origin/,
    ],
    [{ didWebOrigins: ['https://issuers.example/dids'] }, /^didWebOrigins\[0\]: "https:\/\/issuers\.example\/dids" must be an origin/],
    [{ contexts: { 'relative/c': './c.jsonld' } }, /^contexts\["relative\/c"\]: not an absolute http\(s\) or urn URL$/],
    [{ contexts: { 'https://example.com/c': 5 } }, /^contexts\["https:\/\/example\.com\/c"\]: Invalid input: expected string/],
    [{ networks: [{ name: 'x', chainId: 1, rpcUrl: 'not a url', registry: REGISTRY }] }, /^networks\[0\]\.rpcUrl: Invalid URL$/],
    [{ networks: [{ name: 'x', chainId: 1, rpcUrl: 'ws://127.0.0.1:8545', registry: REGISTRY }] }, /^networks\[0\]\.rpcUrl: Invalid URL$/],
    [
      { networks: [{ name: 'x', chainId: 1, rpcUrl: 'http://127.0.0.1:8545', registry: '0x1234' }] },
      /^networks\[0\]\.registry: must be an address/,
    ],
    [{ networks: [{ name: 'x', chainId: 1, rpcUrl: 'http://127.0.0.1:8545' }] }, /^networks\[0\]: rpcUrl and registry go together/],
    [{ networks: [{ name: 'x', chainId: 1, gasPayerKeyFile: 'k' }] }, /^networks\[0\]\.gasPayerKeyFile: only an on-chain network/],
    [{ networks: [{ name: 'x', chainId: -1 }] }, /^networks\[0\]\.chainId: Too small/],
    [{ networks: [{ name: 'a b', chainId: 1 }] }, /^networks\[0\]\.name: must be 1-50 letters/],
    [
      {
        networks: [
          { name: 'x', chainId: 1 },
          { name: 'x', chainId: 2 },
        ],
      },
      /^networks\[1\]\.name: network x is listed twice$/,
    ],
    [{ networks: [] }, /^networks: Too small/],
    [{ resolvers: { default: 'https://r.example' } }, /^resolvers\.default: "default" is the service’s own resolver/],
    [{ resolvers: { 'a b': 'https://r.example' } }, /^resolvers\["a b"\]: a name is 1-50 letters/],
    [{ resolvers: { uni: 'file:///etc/passwd' } }, /^resolvers\.uni: Invalid URL$/],
    [{ limits: { body: '1 lightyear' } }, /^limits\.body: /],
    [{ limits: { batch: 0 } }, /^limits\.batch: Too small/],
    [{ limits: { jsonld: { maxDepth: 257 } } }, /^limits\.jsonld\.maxDepth: Too big: expected number to be <=256$/],
    [{ limits: { depth: 1_025 } }, /^limits\.depth: Too big: expected number to be <=1024$/],
    [{ limits: { depth: 40 } }, /^limits\.depth: must be at least limits\.jsonld\.maxDepth \+ 16 = 32 \+ 16 = 48, got 40$/],
    [
      { limits: { jsonld: { maxDepth: 100 } } },
      /^limits\.depth: must be at least limits\.jsonld\.maxDepth \+ 16 = 100 \+ 16 = 116, got 64$/,
    ],
    [{ tokens: { defaultLifetimeMs: 10, maxLifetimeMs: 5 } }, /^tokens\.defaultLifetimeMs: must be at most maxLifetimeMs$/],
    [{ tokens: { audience: 7 } }, /^tokens\.audience: Invalid input: expected string/],
    [{ log: { level: 'loud' } }, /^log\.level: Invalid option/],
    [{ metrics: { enabled: 'yes' } }, /^metrics\.enabled: Invalid input: expected boolean/],
    [{ metrics: { port: -1 } }, /^metrics\.port: Too small/],
    [{ shutdown: { drainMs: 1.5 } }, /^shutdown\.drainMs: Invalid input: expected int/],
    [{ shutdown: { drainMs: 3_600_001 } }, /^shutdown\.drainMs: Too big/],
    [{ shutdown: { graceMs: 1 } }, 'shutdown.graceMs: unknown key'],
  ])('%j → %s', (value, line) => {
    const issues = issuesOf(value)
    expect(issues, issues.join('\n')).toHaveLength(1)
    expect(issues[0]).toMatch(line)
  })

  it('every problem of a file is named, each with its path', () => {
    expect(issuesOf({ port: 'x', bogus: 1, networks: [{ name: 'n', chainId: 1, rpcUrl: 'nope', registry: REGISTRY }] })).toEqual([
      'port: Invalid input: expected number, received string',
      'networks[0].rpcUrl: Invalid URL',
      'bogus: unknown key',
    ])
  })

  it('a file that is not an object, or not JSON / YAML, or not there, is named with the reason', () => {
    expect(issuesOf([1, 2])).toEqual(['(top level): Invalid input: expected object, received array'])
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, '{ "port": 8080,, }')
    expect(() => loadConfigFile(bad)).toThrow(/bad\.json: not JSON: /)
    const badYaml = join(dir, 'bad.yaml')
    writeFileSync(badYaml, 'port: [8080\n')
    expect(() => loadConfigFile(badYaml)).toThrow(/bad\.yaml: not YAML: /)
    expect(() => loadConfigFile(join(dir, 'missing.json'))).toThrow(/missing\.json: cannot read the file \(ENOENT\)/)
  })
})

describe('loading', () => {
  const settings = {
    port: 9000,
    storage: 'memory',
    cors: ['HTTPS://App.Example.com:443'],
    networks: [{ name: 'sepolia', chainId: 11155111, rpcUrl: 'https://rpc.example/v3/key', registry: REGISTRY }],
    tokens: { audience: 'id.example.com' },
    log: { level: 'debug' },
  }

  it('JSON and YAML (.yaml, .yml) give the same settings; values come out in canonical spelling', () => {
    const json = join(dir, 'c.json')
    const yaml = join(dir, 'c.yaml')
    const yml = join(dir, 'c.yml')
    writeFileSync(json, JSON.stringify(settings))
    writeFileSync(
      yaml,
      `port: 9000\nstorage: memory\ncors: [HTTPS://App.Example.com:443]\nnetworks:\n  - name: sepolia\n    chainId: 11155111\n` +
        `    rpcUrl: https://rpc.example/v3/key\n    registry: '${REGISTRY}'\ntokens:\n  audience: id.example.com\nlog:\n  level: debug\n`,
    )
    writeFileSync(yml, readFileSync(yaml))
    const loaded = loadConfigFile(json)
    expect(loaded).toEqual({ ...settings, cors: ['https://app.example.com'] })
    expect(loadConfigFile(yaml)).toEqual(loaded)
    expect(loadConfigFile(yml)).toEqual(loaded)
  })

  it('an empty file (YAML null) is an empty config; $schema is allowed and ignored by the service', () => {
    const empty = join(dir, 'empty.yaml')
    writeFileSync(empty, '')
    expect(loadConfigFile(empty)).toEqual({})
    expect(parseConfig({ $schema: './x.json' }, 'x.json', dir)).toEqual({ $schema: './x.json' })
  })

  it('relative context files, sqlite: paths and gas payer key files are resolved against the file’s directory; absolute ones kept', () => {
    const file = join(dir, 'sub', 'c.json')
    const value = {
      storage: 'sqlite:data/x.db',
      contexts: { 'https://example.com/a': './ctx/a.jsonld', 'urn:example:b': '/abs/b.jsonld' },
      networks: [{ name: 'n', chainId: 1, rpcUrl: 'http://127.0.0.1:8545', registry: REGISTRY, gasPayerKeyFile: 'gas.key' }],
    }
    const parsed = parseConfig(value, file, join(dir, 'sub'))
    expect(parsed.storage).toBe(`sqlite:${join(dir, 'sub/data/x.db')}`)
    expect(parsed.contexts).toEqual({ 'https://example.com/a': join(dir, 'sub/ctx/a.jsonld'), 'urn:example:b': '/abs/b.jsonld' })
    expect(parsed.networks![0].gasPayerKeyFile).toBe(join(dir, 'sub/gas.key'))
    expect(parseConfig({ storage: 'sqlite::memory:' }, file, dir).storage).toBe('sqlite::memory:')
    expect(parseConfig({ storage: { url: 'sqlite:data/x.db', synchronous: 'normal' } }, file, join(dir, 'sub')).storage).toEqual({
      url: `sqlite:${join(dir, 'sub/data/x.db')}`,
      synchronous: 'normal',
    })
    expect(parseConfig({ storage: 'sqlite:/var/lib/x.db' }, file, dir).storage).toBe('sqlite:/var/lib/x.db')
  })
})

describe('generated artefacts', () => {
  const committed = JSON.parse(readFileSync(join(ROOT, 'schemas/didvault.config.schema.json'), 'utf8'))

  it('the committed JSON Schema is the one generated from the zod schema (run npm run config:schema)', () => {
    expect(committed).toEqual(configJsonSchema())
  })

  it('package.json ships it as didvault/config.schema.json', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(pkg.exports['./config.schema.json']).toBe('./schemas/didvault.config.schema.json')
    expect(pkg.files).toContain('schemas')
  })

  it('the settings table of docs/operations.md is the one generated from the schema, with a row for every key', () => {
    const start = DOCS.indexOf(TABLE_START)
    const end = DOCS.indexOf(TABLE_END)
    expect(start).toBeGreaterThan(0)
    expect(DOCS.slice(start + TABLE_START.length, end).trim()).toBe(settingsTable(configJsonSchema()))
    const leaves = (node: any, prefix: string): string[] =>
      Object.entries(node.properties ?? {}).flatMap(([key, child]: [string, any]) => {
        if (key === '$schema') return []
        if (child.type === 'object' && child.properties) return leaves(child, `${prefix}${key}.`)
        const items = child.type === 'array' && child.items?.properties ? leaves(child.items, `${prefix}${key}[].`) : []
        return [`${prefix}${key}`, ...items]
      })
    const keys = leaves(committed, '')
    expect(keys).toContain('networks[].rpcUrl')
    expect(keys).toContain('limits.jsonld.maxDepth')
    for (const key of keys) expect(DOCS).toContain(`| \`${key}\` |`)
    for (const env of ['DIDVAULT_CONFIG', 'DIDVAULT_STORAGE', 'DIDVAULT_MASTER_KEY', 'DIDVAULT_API_KEYS'])
      expect(DOCS).toContain(`\`${env}\``)
  })

  /** The YAML block after `<!-- config-example -->`. */
  const example = () => parseYaml(/<!-- config-example -->\s*```yaml\n([\s\S]*?)```/.exec(DOCS)![1])

  it('the full example of docs/operations.md parses, and sets every section', () => {
    const parsed = parseConfig(example(), 'didvault.yaml', dir)
    expect(Object.keys(parsed).sort()).toEqual(Object.keys(committed.properties).sort())
    expect(parsed.networks![0].gasPayerKeyFile).toBe(join(dir, 'secrets/sepolia-gas-payer.key'))
  })

  it('the JSON Schema accepts the example and refuses an unknown key or a wrong type, as zod does', () => {
    const ajv = new Ajv2020({ strict: false })
    const validate = ajv.compile(committed)
    expect(validate(example()), JSON.stringify(validate.errors)).toBe(true)
    expect(validate({ ...example(), tokenz: {} })).toBe(false)
    expect(validate({ port: '8080' })).toBe(false)
    expect(validate({ networks: [{ name: 'x', chainId: 1, extra: 1 }] })).toBe(false)
  })
})

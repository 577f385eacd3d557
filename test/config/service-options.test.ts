/** The config file's sections as `IdentityService.create` options: gas payers from key files, resolvers, limits, tokens. */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet } from 'ethers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { serviceOptionsOf } from '../../src/config/service-options.js'
import { IdentityService } from '../../src/service/identity-service.js'
import { createMemoryStorage } from '../../src/storage/memory/index.js'
import { randomMasterKey } from '../../src/keys/keyring.js'

const REGISTRY = '0x03d5003bf0e79C5F5223588F347ebA39AfbC3818'
const onchain = (gasPayerKeyFile: string) => [{ name: 'n', chainId: 1, rpcUrl: 'http://127.0.0.1:1', registry: REGISTRY, gasPayerKeyFile }]

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-config-options-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function keyFile(text: string, mode = 0o600): string {
  const path = join(dir, 'gas.key')
  writeFileSync(path, text)
  chmodSync(path, mode)
  return path
}

describe('serviceOptionsOf', () => {
  it('no section: no option', () => {
    expect(serviceOptionsOf({})).toEqual({})
  })

  it('a gas payer key file (0x or bare hex) becomes the network’s gas payer; the key file’s path is not a network field', async () => {
    const wallet = Wallet.createRandom()
    for (const text of [wallet.privateKey, wallet.privateKey.slice(2)]) {
      const options = serviceOptionsOf({ networks: onchain(keyFile(`${text}\n`)) })
      expect(options.networks).toEqual([{ name: 'n', chainId: 1, rpcUrl: 'http://127.0.0.1:1', registry: REGISTRY }])
      expect(await options.onchain!.n.gasPayer!.getAddress()).toBe(wallet.address)
    }
  })

  it.each([
    ['readable by others', `${'ab'.repeat(32)}\n`, 0o644, /gas\.key is readable by others \(mode 644\): chmod 600 it/],
    ['not a key', 'hello\n', 0o600, /gas\.key does not hold a 64-hex-character private key/],
  ])('a gas payer key file %s is refused, naming it', (_case, text, mode, message) => {
    expect(() => serviceOptionsOf({ networks: onchain(keyFile(text, mode)) })).toThrow(message)
  })

  it('a missing gas payer key file is refused, naming it', () => {
    expect(() => serviceOptionsOf({ networks: onchain(join(dir, 'none.key')) })).toThrow(
      /gasPayerKeyFile .*none\.key: cannot read the file \(ENOENT\)/,
    )
  })

  it('resolvers, limits and tokens reach the service: its config and resolver names show them', async () => {
    const options = serviceOptionsOf({
      networks: [{ name: 'dev2', chainId: 5 }],
      resolvers: { uni: 'https://uni.example' },
      limits: { depth: 30, batch: 7, jsonld: { maxDepth: 12 }, body: '1kb' },
      tokens: { audience: 'aud.example', defaultLifetimeMs: 1000, maxLifetimeMs: 2000 },
    })
    expect(options.limits).toEqual({
      depth: 30,
      batch: 7,
      jsonld: { maxDepth: 12 },
      tokenDefaultLifetimeMs: 1000,
      tokenMaxLifetimeMs: 2000,
    })
    expect(options.audience).toBe('aud.example')
    expect(typeof options.resolvers!.uni.resolve).toBe('function')
    const service = await IdentityService.create({ storage: createMemoryStorage(), masterKey: randomMasterKey(), ...options })
    try {
      expect(service.config.audience).toBe('aud.example')
      expect(service.config.network).toEqual({ name: 'dev2', chainId: 5 })
      expect(service.config.limits).toMatchObject({ depth: 30, batch: 7, tokenDefaultLifetimeMs: 1000, tokenMaxLifetimeMs: 2000 })
      expect(service.config.limits.jsonld.maxDepth).toBe(12)
    } finally {
      await service.close()
    }
  })
})

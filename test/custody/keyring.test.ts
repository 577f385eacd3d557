import { describe, expect, it } from 'vitest'
import { Keyring, KeyringError, masterKeyFrom, randomMasterKey } from '../../src/keys/keyring.js'

describe('Keyring', () => {
  const secret = new TextEncoder().encode('a secret')

  it('seals with a fresh nonce each time and opens with the same context', () => {
    const k = new Keyring(randomMasterKey())
    const a = k.seal(secret, 't/wallets/1/privateKey')
    const b = k.seal(secret, 't/wallets/1/privateKey')
    expect(a).not.toBe(b)
    expect(new TextDecoder().decode(k.open(a, 't/wallets/1/privateKey'))).toBe('a secret')
    expect(Keyring.keyIdOf(a)).toBe(k.currentKeyId)
  })

  it("refuses another record's context, a tampered byte, a wrong key and junk", () => {
    const k = new Keyring(randomMasterKey())
    const env = k.seal(secret, 't/wallets/1/privateKey')
    expect(() => k.open(env, 't/wallets/2/privateKey')).toThrow(KeyringError)
    expect(() => k.open(env, 'u/wallets/1/privateKey')).toThrow(KeyringError)
    const flipped = env.slice(0, -4) + (env.slice(-4, -3) === '0' ? '1' : '0') + env.slice(-3)
    expect(() => k.open(flipped, 't/wallets/1/privateKey')).toThrow(KeyringError)
    expect(() => new Keyring(randomMasterKey()).open(env, 't/wallets/1/privateKey')).toThrow(/unknown master key/)
    expect(() => k.open('zz', 'x')).toThrow(KeyringError)
    expect(() => k.open(env.slice(0, -2) + 'zz', 't/wallets/1/privateKey')).toThrow(KeyringError)
  })

  it('rotation: the new key seals, old envelopes still open until old keys are dropped', () => {
    const oldKey = randomMasterKey()
    const k = new Keyring(oldKey)
    const env = k.seal(secret, 'c')
    const newKey = randomMasterKey()
    k.useKey(newKey)
    const resealed = k.reseal(env, 'c')
    expect(Keyring.keyIdOf(resealed)).toBe(k.currentKeyId)
    expect(Keyring.keyIdOf(env)).not.toBe(k.currentKeyId)
    k.dropOldKeys()
    expect(() => k.open(env, 'c')).toThrow(KeyringError)
    expect(new TextDecoder().decode(k.open(resealed, 'c'))).toBe('a secret')
  })

  it('master keys: 64 hex is the raw key; a passphrase is stretched with the salt', () => {
    const hex = 'ab'.repeat(32)
    expect(Buffer.from(masterKeyFrom(hex, 'salt')).toString('hex')).toBe(hex)
    const p1 = masterKeyFrom('correct horse', 'salt-1')
    expect(p1).toHaveLength(32)
    expect(Buffer.from(p1).equals(Buffer.from(masterKeyFrom('correct horse', 'salt-1')))).toBe(true)
    expect(Buffer.from(p1).equals(Buffer.from(masterKeyFrom('correct horse', 'salt-2')))).toBe(false)
    expect(() => masterKeyFrom('', 's')).toThrow(KeyringError)
    expect(() => new Keyring(new Uint8Array(16))).toThrow(KeyringError)
  })
})

describe('secretContext', () => {
  it('stays unambiguous when ids contain the separator', async () => {
    const { secretContext } = await import('../../src/keys/secret-context.js')
    const a = secretContext('wallets', { tenantId: 'a/wallets/x', id: 'y' }, 'privateKey')
    const b = secretContext('wallets', { tenantId: 'a', id: 'x/wallets/y' }, 'privateKey')
    expect(a).not.toBe(b)
  })
})

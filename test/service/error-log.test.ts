/**
 * The default error log: each error of the `cause` chain with message and stack, and no secret —
 * neither those the service is configured with nor values that look like one.
 */
import { describe, expect, it } from 'vitest'
import { generateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { describeError, redactor, secretFormsOfKey, secretPartsOfUrl } from '../../src/service/error-log.js'
import { randomMasterKey } from '../../src/keys/keyring.js'

const PROVIDER_KEY = 'SECRET-PROVIDER-KEY-123'
const RPC_URL = `https://mainnet.example.com/v3/${PROVIDER_KEY}?token=${PROVIDER_KEY}-q`

describe('describeError', () => {
  it('writes the message and stack of the error and of each cause, outermost first', () => {
    const root = new Error('disk full on /var/lib/didvault')
    const err = new Error('insert failed', { cause: new TypeError('statement failed', { cause: root }) })
    const text = describeError(err, redactor([]))
    const lines = text.split('\n')
    expect(lines[0]).toBe('Error: insert failed')
    expect(text).toMatch(/\n\s+at /)
    expect(text).toContain('caused by: TypeError: statement failed')
    expect(text).toContain('caused by: Error: disk full on /var/lib/didvault')
    expect(text.indexOf('statement failed')).toBeLessThan(text.indexOf('disk full'))
    // Every line after the first is indented: one entry for a log reader.
    for (const line of lines.slice(1)) expect(line).toMatch(/^\s/)
  })

  it('a cyclic cause chain ends; errors without a stack and values that are not errors are named', () => {
    const a = new Error('a')
    const b = new Error('b', { cause: a })
    a.cause = b
    expect(describeError(a, redactor([])).match(/caused by/g)).toHaveLength(1)
    const bare = new RangeError('no stack here')
    bare.stack = undefined
    expect(describeError(bare, redactor([]))).toBe('RangeError: no stack here')
    expect(describeError('plain string', redactor([]))).toBe('thrown string: plain string')
    expect(describeError({ secret: 'x' }, redactor([]))).toBe('thrown object (not an Error)')
  })
})

describe('redactor', () => {
  it('configured secrets: master keys in every text form, the key-bearing parts of an rpcUrl', () => {
    const key = randomMasterKey()
    const redact = redactor([...secretFormsOfKey(key), ...secretFormsOfKey('my passphrase'), ...secretPartsOfUrl(RPC_URL)])
    const forms = [...secretFormsOfKey(key), 'my passphrase', RPC_URL, PROVIDER_KEY, encodeURIComponent(`${PROVIDER_KEY}-q`)]
    const text = redact(forms.map((form) => `value <${form}> here`).join('\n'))
    for (const form of forms) expect(text).not.toContain(form)
    expect(text).not.toContain(PROVIDER_KEY)
    // The origin stays: the operator can tell which endpoint failed.
    expect(text).toContain('https://mainnet.example.com')
  })

  it('secret-looking values from anywhere: URL passwords, 32-byte hex, BIP39 mnemonics', () => {
    const redact = redactor([])
    const hex = 'ab'.repeat(32)
    const mnemonic = generateMnemonic(wordlist)
    const text = redact(`connect mongodb://admin:hunter2secret@db:27017/x key=0x${hex} raw ${hex.toUpperCase()} words: ${mnemonic}.`)
    expect(text).not.toContain('hunter2secret')
    expect(text).toContain('mongodb://admin:[redacted]@db:27017/x')
    expect(text).not.toContain(hex)
    expect(text).not.toContain(hex.toUpperCase())
    expect(text).not.toContain(mnemonic)
    expect(text).toContain('words: [redacted].')
  })

  it('keeps what an operator needs: addresses, public keys, ids, ordinary prose', () => {
    const redact = redactor([])
    const address = '0x' + 'cd'.repeat(20)
    const publicKey = '0x04' + 'ef'.repeat(64)
    const prose = 'unknown field "id" in collection "vaults" (declared fields: tenantId, createdAt)'
    const text = `${prose} ${address} ${publicKey} did:ethr:dev:${address}`
    expect(redact(text)).toBe(text)
  })
})

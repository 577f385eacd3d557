/**
 * The credential-format port (src/credentials/formats/): each registered format, reached only through the
 * registry, issues with a wallet's `KeySigner` (secp256k1 did:key, sealed backend on a real SQLite file), is
 * recognised from its encoded form and from the member that carries it, parses into the index fields of what it
 * issued with the content hash it gives, carries its status entries and subject, and verifies — tampered, it does
 * not. What Sign refuses per format: JSON-LD with a P-256 key, a VC-JWT without claims or with credentials/v2, an
 * SD-JWT VC with contexts, status or types. SD-JWT: recognised before JWT, indexed from its always-visible claims. And
 * every registered format runs the conformance suite of `didvault/testing` (src/testing/credential-format-conformance.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Resolver } from 'did-resolver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  carriedBy,
  credentialFormatNamed,
  credentialFormats,
  credentialFormatOf,
  memberOf,
  type CredentialContent,
  type EncodedCredential,
  type FormatName,
} from '../../src/credentials/formats/index.js'
import { KeyCustody } from '../../src/custody/key-custody.js'
import { didMethodNamed, didMethodNames } from '../../src/did/methods/index.js'
import { SEALED_KEYS, SealedKeyBackend } from '../../src/keys/backends/sealed/index.js'
import { Keyring, randomMasterKey } from '../../src/keys/keyring.js'
import { BackendKeyManager } from '../../src/keys/port.js'
import type { KeySigner } from '../../src/keys/signer.js'
import { IdentityError } from '../../src/errors.js'
import { CREDENTIALS_V2_URL } from '../../src/proofs/jsonld/contexts.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { WalletSigners } from '../../src/wallets/signers.js'
import { runCredentialFormatConformance } from '../../src/testing/index.js'

const NAMES: FormatName[] = ['JSON-LD', 'JWT', 'VC-JOSE']
const LIMITS = { depth: 64, jsonld: { maxNodes: 10_000, maxArrayLength: 1_000, maxStringLength: 100_000, maxDepth: 32 } }
const resolver = new Resolver(Object.fromEntries(didMethodNames().map((name) => [name, (did) => didMethodNamed(name)!.resolve(did)])), {
  cache: false,
})

let dir: string
let storage: StorageAdapter
let issuer: string
let signer: KeySigner

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-formats-'))
  storage = createSqliteStorage({ path: join(dir, 'db.sqlite') })
  await storage.init([SEALED_KEYS])
  const keyring = new Keyring(randomMasterKey())
  const keys = new BackendKeyManager({ sealed: new SealedKeyBackend(storage, keyring) }, 'sealed')
  const noMpc = { signerFor: () => expect.unreachable(), authorize: () => expect.unreachable() }
  const { keyRef, publicJwk } = await keys.createKey({ tenantId: 't', type: 'secp256k1' })
  issuer = (await didMethodNamed('key')!.create({ publicJwk })).did
  const record = { tenantId: 't', id: issuer, did: issuer, keyRef, publicKeyJwk: publicJwk, publicKeyHex: '', ethereumAddress: '' }
  signer = new WalletSigners(new KeyCustody(keyring), keys, noMpc).signerFor(record)
})
afterAll(async () => {
  await storage.close()
  rmSync(dir, { recursive: true, force: true })
})

const issuedAt = Date.UTC(2026, 0, 1)
const status = { id: 'https://issuer.example/status/1#7', type: 'BitstringStatusListEntry', statusPurpose: 'revocation' }
const content = (contexts: CredentialContent['contexts']): CredentialContent => ({
  id: 'urn:uuid:5b7c9d1e-0000-4000-8000-000000000031',
  issuer,
  subject: 'did:example:holder',
  claims: { degree: 'BSc' },
  contexts,
  types: ['UniversityDegreeCredential'],
  issuedAt,
  expiresAt: issuedAt + 86_400_000,
  status: [status],
})

/** `encoded` with one character of its signed content changed. */
function tampered(encoded: EncodedCredential): EncodedCredential {
  if (typeof encoded === 'string') {
    const [header, payload, signature] = encoded.split('.')
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {
      vc?: { credentialSubject: Record<string, unknown> }
      credentialSubject: Record<string, unknown>
    }
    // A VC-JWT carries the credential in `vc`, a VC-JOSE credential is the payload itself.
    ;(body.vc ?? body).credentialSubject.degree = 'PhD'
    return `${header}.${Buffer.from(JSON.stringify(body)).toString('base64url')}.${signature}`
  }
  return { ...encoded, credentialSubject: { id: 'did:example:holder', degree: 'PhD' } }
}

describe.each(NAMES)('the %s format through the registry', (name) => {
  const format = credentialFormatNamed(name)

  it('issues what it recognises, parses into the index fields and content hash, carries status and subject, and verifies', async () => {
    expect(format.name).toBe(name)
    const contexts = format.contextsOf({ claims: { degree: 'BSc' }, named: [], withStatus: true }, 'claims.0')
    const encoded = await format.issue(content(contexts), signer, { resolver })
    expect(credentialFormatOf(encoded)).toBe(format)
    expect(carriedBy(memberOf(encoded))).toEqual({ format, encoded })
    expect(Object.keys(memberOf(encoded))).toEqual([format.member])

    const parsed = await format.parse(encoded, LIMITS)
    expect(parsed).toMatchObject({
      format: name,
      encoded,
      vcId: 'urn:uuid:5b7c9d1e-0000-4000-8000-000000000031',
      issuer,
      subject: 'did:example:holder',
      issuanceDate: new Date(issuedAt).toISOString(),
      expirationDate: new Date(issuedAt + 86_400_000).toISOString(),
      hash: format.contentHash(encoded),
    })
    expect(parsed.types).toEqual(['VerifiableCredential', 'UniversityDegreeCredential'])
    expect(format.assemble(parsed.encoded, parsed.disclosures ?? [])).toEqual(encoded)
    expect(format.contentHash(tampered(encoded))).not.toBe(parsed.hash)
    expect(format.document(encoded)?.credentialStatus).toEqual(status)
    expect(format.subjects(encoded)).toEqual(['did:example:holder'])

    const verified = await format.verify(encoded, { resolver, now: issuedAt + 1000 })
    expect(verified).toMatchObject({ verified: true, issuer })
    const forged = await format.verify(tampered(encoded), { resolver, now: issuedAt + 1000 })
    expect(forged.verified).toBe(false)
  })

  it('refuses, with a 422 naming the field, what it cannot parse', async () => {
    const other = name === 'JWT' || name === 'VC-JOSE' ? 'not.a.jwt' : { type: ['VerifiableCredential'] }
    await expect(format.parse(other as never, LIMITS)).rejects.toThrow(IdentityError)
    await expect(format.parse(other as never, LIMITS)).rejects.toThrow(new RegExp(`^${format.member}: `))
  })
})

describe('what Sign refuses per format', () => {
  it('JSON-LD: a suite that does not sign with the key’s type; credentials/v1 with status', () => {
    const jsonLd = credentialFormatNamed('JSON-LD')
    expect(() => jsonLd.assertSigns('P-256', { cryptosuite: 'eddsa-rdfc-2022' })).toThrow(
      /^cryptosuite: DataIntegrityProof \(eddsa-rdfc-2022\) signs with Ed25519 keys, not P-256/,
    )
    for (const keyType of ['secp256k1', 'P-256', 'Ed25519'] as const) expect(() => jsonLd.assertSigns(keyType)).not.toThrow()
    expect(() => jsonLd.contextsOf({ claims: {}, named: ['https://www.w3.org/2018/credentials/v1'], withStatus: true }, 'c')).toThrow(
      /^c: a JSON-LD credential with status must be data model 2\.0/,
    )
    expect(jsonLd.contextsOf({ claims: {}, named: [], withStatus: true }, 'c')).toEqual([CREDENTIALS_V2_URL])
  })

  it('JWT: every key type signs; no claims, or credentials/v2, is 422', () => {
    const jwt = credentialFormatNamed('JWT')
    expect(() => jwt.assertSigns('P-256')).not.toThrow()
    expect(() => jwt.contextsOf({ claims: {}, named: [], withStatus: false }, 'c')).toThrow(/^c\.payload: a JWT credential needs/)
    expect(() => jwt.contextsOf({ claims: { a: 1 }, named: [CREDENTIALS_V2_URL], withStatus: false }, 'c')).toThrow(
      /is for JSON-LD credentials/,
    )
  })
})

describe('the SD-JWT format through the registry', () => {
  const format = credentialFormatNamed('SD-JWT')
  const holderJwk = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' } as const
  const sdContent = (): CredentialContent => ({
    ...content([]),
    id: '',
    types: [],
    status: undefined,
    claims: { degree: 'BSc', school: 'TU' },
    sdJwt: { vct: 'UniversityDegree', holderJwk },
  })

  it('issues what it recognises (before JWT), parses always-visible claims into the index fields, and verifies', async () => {
    expect(format).toMatchObject({ name: 'SD-JWT', member: 'sdjwt', claimDids: false })
    const encoded = (await format.issue(sdContent(), signer, { resolver })) as string
    expect(credentialFormatOf(encoded)).toBe(format)
    expect(carriedBy(memberOf(encoded))).toEqual({ format, encoded })
    const parsed = await format.parse(encoded, LIMITS)
    // The record keeps the issuer-signed JWT; the disclosures come apart (the store seals them).
    const [issuerSigned, ...disclosures] = encoded.split('~').slice(0, -1)
    expect(parsed).toEqual({
      format: 'SD-JWT',
      encoded: issuerSigned,
      disclosures,
      issuer,
      subject: 'did:example:holder',
      types: ['UniversityDegree'],
      issuanceDate: new Date(issuedAt).toISOString(),
      expirationDate: new Date(issuedAt + 86_400_000).toISOString(),
      hash: format.contentHash(encoded),
    })
    expect(format.assemble(parsed.encoded, disclosures)).toBe(encoded)
    // another disclosure set is other content
    const [jwt, first] = encoded.split('~')
    expect(format.contentHash(`${jwt}~${first}~`)).not.toBe(parsed.hash)
    // a disclosure given twice, or a KB-JWT after the disclosures: no credential to store
    await expect(format.parse(`${jwt}~${first}~${first}~`, LIMITS)).rejects.toThrow(/^sdjwt: a disclosure is given twice/)
    await expect(format.parse(`${encoded}${jwt}`, LIMITS)).rejects.toThrow(/^sdjwt: a credential, not a presentation/)
    expect(format.subjects(encoded)).toEqual(['did:example:holder'])
    expect(format.document(encoded)).toBeUndefined()

    const verified = await format.verify(encoded, { resolver, now: issuedAt + 1000 })
    expect(verified).toMatchObject({ verified: true, issuer, disclosed: { degree: 'BSc', school: 'TU', sub: 'did:example:holder' } })
    const forged = await format.verify(`${jwt}~${first}~${first}~`, { resolver, now: issuedAt + 1000 })
    expect(forged).toMatchObject({ verified: false })
    expect(forged.disclosed).toBeUndefined()
  })

  it('refuses, with a 422 naming sdjwt, what it cannot parse; refuses contexts and types at sign, takes status (Token Status List)', async () => {
    for (const other of ['not.a.jwt~', 'a.b.c~d~e.f.g', 'x'.repeat(512 * 1024 + 1)]) {
      await expect(format.parse(other, LIMITS)).rejects.toThrow(IdentityError)
      await expect(format.parse(other, LIMITS)).rejects.toThrow(/^sdjwt: /)
    }
    expect(() => format.contextsOf({ claims: {}, named: ['https://example.com/c'], withStatus: false }, 'c')).toThrow(/^c\.context: /)
    expect(format.contextsOf({ claims: {}, named: [], withStatus: true }, 'c')).toEqual([])
    expect(() => format.checkContent({ ...sdContent(), types: ['T'] }, 'c', LIMITS)).toThrow(/^c\.type: /)
  })
})

// Every registered format, through the shared suite: the issuer a secp256k1 did:key behind the key port (which every
// format signs with), on a real SQLite file.
for (const format of credentialFormats()) {
  runCredentialFormatConformance(format, async () => ({ signer, issuer, resolver }))
}

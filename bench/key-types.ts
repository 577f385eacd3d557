/**
 * Per key type (secp256k1, P-256, Ed25519; did:key wallets), each measured interleaved with its
 * floor in the same run (issue 30, *Performance*):
 *
 * - wallet creation through the service (`generateWallet` with `walletConfig.keyType`) vs its
 *   floor: key generation (noble, as the key port generates), the keyring's seal of the private
 *   key, and one insert of a record into the same storage (./wallet-floor.ts);
 * - VC-JWT sign through the service (`signClaims`, format JWT) vs did-jwt-vc's
 *   `createVerifiableCredentialJwt` with the same key (opened from the bench's own storage) signing
 *   through node:crypto. Where the access policy does not yet let a did:key wallet's own token
 *   sign as it (403), the service's signing path below the operation is measured instead —
 *   `issueJwtCredential` with the wallet's signer over the service's storage (key record read,
 *   unsealed, signed, did-jwt-vc) — and `jwtVcSign.path` says which (`operation` or `signer`);
 * - that signing path alone (`jwtVcSignSigner`, always measured) vs the same floor: what key custody costs (the key
 *   record read, the envelope opened, the private key imported into OpenSSL or noble, signed and wiped) apart from what
 *   the operation adds around it (the caller's token verified, the issuer's control checked, the audit record
 *   committed to SQLite, synchronous FULL);
 * - VC-JWT verify through the service (`verifyClaims`) vs did-jwt-vc's `verifyCredential` of the
 *   same JWT against an in-memory did:key resolver (the documents resolved once, kept in a map).
 */
import { createPrivateKey, randomUUID, sign as nodeSign, type KeyObject } from 'node:crypto'
import { createVerifiableCredentialJwt, verifyCredential } from 'did-jwt-vc'
import type { Resolvable } from 'did-resolver'
import { IdentityService, randomMasterKey, staticTenants } from '../src/index.js'
import type { StorageAdapter } from '../src/index.js'
import { openKeyring } from '../src/custody/keyring-store.js'
import { didMethodNamed } from '../src/did/methods/index.js'
import { issueJwtCredential } from '../src/credentials/formats/jwt/issue.js'
import { KeyCustody } from '../src/custody/key-custody.js'
import { SEALED_KEYS, SealedKeyBackend, sealedKeyId, type SealedKeyRecord } from '../src/keys/backends/sealed/index.js'
import { BackendKeyManager } from '../src/keys/port.js'
import { WalletSigners } from '../src/wallets/signers.js'
import { KEY_TYPES, type KeyType } from '../src/keys/key-types.js'
import { secretContext } from '../src/keys/secret-context.js'
import type { WalletRecord } from '../src/wallets/records.js'
import { measurePair, type MeasureOptions, type Measurement } from './measure.js'
import { adapterWalletInsert, rawKeyWalletCreation } from './wallet-floor.js'

const API_KEY = 'bench-key-types-api-key-0123456789'
const ALG: Record<KeyType, 'ES256K' | 'ES256' | 'EdDSA'> = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' }

export interface Paired {
  ours: Measurement
  floor: Measurement
  ratio: number
}

export interface KeyTypeResults {
  walletCreation: Paired
  /** `operation`: Sign Claims; `signer`: the wallet's signer and issueJwtCredential (the operation refused the wallet's token). */
  jwtVcSign: Paired & { path: 'operation' | 'signer' }
  /** The wallet's signer and issueJwtCredential over the service's storage, whatever `jwtVcSign.path` is. */
  jwtVcSignSigner: Paired
  jwtVcVerify: Paired
}

const round = (n: number) => Number(n.toFixed(3))
const fail = (what: string): never => {
  throw new Error(`bench: ${what} unexpected`)
}

/** The node:crypto private key of a wallet's sealed key, opened with the bench's master key. */
async function nodeKeyOf(storage: StorageAdapter, masterKey: Uint8Array, tenantId: string, keyRef: string): Promise<KeyObject> {
  const thumbprint = keyRef.slice('sealed:'.length)
  const record = await storage.collection<SealedKeyRecord>(SEALED_KEYS.name).get(sealedKeyId(tenantId, thumbprint))
  if (!record) throw new Error(`bench: no sealed key ${keyRef}`)
  const keyring = await openKeyring(storage, masterKey)
  const d = keyring.open(record.privateKey, secretContext(SEALED_KEYS.name, record, 'privateKey'))
  try {
    return createPrivateKey({ key: { ...record.publicJwk, d: Buffer.from(d).toString('base64url') }, format: 'jwk' })
  } finally {
    d.fill(0)
  }
}

/** did-jwt's `Signer` over a node:crypto key: JOSE signatures (r‖s for ECDSA). */
function nodeSigner(type: KeyType, key: KeyObject) {
  return async (data: string | Uint8Array) => {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data
    const signature = type === 'Ed25519' ? nodeSign(null, bytes, key) : nodeSign('sha256', bytes, { key, dsaEncoding: 'ieee-p1363' })
    return signature.toString('base64url')
  }
}

/** Measures each key type on `storage` (a fresh database: the service's and the floor's records share it). */
export async function benchKeyTypes(
  label: string,
  storage: StorageAdapter,
  options: MeasureOptions,
): Promise<Record<KeyType, KeyTypeResults>> {
  const masterKey = randomMasterKey()
  const tenantId = 'bench-key-types'
  const service = await IdentityService.create({ storage, masterKey, tenants: staticTenants({ [API_KEY]: tenantId }) })
  const pair = async (a: Parameters<typeof measurePair>[0], b: Parameters<typeof measurePair>[1]): Promise<Paired> => {
    const [ours, floor] = await measurePair(a, b, options)
    return { ours, floor, ratio: round(ours.opsPerSec / floor.opsPerSec) }
  }
  // The service's signing path below the operation, over the same storage and master key (see jwtVcSign.path).
  const keyring = await openKeyring(storage, masterKey)
  const keys = new BackendKeyManager({ sealed: new SealedKeyBackend(storage, keyring) }, 'sealed')
  const noMpc = { signerFor: () => fail('MPC'), authorize: () => fail('MPC') }
  const signers = new WalletSigners(new KeyCustody(keyring), keys, noMpc)
  try {
    const authorization = `Bearer ${API_KEY}`
    const api = service.as({ authorization })
    const results = {} as Record<KeyType, KeyTypeResults>
    for (const keyType of KEY_TYPES) {
      const walletConfig = { didMethod: 'key', keyType } as const
      const walletCreation = await pair(
        { label: `${label}: ${keyType} did:key wallet creation (service)`, fn: () => api.generateWallet({ walletConfig }) },
        rawKeyWalletCreation(`${label}: ${keyType}`, keyType, adapterWalletInsert(storage)),
      )

      const { wallet } = await api.generateWallet({ walletConfig })
      const did = wallet.did
      const as = service.as({ authorization, didAuth: (await api.generateToken({ iss: did })).jwt })
      const claim = () => ({ id: `urn:uuid:${randomUUID()}`, payload: { degree: 'BSc', n: Math.random() } })
      const keyRef = (await storage.collection<WalletRecord>('wallets').get(wallet._id))?.keyRef
      if (keyRef === undefined) throw new Error(`bench: wallet ${did} has no keyRef`)
      const signer = nodeSigner(keyType, await nodeKeyOf(storage, masterKey, tenantId, keyRef))
      const { didDocument } = await didMethodNamed('key')!.resolve(did)
      const kid = (didDocument!.assertionMethod![0] as string) ?? did
      const vc = { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'] }
      const operation = () => as.signClaims({ iss: did, format: 'JWT', claims: [claim()] })
      const path = await operation().then(
        () => 'operation' as const,
        () => 'signer' as const,
      )
      const record = (await storage.collection<WalletRecord>('wallets').get(wallet._id))!
      const walletSigner = signers.signerFor(record)
      const credential = () => ({
        id: `urn:uuid:${randomUUID()}`,
        issuer: did,
        claims: claim().payload,
        contexts: [],
        types: [],
        issuedAt: Date.now(),
      })
      const viaSigner = () => issueJwtCredential(credential(), walletSigner)
      const floor = {
        label: `${label}: ${keyType} createVerifiableCredentialJwt, node:crypto (interleaved)`,
        fn: () =>
          createVerifiableCredentialJwt(
            { jti: `urn:uuid:${randomUUID()}`, nbf: Math.floor(Date.now() / 1000), vc: { ...vc, credentialSubject: claim().payload } },
            { did, signer, alg: ALG[keyType] },
            { header: { kid } },
          ),
      }
      const jwtVcSign = await pair(
        { label: `${label}: ${keyType} JWT VC sign (service, ${path})`, fn: path === 'operation' ? operation : viaSigner },
        floor,
      )
      const jwtVcSignSigner = await pair({ label: `${label}: ${keyType} JWT VC sign (service, signer)`, fn: viaSigner }, floor)

      const signed = { jwt: await issueJwtCredential(credential(), walletSigner) }
      const documents = new Map([[did, await didMethodNamed('key')!.resolve(did)]])
      const inMemory: Resolvable = { resolve: async (id) => documents.get(id.split('#')[0])! }
      if ((await verifyCredential(signed.jwt, inMemory)).issuer !== did) throw new Error('bench: did-jwt-vc did not verify our VC-JWT')
      const jwtVcVerify = await pair(
        {
          label: `${label}: ${keyType} JWT VC verify (service)`,
          fn: async () => {
            if (!(await as.verifyClaims({ claims: [{ jwt: signed.jwt }] })).vcs[0].verified) throw new Error('bench: JWT VC not verified')
          },
        },
        {
          label: `${label}: ${keyType} did-jwt-vc verifyCredential, in-memory did:key (interleaved)`,
          fn: () => verifyCredential(signed.jwt, inMemory),
        },
      )
      results[keyType] = { walletCreation, jwtVcSign: { ...jwtVcSign, path }, jwtVcSignSigner, jwtVcVerify }
    }
    return results
  } finally {
    await service.close()
  }
}

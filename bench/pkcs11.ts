/**
 * PKCS#11 HSM figures on a throw-away SoftHSM2 token (`--only pkcs11`), per key type, on did:jwk wallets and SQLite,
 * every figure measured interleaved with the others and carrying `ratio`, its ops/s ÷ the floor's:
 *
 * - `vcJwt`, the issue's figure (target ≥ 0.7): didvault's own VC-JWT signing with an HSM wallet
 *   (`walletConfig.keyManagement: "HSM"`), per signature as Sign Claims does it below the operation — the issuer's
 *   wallet record read from storage (by DID, as the service finds it), its signer obtained as the service obtains it
 *   (`WalletSigners.signerFor` → the key manager routing `hsm:<CKA_ID>` to the `hsm` backend: its `hsm_keys` record
 *   read, C_SignAsync on the module's session pool, low-S for secp256k1) and the credential encoded by didvault's JWT
 *   credential format (`format.issue(content, signer)`, as `issueAll` of src/credentials/sign.ts does);
 * - `floor`, the base: did-jwt-vc `createVerifiableCredentialJwt` of the same payload and header (`kid`) with a signer
 *   that calls C_SignAsync directly on the same token, key and session pool;
 *
 * and, as information: `keyPort`, the floor's did-jwt-vc call signing through the key port alone (`BackendKeyManager`
 * → the `hsm` backend, no wallet record, no format); `serviceHsm`, the whole Sign Claims operation through the service
 * with the HSM wallet (`service.as(...).signClaims({ format: 'JWT' })`: the caller's DID-auth token verified, its
 * control of the issuer checked, the records read, the credential signed, its audit record committed — fsync'd at
 * SQLite's default synchronous = FULL); `serviceEcs`, the same operation with an ECS (sealed) wallet of the same key
 * type and DID method, which shows what the operation's own work costs whatever the key's custody; `bareSign`, one
 * C_SignAsync of a 32-byte input. `synchronousNormal` repeats it all on synchronous = NORMAL (what syncing each
 * signature's audit record costs the service's figures), on a fresh token and module.
 */
import { createHash, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import pkcs11js from 'pkcs11js'
import { IdentityService, randomMasterKey, staticTenants } from '../src/index.js'
import { credentialFormatNamed, type CredentialContent } from '../src/credentials/formats/index.js'
import { KeyCustody } from '../src/custody/key-custody.js'
import { openKeyring } from '../src/custody/keyring-store.js'
import { pkcs11 } from '../src/keys/backends/pkcs11/index.js'
import { SealedKeyBackend } from '../src/keys/backends/sealed/index.js'
import { HSM_BACKEND } from '../src/keys/hsm.js'
import { KEY_TYPES, type KeyType } from '../src/keys/key-types.js'
import { BackendKeyManager } from '../src/keys/port.js'
import { tenantCollections } from '../src/storage/declaration.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { WALLETS, type WalletRecord } from '../src/wallets/records.js'
import { WalletSigners } from '../src/wallets/signers.js'
import { startSoftHsm } from '../test/helpers/softhsm.js'
import type { MeasureOptions } from './measure.js'
import { measureRelative, type Relative } from './relative.js'

/** One key type's figures, measured interleaved; each `ratio` is its ops/s ÷ `floor`'s. */
export interface Pkcs11TypeResults {
  /** didvault's VC-JWT signing with the HSM wallet (record read, wallet signer, JWT format); `ratio`: the issue's figure. */
  vcJwt: Relative
  /** did-jwt-vc `createVerifiableCredentialJwt`, the signer calling C_SignAsync on the same token and pool: the base. */
  floor: Relative
  /** Information: the floor's did-jwt-vc call signing through the key port (`BackendKeyManager` → `hsm`). */
  keyPort: Relative
  /** Information: Sign Claims (format JWT) through the service, HSM wallet (DID-auth, control, audit commit). */
  serviceHsm: Relative
  /** Information: the same operation with an ECS (sealed) wallet of the same key type and DID method. */
  serviceEcs: Relative
  /** Information: C_SignAsync of a 32-byte input alone. */
  bareSign: Relative
}

export interface Pkcs11BenchResults {
  /** On SQLite's default synchronous = FULL. */
  types: Record<KeyType, Pkcs11TypeResults>
  /** Information, no target: the same on synchronous = NORMAL (a fresh token and module). */
  synchronousNormal: Record<KeyType, Pkcs11TypeResults>
}

const API_KEY = 'bench-pkcs11-0123456789'
const ALG: Record<KeyType, 'ES256K' | 'ES256' | 'EdDSA'> = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' }
/** CKM_EDDSA (PKCS#11 3.0), which pkcs11js 2.1 does not name. */
const CKM_EDDSA = 0x1057

export async function benchPkcs11(options: MeasureOptions): Promise<Pkcs11BenchResults> {
  const types = await benchTypes(options, 'sqlite', 'FULL')
  const synchronousNormal = await benchTypes(options, 'sqlite synchronous=NORMAL', 'NORMAL')
  return { types, synchronousNormal }
}

async function benchTypes(
  options: MeasureOptions,
  label: string,
  synchronous: 'FULL' | 'NORMAL',
): Promise<Record<KeyType, Pkcs11TypeResults>> {
  const hsm = startSoftHsm(`didvault-bench-${synchronous.toLowerCase()}`)
  const dir = mkdtempSync(join(tmpdir(), 'didvault-bench-hsm-'))
  const storage = createSqliteStorage({ path: join(dir, 'hsm.db'), ...(synchronous === 'NORMAL' && { synchronous }) })
  const module = pkcs11({ module: hsm.module, tokenLabel: hsm.tokenLabel, pin: hsm.pin, sessions: 4 })
  const masterKey = randomMasterKey()
  const service = await IdentityService.create({ storage, masterKey, tenants: staticTenants({ [API_KEY]: 'bench' }), hsm: module })
  try {
    // The service's key manager and wallet signers, rebuilt over the same storage, master key and token (its pool).
    const backend = module.keyBackend(storage)
    const keyring = await openKeyring(storage, masterKey)
    const keys = new BackendKeyManager({ sealed: new SealedKeyBackend(storage, keyring), [HSM_BACKEND]: backend }, 'sealed')
    const noMpc = {
      signerFor: () => {
        throw new Error('bench: no MPC wallet here')
      },
      authorize: async () => {},
    }
    const signers = new WalletSigners(new KeyCustody(keyring), keys, noMpc)
    const jwt = credentialFormatNamed('JWT')
    const api = service.as({ authorization: `Bearer ${API_KEY}` })
    const results = {} as Record<KeyType, Pkcs11TypeResults>
    for (const type of KEY_TYPES) {
      const alg = ALG[type]
      const walletOf = async (keyManagement: 'HSM' | 'ECS') => {
        const { wallet } = await api.generateWallet({ walletConfig: { keyManagement, keyType: type, didMethod: 'jwk' } })
        const as = service.as({
          authorization: `Bearer ${API_KEY}`,
          didAuth: (await api.generateToken({ iss: wallet.did, expiresIn: 3_600_000 })).jwt,
        })
        return { wallet, as }
      }
      const onHsm = await walletOf('HSM')
      const onEcs = await walletOf('ECS')
      const did = onHsm.wallet.did
      const record = (await storage.collection<WalletRecord>('wallets').get(onHsm.wallet._id))!
      const keyRef = record.keyRef!
      if (!keyRef.startsWith(`${HSM_BACKEND}:`)) throw new Error(`bench: the HSM wallet's key is not in the HSM: ${keyRef}`)
      const keyId = keyRef.slice(HSM_BACKEND.length + 1)
      const { tenantId } = record
      const { wallets } = tenantCollections(storage, tenantId, { wallets: WALLETS })

      const mechanism = type === 'Ed25519' ? CKM_EDDSA : pkcs11js.CKM_ECDSA
      const raw = (data: Uint8Array) =>
        backend.signRaw(keyId, mechanism, type === 'Ed25519' ? data : createHash('sha256').update(data).digest())
      const subject = () => ({ degree: 'BSc', n: Math.random() })
      // didvault's path: what issueAll signs per credential, the signer obtained per request as signingOf does.
      const content = (): CredentialContent => ({
        id: `urn:uuid:${randomUUID()}`,
        issuer: did,
        claims: subject(),
        contexts: [],
        types: [],
        issuedAt: Date.now(),
      })
      const ours = async () => {
        const wallet = await wallets.findOne({ field: 'did', op: 'eq', value: did })
        if (!wallet) throw new Error(`bench: no wallet ${did}`)
        return jwt.issue(content(), signers.signerFor(wallet))
      }
      // The floor signs the same payload under the same header (`kid`) as didvault's JWT.
      const sample = (await ours()) as string
      const header = JSON.parse(Buffer.from(sample.split('.')[0], 'base64url').toString()) as { alg: string; kid?: string }
      if (header.alg !== alg) throw new Error(`bench: didvault's ${type} VC-JWT is ${header.alg}, not ${alg}`)
      const kid = header.kid === undefined ? {} : { header: { kid: header.kid } }
      const payload = () => ({
        jti: `urn:uuid:${randomUUID()}`,
        nbf: Math.floor(Date.now() / 1000),
        vc: { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], credentialSubject: subject() },
      })
      const issuer = (sign: (data: Uint8Array) => Promise<Uint8Array>) => ({
        did,
        alg,
        signer: async (data: string | Uint8Array) =>
          Buffer.from(await sign(typeof data === 'string' ? new TextEncoder().encode(data) : data)).toString('base64url'),
      })
      const floor = issuer(raw)
      const throughPort = issuer((data) => keys.sign({ tenantId, keyRef, alg, data }))
      const claim = () => ({ id: `urn:uuid:${randomUUID()}`, payload: subject() })
      const digest = new Uint8Array(32).fill(7)
      const name = `${label} ${type}`
      results[type] = await measureRelative(
        {
          vcJwt: { label: `${name}: VC-JWT sign, didvault (wallet signer, JWT format), HSM wallet`, fn: ours },
          floor: {
            label: `${name}: createVerifiableCredentialJwt, C_SignAsync signer on the same pool`,
            fn: () => createVerifiableCredentialJwt(payload(), floor, kid),
          },
          keyPort: {
            label: `${name}: createVerifiableCredentialJwt through the key port`,
            fn: () => createVerifiableCredentialJwt(payload(), throughPort, kid),
          },
          serviceHsm: {
            label: `${name}: Sign Claims through the service, HSM wallet`,
            fn: () => onHsm.as.signClaims({ iss: did, format: 'JWT', claims: [claim()] }),
          },
          serviceEcs: {
            label: `${name}: Sign Claims through the service, ECS wallet`,
            fn: () => onEcs.as.signClaims({ iss: onEcs.wallet.did, format: 'JWT', claims: [claim()] }),
          },
          bareSign: { label: `${name}: bare C_SignAsync`, fn: () => raw(digest) },
        },
        'floor',
        options,
      )
    }
    return results
  } finally {
    await service.close()
    await module.close()
    rmSync(dir, { recursive: true, force: true })
    hsm.stop()
  }
}

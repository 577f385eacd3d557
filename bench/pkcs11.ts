/**
 * PKCS#11 HSM figures on a throw-away SoftHSM2 token (`--only pkcs11`), per key type, the figure: VC-JWT
 * signatures per second with an HSM wallet (`walletConfig.keyManagement: "HSM"`, did:jwk) THROUGH THE SERVICE
 * (`service.as(...).signClaims({ format: 'JWT' })`: DID-auth, the wallet and its `hsm_keys` record read from SQLite,
 * the claim built and signed through the key port — C_SignAsync on the module's session pool, low-S for secp256k1)
 * ÷ did-jwt-vc `createVerifiableCredentialJwt` with a signer that calls C_SignAsync directly on the same token, key
 * and session pool, interleaved (target ≥ 0.7). Also, interleaved with both: the same did-jwt-vc call signing through
 * the key port alone (`BackendKeyManager` → the `hsm` backend), which separates the port's cost from the service's;
 * and the bare C_SignAsync rate.
 */
import { createHash, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import pkcs11js from 'pkcs11js'
import { IdentityService, randomMasterKey, staticTenants } from '../src/index.js'
import { pkcs11 } from '../src/keys/backends/pkcs11/index.js'
import { KEY_TYPES, type KeyType } from '../src/keys/key-types.js'
import { BackendKeyManager } from '../src/keys/port.js'
import type { WalletRecord } from '../src/wallets/records.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { startSoftHsm } from '../test/helpers/softhsm.js'
import { measure, measureInterleaved, type Measurement, type MeasureOptions } from './measure.js'

export interface Pkcs11BenchResults {
  types: Record<
    KeyType,
    {
      /** VC-JWT sign through the service (`signClaims`, format JWT), HSM wallet. */
      vcJwt: Measurement
      /** did-jwt-vc `createVerifiableCredentialJwt`, the signer calling C_SignAsync on the same token and pool. */
      vcJwtFloor: Measurement
      /** vcJwt ÷ vcJwtFloor: the figure (target ≥ 0.7). */
      ratio: number
      /** did-jwt-vc `createVerifiableCredentialJwt` signing through the key port (`BackendKeyManager` → `hsm`). */
      vcJwtKeyPort: Measurement
      /** vcJwtKeyPort ÷ vcJwtFloor. */
      keyPortRatio: number
      /** C_SignAsync of a 32-byte input alone. */
      bareSign: Measurement
    }
  >
  /**
   * Information, no target: the same on SQLite's synchronous = NORMAL (what syncing each signature's audit record
   * costs the service path; a fresh token and module).
   */
  synchronousNormal: Pkcs11BenchResults['types']
}

const API_KEY = 'bench-pkcs11-0123456789'
const round = (n: number) => Number(n.toFixed(3))

const ALG: Record<KeyType, 'ES256K' | 'ES256' | 'EdDSA'> = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' }

export async function benchPkcs11(options: MeasureOptions): Promise<Pkcs11BenchResults> {
  const types = await benchTypes(options, 'sqlite', 'FULL')
  const synchronousNormal = await benchTypes(options, 'sqlite synchronous=NORMAL', 'NORMAL')
  return { types, synchronousNormal }
}

async function benchTypes(options: MeasureOptions, label: string, synchronous: 'FULL' | 'NORMAL'): Promise<Pkcs11BenchResults['types']> {
  const hsm = startSoftHsm(`didvault-bench-${synchronous.toLowerCase()}`)
  const dir = mkdtempSync(join(tmpdir(), 'didvault-bench-hsm-'))
  const storage = createSqliteStorage({ path: join(dir, 'hsm.db'), ...(synchronous === 'NORMAL' && { synchronous }) })
  const module = pkcs11({ module: hsm.module, tokenLabel: hsm.tokenLabel, pin: hsm.pin, sessions: 4 })
  const service = await IdentityService.create({
    storage,
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [API_KEY]: 'bench' }),
    hsm: module,
  })
  try {
    // The same token and session pool as the service's backend: another view of the module over the same storage.
    const backend = module.keyBackend(storage)
    const keys = new BackendKeyManager({ hsm: backend }, 'hsm')
    const api = service.as({ authorization: `Bearer ${API_KEY}` })
    const types = {} as Pkcs11BenchResults['types']
    for (const type of KEY_TYPES) {
      const alg = ALG[type]
      const { wallet } = await api.generateWallet({ walletConfig: { keyManagement: 'HSM', keyType: type, didMethod: 'jwk' } })
      const record = (await storage.collection<WalletRecord>('wallets').get(wallet._id))!
      const keyRef = record.keyRef!
      if (!keyRef.startsWith('hsm:')) throw new Error(`the bench wallet's key is not in the HSM: ${keyRef}`)
      const keyId = keyRef.slice('hsm:'.length)
      const tenantId = record.tenantId
      const as = service.as({
        authorization: `Bearer ${API_KEY}`,
        didAuth: (await api.generateToken({ iss: wallet.did, expiresIn: 3_600_000 })).jwt,
      })
      const mechanism = type === 'Ed25519' ? 0x1057 : pkcs11js.CKM_ECDSA
      const raw = (data: Uint8Array) =>
        backend.signRaw(keyId, mechanism, type === 'Ed25519' ? data : createHash('sha256').update(data).digest())
      const claim = () => ({ id: `urn:uuid:${randomUUID()}`, payload: { degree: 'BSc', n: Math.random() } })
      // What the service's claim carries, built per call as the service builds it.
      const payload = () => {
        const { id, payload: subject } = claim()
        return {
          jti: id,
          nbf: Math.floor(Date.now() / 1000),
          vc: { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], credentialSubject: subject },
        }
      }
      const issuer = (sign: (data: Uint8Array) => Promise<Uint8Array>) => ({
        did: wallet.did,
        alg,
        signer: async (data: string | Uint8Array) =>
          Buffer.from(await sign(typeof data === 'string' ? new TextEncoder().encode(data) : data)).toString('base64url'),
      })
      const throughPort = issuer((data) => keys.sign({ tenantId, keyRef, alg, data }))
      const floor = issuer(raw)
      const [vcJwt, vcJwtFloor, vcJwtKeyPort] = await measureInterleaved(
        [
          {
            label: `${label} ${type}: VC-JWT sign through the service, HSM wallet`,
            fn: () => as.signClaims({ iss: wallet.did, format: 'JWT', claims: [claim()] }),
          },
          {
            label: `${label} ${type}: createVerifiableCredentialJwt, C_SignAsync signer on the same pool`,
            fn: () => createVerifiableCredentialJwt(payload(), floor),
          },
          {
            label: `${label} ${type}: createVerifiableCredentialJwt through the key port`,
            fn: () => createVerifiableCredentialJwt(payload(), throughPort),
          },
        ],
        options,
      )
      const digest = new Uint8Array(32).fill(7)
      const bareSign = await measure({ label: `${label} ${type}: bare C_SignAsync`, fn: () => raw(digest) }, options)
      types[type] = {
        vcJwt,
        vcJwtFloor,
        ratio: round(vcJwt.opsPerSec / vcJwtFloor.opsPerSec),
        vcJwtKeyPort,
        keyPortRatio: round(vcJwtKeyPort.opsPerSec / vcJwtFloor.opsPerSec),
        bareSign,
      }
    }
    return types
  } finally {
    await service.close()
    await module.close()
    rmSync(dir, { recursive: true, force: true })
    hsm.stop()
  }
}

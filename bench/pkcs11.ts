/**
 * PKCS#11 HSM figures on a throw-away SoftHSM2 token (`--only pkcs11`), per key type: VC-JWT signatures per second
 * (did-jwt-vc `createVerifiableCredentialJwt`) with the key in the token, signed through the key port
 * (`BackendKeyManager` → the `hsm` backend: its record read from SQLite, C_SignAsync on the session pool, low-S)
 * ÷ the same call with a signer that calls C_SignAsync directly on the same token and pool, interleaved (target ≥ 0.7);
 * and the bare C_SignAsync rate. Wallet integration (HSM wallets through the service's routes) is another helper's:
 * this measures the key port's path, which every service signature takes.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import pkcs11js from 'pkcs11js'
import { HSM_KEYS, pkcs11 } from '../src/keys/backends/pkcs11/index.js'
import { KEY_TYPES, type KeyType } from '../src/keys/key-types.js'
import { BackendKeyManager } from '../src/keys/port.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { startSoftHsm } from '../test/helpers/softhsm.js'
import { measure, measureInterleaved, type Measurement, type MeasureOptions } from './measure.js'

export interface Pkcs11BenchResults {
  types: Record<KeyType, { vcJwt: Measurement; vcJwtFloor: Measurement; ratio: number; bareSign: Measurement }>
}

const ALG: Record<KeyType, 'ES256K' | 'ES256' | 'EdDSA'> = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' }

export async function benchPkcs11(options: MeasureOptions): Promise<Pkcs11BenchResults> {
  const hsm = startSoftHsm('didvault-bench')
  const dir = mkdtempSync(join(tmpdir(), 'didvault-bench-hsm-'))
  const storage = createSqliteStorage({ path: join(dir, 'hsm.db') })
  const module = pkcs11({ module: hsm.module, tokenLabel: hsm.tokenLabel, pin: hsm.pin, sessions: 4 })
  try {
    await storage.init([HSM_KEYS])
    const backend = module.keyBackend(storage)
    const keys = new BackendKeyManager({ hsm: backend }, 'hsm')
    const types = {} as Pkcs11BenchResults['types']
    for (const type of KEY_TYPES) {
      const alg = ALG[type]
      const { keyRef } = await keys.createKey({ tenantId: 'bench', type })
      const keyId = keyRef.slice('hsm:'.length)
      const mechanism = type === 'Ed25519' ? 0x1057 : pkcs11js.CKM_ECDSA
      const raw = (data: Uint8Array) =>
        backend.signRaw(keyId, mechanism, type === 'Ed25519' ? data : createHash('sha256').update(data).digest())
      const payload = {
        sub: 'did:example:holder',
        nbf: 1_700_000_000,
        vc: {
          '@context': ['https://www.w3.org/2018/credentials/v1'],
          type: ['VerifiableCredential'],
          credentialSubject: { degree: { type: 'BachelorDegree', name: 'Bachelor of Science' } },
        },
      }
      const issuer = (sign: (data: Uint8Array) => Promise<Uint8Array>) => ({
        did: 'did:example:issuer',
        alg,
        signer: async (data: string | Uint8Array) =>
          Buffer.from(await sign(typeof data === 'string' ? new TextEncoder().encode(data) : data)).toString('base64url'),
      })
      const ours = issuer((data) => keys.sign({ tenantId: 'bench', keyRef, alg, data }))
      const floor = issuer(raw)
      const [vcJwt, vcJwtFloor] = await measureInterleaved(
        [
          { label: `${type}: VC-JWT, HSM key through the key port`, fn: () => createVerifiableCredentialJwt(payload, ours) },
          { label: `${type}: VC-JWT, C_SignAsync signer on the same pool`, fn: () => createVerifiableCredentialJwt(payload, floor) },
        ],
        options,
      )
      const digest = new Uint8Array(32).fill(7)
      const bareSign = await measure({ label: `${type}: bare C_SignAsync`, fn: () => raw(digest) }, options)
      types[type] = { vcJwt, vcJwtFloor, ratio: Number((vcJwt.opsPerSec / vcJwtFloor.opsPerSec).toFixed(3)), bareSign }
    }
    return { types }
  } finally {
    await module.close()
    await storage.close()
    rmSync(dir, { recursive: true, force: true })
    hsm.stop()
  }
}

/** The service-level measurements, on one storage adapter. */
import { verifyDidAuthToken } from '../src/auth/did-auth.js'
import { IdentityService, randomMasterKey, staticTenants, type StorageAdapter } from '../src/index.js'
import { measure, measurePair, type MeasureOptions, type Measurement } from './measure.js'
import { nativeSecp256k1 } from './secp256k1.js'
import { benchDid, type DidResults } from './did.js'
import { adapterWalletInsert, type InsertWallet, rawWalletCreation } from './wallet-floor.js'

const API_KEY = 'bench-api-key-0123456789'

export interface ServiceResults {
  ecsWalletGeneration: Measurement
  /** Key generation + seal + one insert on the same storage, measured interleaved with the ECS wallet generation: its ratio's denominator. */
  walletCreationFloor: Measurement
  bip44NextWallet: Measurement
  didAuthTokenGeneration: Measurement
  didAuthTokenVerification: Measurement
  /** Raw secp256k1 verify (OpenSSL, the fastest here), measured interleaved with the token verification: the ratio's denominator. */
  rawVerifyInterleaved: Measurement
  /** Embedded DID registry: resolution and DID-auth verification of a DID with 5 changes. */
  did: DidResults & {
    /** Verification ÷ interleaved raw verify (issue #4 target: ≥ 0.7), for the owner's and a delegate's token. */
    ratios: { owner: number; delegate: number }
  }
}

/** Measures the service on `storage`; the wallet floor inserts with `floorInsert` (default: the adapter's `insert`). */
export async function benchService(
  label: string,
  storage: StorageAdapter,
  options: MeasureOptions,
  floorInsert: InsertWallet = adapterWalletInsert(storage),
): Promise<ServiceResults> {
  const service = await IdentityService.create({ storage, masterKey: randomMasterKey(), tenants: staticTenants({ [API_KEY]: 'bench' }) })
  try {
    const authorization = `Bearer ${API_KEY}`
    const api = service.as({ authorization })
    const { vault } = await api.createVault({ name: 'bench', hierarchy: 'BIP44' })
    const issuer = vault.wallets[0].did
    const { jwt } = await api.generateToken({ iss: issuer })
    const asIssuer = service.as({ authorization, didAuth: jwt })
    // The verification requests go through (Authenticator → verifyDidAuthToken), without an operation around it.
    const verifyOptions = service.didAuthOptions
    if ((await verifyDidAuthToken(jwt, verifyOptions)) !== issuer) throw new Error('DID-auth self-check failed')

    const [ecsWalletGeneration, walletCreationFloor] = await measurePair(
      { label: `${label}: ECS wallet generation`, fn: () => api.generateWallet({}) },
      rawWalletCreation(label, floorInsert),
      options,
    )
    const bip44NextWallet = await measure(
      { label: `${label}: next BIP44 wallet`, fn: () => asIssuer.createVaultWallet({ vaultID: vault.id }) },
      options,
    )
    const didAuthTokenGeneration = await measure(
      { label: `${label}: DID-auth token generation`, fn: () => api.generateToken({ iss: issuer }) },
      options,
    )
    const [didAuthTokenVerification, rawVerifyInterleaved] = await measurePair(
      { label: `${label}: DID-auth token verification`, fn: () => verifyDidAuthToken(jwt, verifyOptions) },
      { ...nativeSecp256k1().verify, label: `${label}: raw secp256k1 verify, OpenSSL (interleaved)` },
      options,
    )
    const d = await benchDid(label, service, authorization, options)
    const ratio = (a: Measurement, b: Measurement) => Number((a.opsPerSec / b.opsPerSec).toFixed(3))
    const did = {
      ...d,
      ratios: {
        owner: ratio(d.didAuthVerification5Changes, d.rawVerifyInterleaved5Changes),
        delegate: ratio(d.didAuthVerificationByDelegate, d.rawVerifyInterleavedDelegate),
      },
    }
    return {
      ecsWalletGeneration,
      walletCreationFloor,
      bip44NextWallet,
      didAuthTokenGeneration,
      didAuthTokenVerification,
      rawVerifyInterleaved,
      did,
    }
  } finally {
    await service.close()
  }
}

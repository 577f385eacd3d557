/**
 * MPC vault figures on one storage adapter: a 2-of-3 signature through the shipped quorum
 * custody (read two sealed shares, open them, reconstruct the seed, derive the wallet key,
 * sign, wipe), and the next MPC wallet through the service (two member DID-auth tokens
 * verified for the quorum, public BIP32 derivation, one insert: no reconstruction).
 */
import { IdentityService, randomMasterKey, staticTenants, type StorageAdapter } from '../src/index.js'
import { KeyCustody } from '../src/custody/key-custody.js'
import { openKeyring } from '../src/custody/keyring-store.js'
import { ShamirQuorumCustody } from '../src/mpc/shamir-quorum-custody.js'
import { measure, type MeasureOptions, type Measurement } from './measure.js'

const API_KEY = 'bench-mpc-api-key-0123456789'

export interface MpcResults {
  /** ShamirQuorumCustody.requestSignature with 2 approvals of a 2-of-3 BIP44 vault. */
  signing2of3: Measurement
  /** Create Identity Vault's Wallet on an initialized 2-of-3 MPC vault, two member tokens in x-did-auth. */
  walletDerivation: Measurement
}

export async function benchMpc(label: string, storage: StorageAdapter, options: MeasureOptions): Promise<MpcResults> {
  const masterKey = randomMasterKey()
  const service = await IdentityService.create({ storage, masterKey, tenants: staticTenants({ [API_KEY]: 'bench' }) })
  try {
    // The members are wallets of the tenant, approving with the DID-auth tokens the service issues them.
    const tenant = service.as({ authorization: `Bearer ${API_KEY}` })
    const members = await Promise.all(
      [0, 1, 2].map(async () => {
        const { did } = (await tenant.generateWallet({})).wallet
        return { did, jwt: (await tenant.generateToken({ iss: did, expiresIn: 3_600_000 })).jwt }
      }),
    )
    const api = service.as({ authorization: `Bearer ${API_KEY}`, didAuth: `${members[0].jwt},${members[1].jwt}` })
    const { vault } = await api.createVault({
      name: 'bench-mpc',
      keyManagement: 'MPC',
      hierarchy: 'BIP44',
      mpcAccountID: 'bench',
      mpcGroups: [{ name: 'signers', requiredApprovals: 2, members: members.map((m) => ({ id: m.did })) }],
    })
    await api.initializeVault({ vaultID: vault.id })
    const walletDerivation = await measure(
      { label: `${label}: next MPC wallet (2-of-3 quorum, public derivation)`, fn: () => api.createVaultWallet({ vaultID: vault.id }) },
      options,
    )

    // The provider the service uses by default, over the same storage and keyring.
    const provider = new ShamirQuorumCustody(storage, new KeyCustody(await openKeyring(storage, masterKey)))
    const ref = {
      tenantId: 'bench',
      vaultId: vault.id,
      mpcAccountID: 'bench',
      mpcVaultID: vault.mpcVault!.id,
      hierarchy: 'BIP44' as const,
      policy: { groups: [{ name: 'signers', requiredApprovals: 2, members: members.map((m) => m.did) }] },
    }
    const digest = new Uint8Array(32).fill(1)
    const approvals = [members[1].did, members[2].did]
    const check = await provider.requestSignature({ vault: ref, path: "m/44'/60'/0'/0/0", digest, approvals })
    if (check.status !== 'signed') throw new Error('MPC bench: the 2-of-3 signature was not made')
    const signing2of3 = await measure(
      {
        label: `${label}: MPC 2-of-3 signature (reconstruct + sign + wipe)`,
        fn: () => provider.requestSignature({ vault: ref, path: "m/44'/60'/0'/0/0", digest, approvals }),
      },
      options,
    )
    return { signing2of3, walletDerivation }
  } finally {
    await service.close()
  }
}

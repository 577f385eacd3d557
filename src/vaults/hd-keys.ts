/** What the key port needs to derive a BIP44 vault's wallet keys: the vault's sealed secrets, never their plaintext. */
import type { KeyType } from '../keys/key-types.js'
import type { HdDerivation } from '../keys/port.js'
import { secretContext } from '../keys/secret-context.js'
import type { VaultRecord } from './records.js'

/** The vault record's field sealing each key type's account node. */
export const ACCOUNT_NODE_FIELDS = {
  secp256k1: 'accountNode',
  Ed25519: 'ed25519AccountNode',
  'P-256': 'p256AccountNode',
} as const satisfies Record<KeyType, keyof VaultRecord>

type SealedField = 'mnemonic' | (typeof ACCOUNT_NODE_FIELDS)[KeyType]

/**
 * Wallet `index` of an ECS + BIP44 vault, of key type `type`, as a derivation request: the vault's sealed secrets the
 * key backend derives from — the BIP32 account node (secp256k1), the key type's SLIP-0010 account node (Ed25519,
 * P-256), and the mnemonic (what a vault made before the SLIP-0010 nodes were kept derives them from) — each with the
 * context it was sealed under (`custody.seal('vaults', vault, field)`), for the backend to open.
 */
export function hdDerivation(vault: Pick<VaultRecord, 'tenantId' | 'id' | SealedField>, type: KeyType, index: number): HdDerivation {
  const sealed = (field: SealedField) => {
    const envelope = vault[field]
    return envelope === undefined ? undefined : { envelope, context: secretContext('vaults', vault, field) }
  }
  const derivation: HdDerivation = { accountNode: sealed('accountNode'), mnemonic: sealed('mnemonic'), index }
  if (type !== 'secp256k1') {
    const node = sealed(ACCOUNT_NODE_FIELDS[type])
    if (node !== undefined) derivation.slip10AccountNode = node
  }
  return derivation
}

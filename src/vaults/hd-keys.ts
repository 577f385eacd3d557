/** What the key port needs to derive a BIP44 vault's wallet keys: the vault's sealed secrets, never their plaintext. */
import type { HdDerivation } from '../keys/port.js'
import { secretContext } from '../keys/secret-context.js'
import type { VaultRecord } from './records.js'

/**
 * Wallet `index` of an ECS + BIP44 vault as a derivation request: its sealed account node (what
 * secp256k1 keys derive from) and mnemonic (Ed25519 and P-256, by SLIP-0010), each with the
 * context it was sealed under (`custody.seal('vaults', vault, field)`), for the key backend to open.
 */
export function hdDerivation(vault: Pick<VaultRecord, 'tenantId' | 'id' | 'accountNode' | 'mnemonic'>, index: number): HdDerivation {
  const sealed = (field: 'accountNode' | 'mnemonic', envelope: string | undefined) =>
    envelope === undefined ? undefined : { envelope, context: secretContext('vaults', vault, field) }
  return { accountNode: sealed('accountNode', vault.accountNode), mnemonic: sealed('mnemonic', vault.mnemonic), index }
}

/**
 * The private key of an {@link HdDerivation}: the vault's sealed secret is opened with the
 * keyring, the wallet key derived (secp256k1 by BIP32 from the packed account node, Ed25519 and
 * P-256 by SLIP-0010 from the mnemonic's seed) and every intermediate secret wiped.
 */
import { mnemonicToSeedSync } from '@scure/bip39'
import { IdentityError } from '../../../errors.js'
import { ACCOUNT_PATH, deriveWalletKey } from '../../hd.js'
import type { Keyring } from '../../keyring.js'
import type { KeyType } from '../../key-types.js'
import type { HdDerivation, SealedSecret } from '../../port.js'
import { slip10Derive, slip10WalletPath } from '../../slip10.js'

/** The derived key (the caller wipes it) and its derivation path, kept in the key's record. */
export function derivedKey(keyring: Keyring, type: KeyType, derive: HdDerivation): { privateKey: Uint8Array; path: string } {
  if (type === 'secp256k1') {
    const accountNode = open(keyring, derive.accountNode, 'a secp256k1 key derives from the vault account node')
    try {
      return { privateKey: deriveWalletKey(accountNode, derive.index), path: `${ACCOUNT_PATH}/${derive.index}` }
    } finally {
      accountNode.fill(0)
    }
  }
  const mnemonic = open(keyring, derive.mnemonic, `a ${type} key derives from the vault mnemonic (SLIP-0010)`)
  const seed = mnemonicToSeedSync(new TextDecoder().decode(mnemonic))
  mnemonic.fill(0)
  const path = slip10WalletPath(derive.index)
  try {
    const node = slip10Derive(type, seed, path)
    node.chainCode.fill(0)
    return { privateKey: node.privateKey, path }
  } finally {
    seed.fill(0)
  }
}

function open(keyring: Keyring, secret: SealedSecret | undefined, missing: string): Uint8Array {
  if (!secret) throw new IdentityError('VALIDATION_ERROR', missing)
  return keyring.open(secret.envelope, secret.context)
}

/**
 * The private key of an {@link HdDerivation}: the vault's sealed secret is opened with the
 * keyring, the wallet key derived and every intermediate secret wiped. secp256k1 by BIP32 from the
 * packed account node; Ed25519 and P-256 by SLIP-0010 from the key type's packed account node (one
 * hardened step), or — for a vault made before that node was kept — from the mnemonic's seed (a
 * BIP39 PBKDF2 per wallet).
 */
import { mnemonicToSeedSync } from '@scure/bip39'
import { IdentityError } from '../../../errors.js'
import { deriveWalletKey, hdWalletPath } from '../../hd.js'
import type { Keyring } from '../../keyring.js'
import type { KeyType } from '../../key-types.js'
import type { HdDerivation, SealedSecret } from '../../port.js'
import { deriveSlip10WalletKey, slip10Derive, type Slip10KeyType } from '../../slip10.js'

/** The derived key (the caller wipes it) and its derivation path, kept in the key's record. */
export function derivedKey(keyring: Keyring, type: KeyType, derive: HdDerivation): { privateKey: Uint8Array; path: string } {
  const path = hdWalletPath(type, derive.index)
  if (type === 'secp256k1') {
    const accountNode = open(keyring, derive.accountNode, 'a secp256k1 key derives from the vault account node')
    try {
      return { privateKey: deriveWalletKey(accountNode, derive.index), path }
    } finally {
      accountNode.fill(0)
    }
  }
  if (derive.slip10AccountNode !== undefined) {
    const accountNode = open(keyring, derive.slip10AccountNode, '')
    try {
      return { privateKey: deriveSlip10WalletKey(type, accountNode, derive.index), path }
    } finally {
      accountNode.fill(0)
    }
  }
  return { privateKey: fromMnemonic(keyring, type, derive, path), path }
}

function fromMnemonic(keyring: Keyring, type: Slip10KeyType, derive: HdDerivation, path: string): Uint8Array {
  const mnemonic = open(keyring, derive.mnemonic, `a ${type} key derives from the vault mnemonic (SLIP-0010)`)
  const seed = mnemonicToSeedSync(new TextDecoder().decode(mnemonic))
  mnemonic.fill(0)
  try {
    const node = slip10Derive(type, seed, path)
    node.chainCode.fill(0)
    return node.privateKey
  } finally {
    seed.fill(0)
  }
}

function open(keyring: Keyring, secret: SealedSecret | undefined, missing: string): Uint8Array {
  if (!secret) throw new IdentityError('VALIDATION_ERROR', missing)
  return keyring.open(secret.envelope, secret.context)
}

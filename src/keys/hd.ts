/**
 * BIP39 mnemonics and BIP44 derivation for hierarchical vaults: wallets live at
 * `m/44'/60'/0'/0/<index>`. The account node `m/44'/60'/0'/0` is derived once from the
 * mnemonic (which runs PBKDF2) and kept encrypted, so deriving the next wallet is one
 * child derivation.
 */
import { HDKey } from '@scure/bip32'
import { generateMnemonic as generate, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'

/** Derivation path of the account node whose children are the vault's wallets. */
export const ACCOUNT_PATH = "m/44'/60'/0'/0"

/** A fresh English BIP39 mnemonic (128 bits of entropy: 12 words, or 256: 24 words). */
export function generateMnemonic(strength: 128 | 256 = 128): string {
  return generate(wordlist, strength)
}

export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(mnemonic, wordlist)
}

/** Serialized (xprv) account node of a mnemonic. */
export function accountNodeOf(mnemonic: string): string {
  const seed = mnemonicToSeedSync(mnemonic)
  try {
    const root = HDKey.fromMasterSeed(seed)
    const account = root.derive(ACCOUNT_PATH)
    const xprv = account.privateExtendedKey
    root.wipePrivateData()
    account.wipePrivateData()
    return xprv
  } finally {
    seed.fill(0)
  }
}

/** Private key of wallet `index` under a serialized account node. The caller wipes it. */
export function deriveWalletKey(accountXprv: string, index: number): Uint8Array {
  if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new RangeError('HD index out of range')
  const account = HDKey.fromExtendedKey(accountXprv)
  const child = account.deriveChild(index)
  const key = Uint8Array.from(child.privateKey!)
  child.wipePrivateData()
  account.wipePrivateData()
  return key
}

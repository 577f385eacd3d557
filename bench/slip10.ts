/**
 * SLIP-0010 wallet-key derivation rates (information, no target): what deriving one Ed25519 or
 * P-256 wallet key of a BIP44 vault costs, as the key backends will do it — one hardened step
 * from the sealed account node `m/44'/60'/0'/0'` (src/keys/slip10.ts).
 */
import { randomBytes } from 'node:crypto'
import { deriveSlip10WalletKey, slip10AccountNodeOf, type Slip10KeyType } from '../src/keys/slip10.js'
import { measure, type MeasureOptions } from './measure.js'

/** Derivations per second, per key type. */
export type Slip10Rates = Record<Slip10KeyType, number>

export async function benchSlip10(options: MeasureOptions): Promise<Slip10Rates> {
  const rates = {} as Slip10Rates
  for (const keyType of ['Ed25519', 'P-256'] as const) {
    const node = slip10AccountNodeOf(keyType, randomBytes(64))
    let index = 0
    const fn = () => deriveSlip10WalletKey(keyType, node, index++ % 0x80000000).fill(0)
    rates[keyType] = Math.round((await measure({ label: `SLIP-0010 ${keyType} wallet key`, fn }, options)).opsPerSec)
    node.fill(0)
  }
  return rates
}

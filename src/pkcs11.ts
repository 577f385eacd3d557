/** PLACEHOLDER until h35a's backend is merged (replaced by theirs). */
import type { HsmModule } from './keys/hsm.js'
export function pkcs11(_options: { module: string; tokenLabel: string; pin: string; sessions?: number }): HsmModule {
  throw new Error('not built yet')
}

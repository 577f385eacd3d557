/** What the vaults' operations may be given (each handler takes only the parts it uses). */
import type { WalletsContext } from '../wallets/context.js'
import type { MpcVaults } from './mpc-vaults.js'

export interface VaultsContext extends WalletsContext {
  /** MPC vaults: their provider and the quorum approvals their keys need. */
  mpc: MpcVaults
}

/**
 * Refinement of Create Identity Vault's input (see `OperationImplementation.refine`): each MPC
 * group's members are distinct principals (`principalOf`: an address DID and the public-key DIDs
 * of its key are one), whatever their spelling. Key addresses need code the browser-safe
 * contracts leave out.
 */
import { z } from 'zod'
import { principalOf } from '../did/methods/ethr/index.js'
import { noDuplicates } from '../operations/no-duplicates.js'
import type { ParsedInput } from '../operations/contract.js'
import type { VAULT_CONTRACTS } from './contracts.js'
import { groupsOf } from './schemas.js'

/** Create Identity Vault: each MPC group's members distinct principals, whatever their spelling. */
export const createVault = z.custom<ParsedInput<(typeof VAULT_CONTRACTS)['createVault']>>().superRefine((v, ctx) => {
  groupsOf(v.mpcGroups).forEach((group, i) => {
    noDuplicates(
      ctx,
      group.members,
      (m) => principalOf(m.id),
      (j) => ['mpcGroups', i, 'members', j, 'id'],
      'duplicate member',
    )
  })
})

/**
 * Gathering MPC approvals (DESIGN §4 *MPC approvals*): members approve by presenting their
 * DID-auth tokens with the request (`x-did-auth`, comma-separated); the embedded API may also
 * collect approvals out of band through an {@link ApproveCallback}. A member counts once, a
 * non-member not at all; short of a group's quorum, the request fails with 403 `FORBIDDEN`
 * naming how many approvals are missing.
 */
import { forbidden, type IdentityError } from '../errors.js'
import { principalOf } from '../did/methods/ethr/index.js'
import type { QuorumPolicy } from './port.js'
import { membersOf, standingOf } from './quorum.js'

/** What needs a quorum: a signature with an MPC wallet, a change of its DID document, or governing the vault. */
export type ApprovalAction = 'sign' | 'changeDidDocument' | 'initialize' | 'createWallet' | 'deleteVault'

/** What an {@link ApproveCallback} is asked to approve. */
export interface ApprovalRequest {
  action: ApprovalAction
  tenantId: string
  /** didvault's id of the vault. */
  vaultId: string
  mpcVaultID: string
  policy: QuorumPolicy
  /** `sign`, `changeDidDocument`: the MPC wallet concerned (its Ethereum address for a secp256k1 wallet). */
  wallet?: { did: string; address?: string }
  /** `sign` with a secp256k1 wallet: the 32-byte digest, hex. */
  digestHex?: string
  /** `sign` with a P-256 or Ed25519 wallet: the JOSE algorithm and the data signed, hex. */
  data?: { alg: 'ES256' | 'EdDSA'; hex: string }
  /** Members whose valid DID-auth tokens came with the request (they count already). */
  approvedBy: readonly string[]
}

/**
 * Approvals gathered out of band (service option `mpc.approve`): called when the request's
 * own tokens fall short of the quorum; resolves to the DIDs of the members who approved
 * `request`. Returned DIDs that are not members are ignored; each member counts once. The
 * callback is trusted as the embedding application's word: verify your members' approvals
 * before returning them.
 */
export type ApproveCallback = (request: ApprovalRequest) => Promise<readonly string[]> | readonly string[]

/**
 * What a request proves towards a quorum: the DIDs whose DID-auth tokens were signed by the
 * DID's current owner key (`Caller.owners`: DID → owner address). A token signed by a
 * delegate (`veriKey`, `sigAuth`) authenticates its DID but is no member's approval: members
 * approve with the key that owns their DID.
 */
export interface ApprovalEvidence {
  owners?: Readonly<Record<string, string>>
  /** The request's caller, as its audit records name it (a `Caller` is evidence). */
  dids?: readonly string[]
  apiKeyId?: string
  requestId?: string
}

export class QuorumApprovals {
  constructor(private readonly approve?: ApproveCallback) {}

  /**
   * The approving members (as many as the met group requires) for `request`: the members whose
   * owner key signed one of the request's tokens (`evidence.owners`), then, if short, those the
   * callback names. Rejects with 403 `FORBIDDEN`
   * when no group's quorum is met.
   *
   * Members are matched by principal (`principalOf`): a member approves with a token naming any
   * spelling of its key's DID, and is counted — and given to the provider — as the policy spells it
   * (policies of earlier releases may name a member by its public key).
   */
  async gather(request: Omit<ApprovalRequest, 'approvedBy'>, evidence?: ApprovalEvidence): Promise<string[]> {
    const members = new Map([...membersOf(request.policy)].map((member) => [principalOf(member), member]))
    const asMembers = (dids: readonly string[]) => dids.flatMap((did) => members.get(principalOf(did)) ?? [])
    const fromTokens = asMembers(Object.keys(evidence?.owners ?? {}))
    let standing = standingOf(request.policy, fromTokens)
    if (!standing.met && this.approve) {
      const outOfBand: unknown = await this.approve({ ...request, approvedBy: fromTokens })
      if (!Array.isArray(outOfBand)) throw new TypeError('mpc.approve must resolve to an array of member DIDs')
      const named = outOfBand.filter((did): did is string => typeof did === 'string')
      standing = standingOf(request.policy, [...fromTokens, ...asMembers(named)])
    }
    if (!standing.met) throw missingApprovals(standing.missing, standing.group.name)
    return standing.approvers
  }
}

/** 403 FORBIDDEN naming how many approvals of which group are missing. */
export function missingApprovals(missing: number, group: string, requestId?: string): IdentityError {
  const pending = requestId === undefined ? '' : ` (provider request ${requestId})`
  return forbidden(
    `MPC quorum not met: ${missing} more approval${missing === 1 ? '' : 's'} needed from members of group ` +
      `"${group}"${pending}; members approve by sending their DID-auth tokens in x-did-auth`,
  )
}

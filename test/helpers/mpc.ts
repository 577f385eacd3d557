/** MPC test helpers: quorum members holding outside keys, and their DID-auth tokens. */
import { generatePrivateKey } from '../../src/keys/secp256k1.js'
import { mintToken } from './tokens.js'

/** A member: an outside key (a DID the service does not hold) and a way to mint its DID-auth tokens. */
export interface Member {
  did: string
  token(options?: { expIn?: number; iatIn?: number }): Promise<string>
}

export async function member(): Promise<Member> {
  const key = generatePrivateKey()
  const { did } = await mintToken({ signerKey: key })
  return { did, token: async (o = {}) => (await mintToken({ signerKey: key, ...o })).jwt }
}

/** An `x-did-auth` header carrying one fresh token of each member. */
export async function approvals(...members: Member[]): Promise<string> {
  return (await Promise.all(members.map((m) => m.token()))).join(',')
}

/** A Create Identity Vault body for a 2-of-n MPC vault of `members`. */
export function mpcVaultBody(members: Member[], extra: Record<string, unknown> = {}) {
  return {
    name: 'mpc',
    keyManagement: 'MPC' as const,
    hierarchy: 'BIP44' as 'BIP44' | 'NONE',
    mpcAccountID: 'acct-1',
    mpcGroups: [{ name: 'signers', requiredApprovals: 2, members: members.map((m) => ({ id: m.did })) }],
    ...extra,
  }
}

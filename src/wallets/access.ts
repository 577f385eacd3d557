/** Enforcing the wallets' slice of the policy: gather a wallet's facts, decide, refuse with 403. */
import type { Caller } from '../auth/context.js'
import type { CallerFactSource } from '../auth/facts.js'
import { forbidden } from '../errors.js'
import { controlsWallet, type WalletFacts } from './policy.js'
import type { WalletRecord } from './records.js'

/** A wallet's facts: the owner of its DID document (resolved, unless the caller's tokens proved it), its vault. */
export async function walletFacts(
  callers: CallerFactSource,
  wallet: Pick<WalletRecord, 'did' | 'vaultId'>,
  caller?: Caller,
): Promise<WalletFacts> {
  const facts: WalletFacts = { did: wallet.did, ownerAddress: await callers.ownerAddress(wallet.did, caller) }
  if (wallet.vaultId !== undefined) facts.vault = { id: wallet.vaultId }
  return facts
}

/**
 * DID control of the wallet's DID, or vault control of its vault; 403 FORBIDDEN otherwise. The
 * caller's vault keys (a query) are looked up only when its keys alone do not decide: the rules
 * only grant more with more facts, so a grant on fewer facts stands.
 */
export async function assertControlsWallet(
  ctx: { callers: CallerFactSource },
  caller: Caller,
  wallet: Pick<WalletRecord, 'did' | 'vaultId'>,
): Promise<void> {
  const target = await walletFacts(ctx.callers, wallet, caller)
  if (controlsWallet({ addresses: new Set(caller.addresses), vaultKeys: new Set() }, target)) return
  if (!controlsWallet(await ctx.callers.vaultKeys(caller), target)) {
    throw forbidden(
      `the DID-auth tokens prove neither control of ${wallet.did} (its owner key) nor of its vault (the own key of one of its wallets)`,
    )
  }
}

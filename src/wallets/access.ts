/** Enforcing the wallets' slice of the policy: gather a wallet's facts, decide, refuse with 403. */
import type { Caller } from '../auth/context.js'
import type { CallerFactSource } from '../auth/facts.js'
import { callerKeys } from '../auth/policy-engine.js'
import { forbidden } from '../errors.js'
import { controlsWallet, type WalletFacts } from './policy.js'
import type { WalletRecord } from './records.js'

/** A wallet's facts: the keys that control its DID (resolved, unless the caller's tokens proved its owner), its vault. */
export async function walletFacts(
  callers: CallerFactSource,
  wallet: Pick<WalletRecord, 'did' | 'vaultId'>,
  caller?: Caller,
): Promise<WalletFacts> {
  const facts: WalletFacts = { did: wallet.did, controllingKeys: await callers.controllingKeys(wallet.did, caller) }
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
  if (controlsWallet({ keys: callerKeys(caller), vaultKeys: new Set() }, target)) return
  if (!controlsWallet(await ctx.callers.vaultKeys(caller), target)) {
    throw forbidden(
      `the DID-auth tokens prove neither control of ${wallet.did} (a key that controls it) nor of its vault (a wallet's own key)`,
    )
  }
}

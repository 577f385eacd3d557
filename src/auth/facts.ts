/**
 * Where the policy's facts about a caller come from: its keys, the DIDs it acts through, the
 * roles it holds, the vaults its keys belong to, and the owner of a DID. Each part is gathered
 * at most once per request and only when a decision reads it. The service implements it over
 * its storage and resolver (`roles/caller-facts.ts`); domains decide on it through this
 * interface, so none needs another's records to ask who the caller is.
 */
import type { Caller } from './context.js'
import type { ActingFacts, HoldingFacts, VaultKeyFacts } from './policy-engine.js'

export interface CallerFactSource {
  /** The caller's keys and the DIDs it acts through. */
  acting(caller: Caller): Promise<ActingFacts>
  /** With the caller's effective roles: the roles assigned to the DIDs it acts through. */
  holding(caller: Caller): Promise<HoldingFacts>
  /** The caller's keys and the vaults they are the own keys of wallets of. */
  vaultKeys(caller: Caller): Promise<VaultKeyFacts>
  /**
   * The key ids (`keys/key-ids.ts`) of the keys that control `did` now: for did:ethr the address
   * of its document's current owner (the same for both spellings of a principal; delegates never
   * control), for other methods the keys its current document lists under `authentication` and the keys that control
   * the DIDs it names as `controller`, one level (the rule of `did/methods/controllers.ts`, as the DID methods answer).
   * Empty when it does not resolve. An owner the caller's tokens proved in this request
   * (`caller.owners`) is taken as is.
   */
  controllingKeys(did: string, caller?: Caller): Promise<readonly string[]>
}

/**
 * Who controls a DID whose document names other DIDs as its `controller` (DID Core; a did:web handed over with
 * `newOwner`): one rule, shared by the DID methods that keep documents (did:web's `controllingKeys`) and the access
 * policy's caller facts (`roles/caller-facts.ts`), so what a method says controls a DID and what the policy grants agree.
 */
import type { DIDDocument } from 'did-resolver'

/** Most `controller` DIDs of one document whose keys are looked up. */
export const MAX_CONTROLLERS = 3

/** The other DIDs `document` names as its `controller`, in order: at most {@link MAX_CONTROLLERS}, never itself. */
export function controllerDidsOf(document: DIDDocument): string[] {
  return [document.controller ?? []]
    .flat()
    .filter((c): c is string => typeof c === 'string' && c !== document.id)
    .slice(0, MAX_CONTROLLERS)
}

/**
 * The keys that control the DID of `document` now, however a caller spells a key (`K`): the keys its `authentication`
 * lists (`own`), then the keys that control each DID it names as `controller` (`controllerKeys`, asked once per
 * controller DID; one level only: give a `controllerKeys` that does not follow their own controllers).
 */
export async function controllingKeysOfDocument<K>(
  document: DIDDocument,
  own: (document: DIDDocument) => readonly K[],
  controllerKeys: (did: string) => Promise<readonly K[]>,
): Promise<K[]> {
  const handed = await Promise.all(controllerDidsOf(document).map(controllerKeys))
  return [...own(document), ...handed.flat()]
}

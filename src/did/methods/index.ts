/**
 * The DID methods didvault knows, by name (`walletConfig.didMethod`, `did:<name>:…`): one line
 * per method. To add a method, implement {@link DidMethod} in `did/methods/<name>/` and list it
 * here (docs/did-registries.md, "Adding a DID method").
 */
import { didJwk } from './jwk/index.js'
import { didKey } from './key/index.js'
import type { DidMethod } from './port.js'

export type { ControllingKey, CreatedDid, DidCreateInput, DidMethod, DidUpdateInput } from './port.js'
/**
 * did:web: resolution of DIDs the service does not hold (from `didWebOrigins` only), and the service's own did:web
 * documents (storage, versions, `txsInput`). The method needs the service's storage and `publicUrl`: the service
 * makes it with {@link didWebMethod}.
 */
export * from './web/index.js'
/** Who controls a DID whose document names a `controller`: one rule for the methods and the access policy. */
export { controllerDidsOf, controllingKeysOfDocument, MAX_CONTROLLERS } from './controllers.js'
/** The 422 for a `txsInput` on a DID of a method derived from its key (did:key, did:jwk). */
export { immutable as immutableMethodError, jwkOfMethod, jwkOfMultikey, relationshipKeys } from './derived.js'

const METHODS: readonly DidMethod[] = [didKey, didJwk]

const BY_NAME = new Map(METHODS.map((method) => [method.name, method]))

/** The method named `name` (`key`, `jwk`); undefined for a method not listed. */
export const didMethodNamed = (name: string): DidMethod | undefined => BY_NAME.get(name)

/** The method of a DID or DID URL (`did:<name>:…`); undefined for one not listed. */
export function didMethodOf(did: string): DidMethod | undefined {
  const match = /^did:([a-z0-9]{1,20}):/.exec(did)
  return match ? BY_NAME.get(match[1]) : undefined
}

/** The names of the methods listed. */
export const didMethodNames = (): string[] => [...BY_NAME.keys()]

/** The methods resolved offline from the DID alone (derived from their key): the default resolver answers them itself. */
export const OFFLINE_METHODS: readonly DidMethod[] = [didKey, didJwk]

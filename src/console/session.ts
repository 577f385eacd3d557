/**
 * The tab's API key: one JS variable of this module, never written to a storage API, a cookie or the URL, gone when the
 * tab closes or on sign-out. The client reads it for each call.
 */
import { createClient, type DidvaultClient } from '../client/index.js'

let apiKey: string | undefined

/** Keeps `key` for this tab's calls (replacing any earlier one). */
export function signIn(key: string): void {
  apiKey = key
}

/** Forgets the key. */
export function signOut(): void {
  apiKey = undefined
}

/** The client of the service that served the console (same origin), sending the tab's key as a Bearer token. */
export function sessionClient(): DidvaultClient {
  return createClient({
    baseUrl: location.origin,
    auth: () => ({ authorization: `Bearer ${apiKey ?? ''}` }),
  })
}

/** The same operations with the tab's key and a DID-auth token (`x-did-auth`): for the operations that act as a DID. */
export function actingAs(client: DidvaultClient, didAuth: string) {
  return client.as(() => ({ authorization: `Bearer ${apiKey ?? ''}`, didAuth }))
}

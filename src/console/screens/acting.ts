/**
 * Acting as a DID of the tenant: operations declared `tenant+did` need, beside the API key, a DID-auth token
 * (`x-did-auth`) of a wallet the caller controls. The console asks the service for one (Generate Token, with the API
 * key) for the wallet the user picks and keeps it in memory until shortly before it expires.
 */
import type { ClientOperations } from '../../client/index.js'
import type { ScreenProps } from '../screen.js'

/** Lifetime asked for a token: 10 minutes (renewed a minute before it ends). */
const LIFETIME_MS = 600_000
const MARGIN_MS = 60_000

const tokens = new Map<string, { jwt: string; until: number }>()

/** A DID-auth JWT of `did` (a wallet of the tenant), minted by the service or reused while it lives. */
export async function didAuthToken(props: ScreenProps, did: string): Promise<string> {
  const held = tokens.get(did)
  if (held !== undefined && held.until > Date.now() + MARGIN_MS) return held.jwt
  const { jwt } = await props.client.generateToken({ iss: did, expiresIn: LIFETIME_MS })
  tokens.set(did, { jwt, until: Date.now() + LIFETIME_MS })
  return jwt
}

/** The operations sent with the API key and a DID-auth token of `did`. */
export async function actingAs(props: ScreenProps, did: string): Promise<ClientOperations> {
  return props.asDid(await didAuthToken(props, did))
}

/** The operations sent with a DID-auth JWT of `did` as the Access Token (`Authorization: Bearer <jwt>`), no API key. */
export async function withAccessToken(props: ScreenProps, did: string): Promise<ClientOperations> {
  const jwt = await didAuthToken(props, did)
  return props.client.as({ authorization: `Bearer ${jwt}` })
}

/** Forgets every token (sign-out). */
export function forgetTokens(): void {
  tokens.clear()
}

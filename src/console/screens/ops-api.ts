/**
 * The operations helper "ops" adds for the console (`listStatusLists`, `verifyAuditChain`), read with the shapes its
 * brief names. One place to adjust if the declared shapes differ.
 */
import type { ScreenProps } from '../screen.js'

/** A status list of the tenant, as List Status Lists answers it. */
export interface StatusListItem {
  id: string
  url?: string
  purpose?: string
  format?: string
  mechanism?: string
  size?: number
  issuer?: string
  updatedAt?: string | number
  signedAt?: string
  etag?: string
}

/** The audit chain's verification report. */
export interface ChainReport {
  ok: boolean
  count?: number
  broken?: { seq?: number; reason?: string }
  [field: string]: unknown
}

type Loose = Record<string, (input?: unknown) => Promise<unknown>>

const operation = (props: ScreenProps, name: string) => {
  const fn = (props.client as unknown as Loose)[name]
  if (typeof fn !== 'function') throw new Error(`this service has no ${name} operation`)
  return fn
}

/** One page of the tenant's status lists. */
export async function listStatusLists(props: ScreenProps, cursor?: string): Promise<{ lists: StatusListItem[]; nextCursor?: string }> {
  return (await operation(props, 'listStatusLists')({ limit: 50, ...(cursor !== undefined && { cursor }) })) as {
    lists: StatusListItem[]
    nextCursor?: string
  }
}

/** The tenant's audit chain, verified by the service. */
export async function verifyAuditChain(props: ScreenProps): Promise<ChainReport> {
  return (await operation(props, 'verifyAuditChain')({})) as ChainReport
}

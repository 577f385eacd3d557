/**
 * What the router learns of a request, for whoever logs or measures it (`res.locals`): its id,
 * the operation it ran and the tenant it authenticated as.
 */
import { randomUUID } from 'node:crypto'
import type { OperationName } from '../service/contracts.js'

/** Kept in `res.locals` by the router; a middleware before it may set `requestId` first. */
export interface RequestFacts {
  requestId?: string
  operation?: OperationName
  /** Set once the headers authenticated ('' for a public operation). */
  tenantId?: string
}

/** An incoming `x-request-id` is kept only when it is a plain token: at most 128 of `A-Z a-z 0-9 . _ : -`. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The request's id: the caller's `x-request-id` when sane, else a new random UUID. */
export const requestIdOf = (header: string | undefined): string =>
  header !== undefined && SANE_REQUEST_ID.test(header) ? header : randomUUID()

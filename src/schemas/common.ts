/** Building blocks shared by the request schemas. */
import { z } from 'zod'

/** Longest string any free-text field accepts. */
export const MAX_TEXT = 2_000

export const text = (max = MAX_TEXT) => z.string().max(max)
export const nonEmpty = (max = 200) => z.string().trim().min(1).max(max)
export const did = z.string().regex(/^did:[a-z0-9]+:[A-Za-z0-9._%:-]+$/, 'must be a DID').max(500)
export const ethAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be an Ethereum address')
export const id = z.string().trim().min(1).max(200)
/** Milliseconds, positive, at most ~100 years. */
export const durationMs = z.number().int().positive().max(100 * 365 * 24 * 3600 * 1000)
/** A UNIX timestamp in milliseconds. */
export const timestampMs = z.number().int().positive().max(8.64e15)
export const isoDate = z.iso.datetime({ offset: true })

/** An array of at most `max` items (the batch limit). */
export const batch = <T extends z.ZodType>(item: T, max: number) => z.array(item).min(1).max(max)

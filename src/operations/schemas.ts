/** Building blocks shared by the request and response schemas. */
import * as z from 'zod'
import { isEthrDidSyntax } from '../did/methods/ethr/syntax.js'

/**
 * A flag-free pattern of exactly `words` in any letter case: each letter a class of both cases (`read` →
 * `^(?:[Rr][Ee][Aa][Dd])$`). JSON Schema (and so OpenAPI) patterns carry no flags — an `i` flag is lost on the way
 * to the document — so case-insensitive words are spelled out. `words` are letters, digits and `-` only.
 */
export function anyCase(...words: string[]): RegExp {
  const spell = (word: string) =>
    [...word].map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toUpperCase()}${c.toLowerCase()}]`)).join('')
  if (words.some((word) => !/^[A-Za-z0-9-]+$/.test(word))) throw new TypeError('anyCase: words are letters, digits and - only')
  return new RegExp(`^(?:${words.map(spell).join('|')})$`)
}

/** Longest string any free-text field accepts. */
export const MAX_TEXT = 2_000

/**
 * Characters no name or alias may hold: C0/C1 controls (`\p{Cc}`), line and paragraph
 * separators, and the bidirectional embeddings, overrides and isolates that can make a name
 * display as another (U+202A–U+202E, U+2066–U+2069).
 */
const UNSAFE_IN_LABEL = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u
/** In multi-line text, tabs and line breaks are fine; other controls and bidi overrides are not. */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const UNSAFE_IN_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/u

/** Free text (descriptions): at most `max` characters, no control characters but tab and line breaks, no bidi overrides. */
export const text = (max = MAX_TEXT) =>
  z
    .string()
    .max(max)
    .refine((s) => !UNSAFE_IN_TEXT.test(s), 'must not contain control characters or bidirectional overrides')
/** A one-line name (aliases, vault names): trimmed, 1 to `max` characters, no control characters or bidi overrides. */
export const label = (max = 200) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((s) => !UNSAFE_IN_LABEL.test(s), 'must not contain control characters or bidirectional overrides')
/** A DID; a did:ethr one must be an address or a secp256k1 public key (compressed or uncompressed) on the curve. */
export const did = z
  .string()
  .regex(/^did:[a-z0-9]+:[A-Za-z0-9._%:-]+$/, 'must be a DID')
  .max(500)
  .refine(
    (d) => !d.startsWith('did:ethr:') || isEthrDidSyntax(d),
    'not a valid did:ethr: give an address (0x + 40 hex) or a secp256k1 public key (0x + 66 or 130 hex)',
  )
export const ethAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be an Ethereum address')
export const id = z.string().trim().min(1).max(200)
/** Milliseconds, positive, at most ~100 years. */
export const durationMs = z
  .number()
  .int()
  .positive()
  .max(100 * 365 * 24 * 3600 * 1000)
/** A UNIX timestamp in milliseconds. */
export const timestampMs = z.number().int().positive().max(8.64e15)
export const isoDate = z.iso.datetime({ offset: true })

/** An array of at most `max` items (the batch limit). */
export const batch = <T extends z.ZodType>(item: T, max: number) => z.array(item).min(1).max(max)

/** Most items one page of a list holds. */
export const MAX_PAGE = 1_000

/**
 * Paging of list operations: `limit` (1–1,000, default 1,000; a number, or its decimal digits
 * as a query string carries it) and the `cursor` a previous page returned as `nextCursor`.
 */
export const page = {
  limit: z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d{1,4}$/, 'must be a whole number')
        .transform(Number),
    ])
    .pipe(z.number().int().min(1).max(MAX_PAGE))
    .optional()
    .meta({ description: `Most items to return (1–${MAX_PAGE}, default ${MAX_PAGE}).` }),
  cursor: z.string().min(1).max(2_000).optional().meta({ description: 'The `nextCursor` of the previous page.' }),
}

/** `nextCursor` of a page response: present when more items follow. */
export const nextCursor = z.string().optional().meta({ description: 'Present when more items follow: pass it as `cursor` to get them.' })

/** The spec's error body. */
export const errorBody = z
  .strictObject({
    statusCode: z.number().int(),
    errorType: z.enum([
      'VALIDATION_ERROR',
      'NOT_FOUND',
      'UNAUTHENTICATED',
      'FORBIDDEN',
      'VAULT_NOT_INITIALIZED',
      'CONFLICT',
      'PAYLOAD_TOO_LARGE',
      'INTERNAL_ERROR',
      'SERVICE_UNAVAILABLE',
    ]),
    errorMessage: z.string(),
  })
  .meta({ id: 'ErrorBody', description: 'Every error response, and every per-item failure of a batch.' })

/** When something ends: at most one of an absolute time (`exp`, `expirationDate`) or a lifetime (`expiresIn`). */
export const expiration = {
  exp: timestampMs.optional().meta({ description: 'Expiration, UNIX time in milliseconds.' }),
  expiresIn: durationMs.optional().meta({ description: 'Lifetime in milliseconds from now.' }),
  expirationDate: isoDate.optional().meta({ description: 'Expiration, ISO 8601.' }),
}

/**
 * The OAuth 2.0 error body (RFC 6749 §5.2, RFC 6750 §3.1): the errors of operations declaring `errorFormat: 'oauth'`;
 * members beyond `error` and `error_description` (`c_nonce`) as the protocol defines them.
 */
export const oauthErrorBody = z
  .looseObject({
    error: z.string().meta({ description: 'The error code: `invalid_request`, `invalid_grant`, `invalid_token`, `invalid_proof`, …' }),
    error_description: z.string().optional().meta({ description: 'Human-readable (printable ASCII), for the developer' }),
  })
  .meta({ id: 'OAuthErrorBody' })

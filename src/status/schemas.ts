/** The zod schemas of the status operations' requests and responses (browser-safe). */
import * as z from 'zod'
import { errorBody, isoDate, nextCursor, page } from '../operations/schemas.js'
import { statusPurpose } from '../credentials/schemas.js'

const purposeAndValue = {
  purpose: statusPurpose,
  value: z.boolean().meta({ description: 'The new status: true revokes (final) or suspends, false lifts a suspension.' }),
}

const statusItem = z
  .union([
    z.strictObject({ _id: z.string().min(1).max(200).meta({ description: 'A stored credential’s `_id`.' }), ...purposeAndValue }),
    z.strictObject({ id: z.string().min(1).max(2_000).meta({ description: 'A credential’s `id`, as signed.' }), ...purposeAndValue }),
    z.strictObject({
      statusListCredential: z.string().min(1).max(2_000).meta({ description: 'The list URL of a `credentialStatus` entry.' }),
      statusListIndex: z
        .union([z.string().regex(/^(0|[1-9][0-9]{0,9})$/, 'must be a decimal index'), z.number().int().nonnegative()])
        .meta({ description: 'The index of the entry in that list.' }),
      ...purposeAndValue,
    }),
  ])
  .meta({ id: 'StatusChange' })

export const changeStatus = z.strictObject({ items: z.array(statusItem).min(1) })
export type ChangeStatusInput = z.output<typeof changeStatus>
export type StatusItem = z.output<typeof statusItem>

const changedEntry = z.strictObject({
  statusListCredential: z.string(),
  statusListIndex: z.string(),
  statusPurpose,
  value: z.boolean(),
  changed: z.boolean().meta({ description: 'False when the entry had that value already (nothing written).' }),
})

export const changeStatusResponse = z.strictObject({
  items: z.array(
    z.strictObject({
      index: z.number().int().meta({ description: 'Index of the item in the request.' }),
      entries: z.array(changedEntry).meta({ description: 'The `credentialStatus` entries the item named.' }),
    }),
  ),
  errors: z.array(z.strictObject({ index: z.number().int(), error: errorBody })),
})

export const getStatusListParams = z.strictObject({
  listId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a status list id'),
})
export const getStatusListQuery = z.strictObject({})
export type GetStatusListInput = z.output<typeof getStatusListParams>

/** A served document: the embedded API's answer; over HTTP the document itself, with these as headers. */
export const servedStatusList = z.strictObject({
  document: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .meta({ description: 'The signed list: a BitstringStatusListCredential (a VC-JWT, or a JSON-LD document), or a Status List Token.' }),
  contentType: z.enum(['application/vc+ld+json', 'application/vc+jwt', 'application/statuslist+jwt']),
  etag: z.string(),
  maxAge: z.number().int().nonnegative().meta({ description: 'Seconds it may be cached (`Cache-Control: public, max-age`).' }),
})
export type ServedStatusList = z.output<typeof servedStatusList>

const booleanFlag = z
  .union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')])
  .meta({ description: '`true` or `false` (a query string carries it as text).' })

export const listStatusListsQuery = z.strictObject({
  withBits: booleanFlag
    .optional()
    .meta({ description: '`true`: each list carries `bits`, its current statuses as a bitstring (one bit per index, base64url).' }),
  ...page,
})

/** One status list of the tenant, as `GET /status-lists` describes it. */
export const statusListSummary = z
  .strictObject({
    id: z.string().meta({ description: 'The list id (`GET /status/:listId`).' }),
    url: z.string().meta({ description: 'The list’s URL, as credentials name it (`statusListCredential`).' }),
    purpose: statusPurpose,
    format: z.enum(['JSON-LD', 'JWT', 'SD-JWT', 'VC-JOSE']).meta({ description: 'The format of the credentials it serves.' }),
    mechanism: z
      .enum(['Bitstring Status List', 'Token Status List'])
      .meta({ description: 'The W3C Bitstring Status List (JSON-LD, JWT, VC-JOSE) or the IETF Token Status List (SD-JWT VCs).' }),
    size: z.number().int().positive().meta({ description: 'Entries in the list.' }),
    allocated: z.number().int().nonnegative().meta({ description: 'Entries allocated to credentials.' }),
    full: z.boolean(),
    issuer: z.string().meta({ description: 'The issuer DID.' }),
    createdAt: isoDate,
    updatedAt: isoDate.meta({ description: 'The last status change of the list (its creation when none).' }),
    signedAt: isoDate.optional().meta({ description: 'When the stored signed list was signed (its `validFrom`/`iat`); absent before.' }),
    expiresAt: isoDate.optional().meta({ description: 'When the stored signed list expires (a Status List Token’s `exp`).' }),
    etag: z.string().optional().meta({ description: 'ETag of the stored signed list, as `GET /status/:listId` sends it.' }),
    pending: z.boolean().meta({ description: 'True while a change is not yet in the signed list (it is signed again shortly).' }),
    bits: z
      .string()
      .optional()
      .meta({
        description:
          'With `withBits=true`: the list’s current statuses, one bit per index (set: a status other than 0, i.e. revoked or ' +
          'suspended), most significant bit first, base64url without padding. Current: it may be ahead of the signed list ' +
          'while `pending`.',
      }),
  })
  .meta({ id: 'StatusListSummary' })
export type StatusListSummary = z.output<typeof statusListSummary>

export const statusListsPage = z.strictObject({ lists: z.array(statusListSummary), nextCursor })

/** The zod schemas of the status operations' requests and responses (browser-safe). */
import * as z from 'zod'
import { errorBody } from '../operations/schemas.js'
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

/**
 * Get Overview (`GET /overview`): the caller's tenant's records counted by the database, each count a `count` on an
 * index whose first field is `tenantId` (credentials by format on `tenantId, format, createdAt`). Credentials stored by
 * releases before 0.3.0 hold no `format`: the few there are are read (by the same index, `format` null) and counted by
 * the format they hold.
 */
import type { Caller } from '../auth/context.js'
import { AUDIT_RECORDS } from '../audit/records.js'
import type { FormatName } from '../credentials/formats/index.js'
import { CREDENTIALS, encodedOfRecord } from '../credentials/records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import { STATUS_LISTS } from '../status/records.js'
import { VAULTS } from '../vaults/records.js'
import { WALLETS } from '../wallets/records.js'
import type { Overview } from './overview-contracts.js'

/** Every format a stored credential may have (the credential-format port's names). */
const FORMATS: readonly FormatName[] = ['JSON-LD', 'JWT', 'SD-JWT', 'VC-JOSE']

/** Records of earlier releases read per round trip. */
const LEGACY_PAGE = 1_000

export async function getOverview(ctx: { storage: StorageAdapter }, caller: Caller): Promise<Overview> {
  const t = tenantCollections(ctx.storage, caller.tenantId, {
    vaults: VAULTS,
    wallets: WALLETS,
    credentials: CREDENTIALS,
    statusLists: STATUS_LISTS,
    auditRecords: AUDIT_RECORDS,
  })
  const byFormat: Record<string, number> = {}
  const add = (format: string, n: number) => {
    if (n > 0) byFormat[format] = (byFormat[format] ?? 0) + n
  }
  for (const format of FORMATS) add(format, await t.credentials.count({ field: 'format', op: 'eq', value: format }))
  let cursor: string | undefined
  do {
    const page = await t.credentials.find({ field: 'format', op: 'eq', value: null }, { limit: LEGACY_PAGE, cursor })
    for (const record of page.items) add(encodedOfRecord(record).format, 1)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return {
    storage: ctx.storage.name,
    counts: {
      vaults: await t.vaults.count(),
      wallets: await t.wallets.count(),
      credentials: { total: await t.credentials.count(), byFormat },
      statusLists: await t.statusLists.count(),
      auditRecords: await t.auditRecords.count(),
    },
  }
}

/**
 * The contract of Get Overview (`GET /overview`): what a tenant holds, counted. Browser-safe: schemas and types only.
 */
import * as z from 'zod'
import { QUERY_ERRORS, defineContract } from '../operations/contract.js'

const count = z.number().int().nonnegative()

export const getOverviewQuery = z.strictObject({})

/** The tenant's counts and the storage backend. */
export const overview = z
  .strictObject({
    storage: z.string().meta({ description: 'The storage adapter’s name: `memory`, `sqlite`, `postgres`, `mongodb` or a custom one.' }),
    counts: z.strictObject({
      vaults: count,
      wallets: count,
      credentials: z.strictObject({
        total: count.meta({ description: 'Stored credentials of the tenant (all of them, whoever may read them).' }),
        byFormat: z
          .record(z.string(), count)
          .meta({ description: 'Stored credentials by format, as Fetch reports it (`JSON-LD`, `JWT`, `SD-JWT`, `VC-JOSE`); no zeros.' }),
      }),
      statusLists: count,
      auditRecords: count.meta({ description: 'Records of the tenant’s audit chain (chained ones; see `GET /audit` for the lag).' }),
    }),
  })
  .meta({ id: 'Overview' })
export type Overview = z.output<typeof overview>

export const OVERVIEW_CONTRACTS = {
  /** Get Overview (`GET /overview`): the tenant's vaults, wallets, credentials, status lists and audit records, counted. */
  getOverview: defineContract({
    summary: 'Get Overview',
    description:
      'What the caller’s tenant holds, counted by the database (each count served by an index, never by reading the ' +
      'records): vaults, wallets, stored credentials in total and by format, status lists and audit records; and the ' +
      'storage backend’s name. Needs the tenant’s Base Auth Token; counts only that tenant’s records.',
    auth: 'tenant',
    tag: 'Service',
    errors: QUERY_ERRORS,
    routes: [{ method: 'get', path: '/overview' }],
    input: getOverviewQuery,
    response: overview,
  }),
}

/**
 * The contract of Get Audit Records (`GET /audit`, see `operations/contract.ts`). Browser-safe:
 * schemas and types only.
 */
import { QUERY_ERRORS, defineContract } from '../operations/contract.js'
import { auditPage, getAuditQuery } from './schemas.js'

export const AUDIT_CONTRACTS = {
  /** Get Audit Records (`GET /audit`): the tenant's audit trail, oldest first, filtered and paged. */
  getAuditRecords: defineContract({
    summary: 'Get Audit Records',
    description:
      'The tenant’s hash-chained audit trail, oldest first (by `seq`): every security-relevant act and every refused ' +
      'attempt, with actor, action, target, outcome, request id and time. Filters: `action`, `actor` (a DID the actor ' +
      'proved, or its API key id), `target` (id or DID), `from`/`to` (ISO 8601, inclusive). Needs the tenant’s Base ' +
      'Auth Token (an API key: a DID-auth token does not do); hold it for operators and security reviewers, not apps. ' +
      'A record is committed with its act and chained (given its `seq` and hashes) shortly after; the tenant’s records ' +
      'still unchained are chained before the page is read, and any left are counted in `lag`.',
    auth: 'tenant',
    tag: 'Audit trail',
    errors: QUERY_ERRORS,
    routes: [{ method: 'get', path: '/audit' }],
    input: getAuditQuery,
    response: auditPage,
  }),
}

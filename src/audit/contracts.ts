/**
 * The contract of Get Audit Records (`GET /audit`, see `operations/contract.ts`). Browser-safe:
 * schemas and types only.
 */
import { QUERY_ERRORS, defineContract } from '../operations/contract.js'
import { auditChainReport, auditPage, getAuditQuery, verifyAuditChainQuery } from './schemas.js'

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
  /** Verify the Audit Chain (`GET /audit/verify`): the caller's tenant's chain walked and checked. */
  verifyAuditChain: defineContract({
    summary: 'Verify the Audit Chain',
    description:
      'Walks the caller’s tenant’s audit chain and checks it, as `didvault audit verify --tenant` does: every record’s ' +
      'hash recomputed, `seq` 1, 2, 3… without a gap, each `prevHash` the hash of the record before, and the chain’s head ' +
      'naming its last record (so a cut tail shows). Answers `ok`, the records found sound and the first broken link with ' +
      'what is wrong there; records committed but not chained yet are `unchained`, never a break. Reads only (not ' +
      'audited, like Get Audit Records); reads the whole chain, so it takes time on long chains. Needs the tenant’s Base ' +
      'Auth Token; only that tenant’s chain is ever read.',
    auth: 'tenant',
    tag: 'Audit trail',
    errors: QUERY_ERRORS,
    routes: [{ method: 'get', path: '/audit/verify' }],
    input: verifyAuditChainQuery,
    response: auditChainReport,
  }),
}

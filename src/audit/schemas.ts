/** The audit trail's request and response schemas (browser-safe: zod only). */
import * as z from 'zod'
import { did, isoDate, nextCursor, page } from '../operations/schemas.js'

/** Every action the trail records (docs/operations.md *Audit trail*). */
export const AUDIT_ACTIONS = [
  'vault.create',
  'vault.delete',
  'wallet.create',
  'wallet.delete',
  'wallet.rename',
  'did.update',
  'role.create',
  'role.update',
  'role.delete',
  'assignment.grant',
  'assignment.revoke',
  'credential.sign',
  'credential.store',
  'credential.addProof',
  'credential.removeProof',
  'credential.delete',
  'credential.status',
  'credential.issue',
  'credential.notification',
  'statusList.sign',
  'presentation.sign',
  'credentialConfiguration.create',
  'credentialConfiguration.update',
  'credentialConfiguration.delete',
  'credentialOffer.create',
  // ---- helper "deferred": a credential request deferred, and the issuing backend's refusal of one
  'credential.defer',
  'credential.refuse',
  // OID4VCI authorization code flow: a user's authorization (a code issued to the wallet) or its refusal
  'credential.authorize',
  // OID4VP: a presentation request made; a same-device result read with its response code (and refusals of one)
  'presentationRequest.create',
  'presentationResult.read',
  'token.generate',
  'mpc.initialize',
  'mpc.sign',
  'apiKey.create',
  'apiKey.revoke',
  'masterKey.rotate',
  // An HSM key's token object destroyed (C_DestroyObject) after the records of its wallet were deleted
  'hsmKey.destroy',
] as const

export type AuditAction = (typeof AUDIT_ACTIONS)[number]

const bounded = z.string().min(1).max(500)

/** One record of the trail as `GET /audit` returns it; its `hash` covers every other field (docs/operations.md). */
export const auditEntry = z.object({
  tenant: z.string().meta({ description: 'The chain: the tenant, or `@system` for acts of no tenant.' }),
  seq: z.number().int().positive().meta({
    description: '1, 2, 3… without gaps in the chain, in the order the sequencer chained the records (not the order of the acts).',
  }),
  time: isoDate,
  actor: z.object({
    apiKeyId: z.string().optional().meta({ description: 'Id of the API key of the request (never the key).' }),
    dids: z.array(z.string()).meta({ description: 'The DIDs the request’s DID-auth tokens proved.' }),
    system: z.string().optional().meta({
      description: 'A part of the service that acted on its own: `publisher` (the status-list publisher signing a changed list).',
    }),
  }),
  action: z.enum(AUDIT_ACTIONS),
  target: z.object({
    type: z.string(),
    id: z.string(),
    role: z.string().optional().meta({ description: 'An assignment’s role DID (its `id` is the DID it is assigned to).' }),
    offer: z.string().optional().meta({ description: 'OID4VCI: the offer a credential was issued by (`credential.issue`).' }),
    holderKey: z
      .string()
      .optional()
      .meta({ description: 'OID4VCI: RFC 7638 thumbprint of the holder key a credential is bound to (`credential.issue`).' }),
    event: z
      .string()
      .optional()
      .meta({ description: 'OID4VCI: the wallet’s notification event (`credential.notification`: credential_accepted, …).' }),
  }),
  outcome: z.enum(['ok', 'refused']),
  error: z.string().optional().meta({ description: 'The error type of a refused act (`FORBIDDEN`).' }),
  approvals: z.array(z.string()).optional().meta({ description: 'MPC: the members whose approvals met the quorum.' }),
  requestId: z.string(),
  prevHash: z.string().regex(/^[0-9a-f]{64}$/),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
})

export type AuditEntry = z.infer<typeof auditEntry>

export const getAuditQuery = z.strictObject({
  action: z.enum(AUDIT_ACTIONS).optional(),
  actor: z
    .union([did, bounded.regex(/^key_[A-Za-z0-9_-]+$/, 'must be a DID or an API key id (key_…)')])
    .optional()
    .meta({ description: 'A DID the actor proved, or the id of its API key (`key_…`).' }),
  target: bounded.optional().meta({ description: 'The id or DID the act was on.' }),
  from: isoDate.optional().meta({ description: 'Acts at or after this time (ISO 8601).' }),
  to: isoDate.optional().meta({ description: 'Acts at or before this time (ISO 8601).' }),
  ...page,
})

/** The tenant's records committed with their acts but not chained yet (the integration lag; never a break). */
export const auditLag = z
  .object({
    records: z.number().int().positive().meta({ description: 'How many records are committed but not chained yet.' }),
    oldest: isoDate.meta({ description: 'When the oldest of them was appended.' }),
    ageMs: z.number().int().nonnegative().meta({ description: 'Its age when this page was read, in ms.' }),
  })
  .meta({
    description:
      'Present when some of the tenant’s committed records are not chained yet (the sequencer chains them within ' +
      'about a second; docs/operations.md *Audit trail*). They appear in the trail once chained.',
  })

export type AuditLag = z.infer<typeof auditLag>

export const auditPage = z.object({ records: z.array(auditEntry), nextCursor, lag: auditLag.optional() })

export const verifyAuditChainQuery = z.strictObject({})

/** The verification of the caller's tenant's chain (`GET /audit/verify`). */
export const auditChainReport = z
  .strictObject({
    ok: z.boolean().meta({ description: 'True when the chain is intact (records not chained yet are no break).' }),
    records: z.number().int().nonnegative().meta({ description: 'Records walked and found sound (up to the break, if any).' }),
    break: z
      .strictObject({
        seq: z.number().int().meta({ description: 'The `seq` where the chain breaks.' }),
        problem: z.string().meta({ description: 'What is wrong there (a missing or repeated record, a changed hash, a cut tail…).' }),
        act: z
          .strictObject({ action: z.string(), targetType: z.string(), targetId: z.string() })
          .optional()
          .meta({ description: 'The act of the record where it shows, as stored, when that record is there.' }),
      })
      .optional()
      .meta({ description: 'The first broken link; absent when `ok`.' }),
    unchained: z
      .strictObject({ records: z.number().int().positive(), oldest: isoDate })
      .optional()
      .meta({ description: 'Records committed with their acts but not chained yet (the integration lag); absent when none.' }),
  })
  .meta({ id: 'AuditChainReport' })
export type AuditChainReport = z.output<typeof auditChainReport>

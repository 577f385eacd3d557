/**
 * Add and remove proofs of JSON-LD credentials (`PATCH /claims` with `operation: "addProof"`,
 * alias `POST /claims/proofs`, and `operation: "removeProof"`; DESIGN §4 `PATCH /claims`,
 * *Patch (add proof) items*, *VC write access*).
 *
 * Each item is a stored credential (`_id`) or a given JSON-LD credential (`jsonld`; the
 * tenant's stored records with the same `id` are updated too). Spec rule 5 decides on the
 * credential's DID (`canWriteCredential`: the owner of its DID, or a Write role assigned to it
 * and held by the caller). The new proof is appended to the proof set; the existing proofs are
 * kept as they are. A JWT cannot take a second proof (422).
 */
import type { z } from 'zod'
import type { Caller } from '../auth/context.js'
import { canWriteCredential } from './policy.js'
import { holdsKey, type HoldingFacts } from '../auth/policy-engine.js'
import { addProof, proofsOf, type JsonLdDocument, type ProofObject } from '../proofs/jsonld/index.js'
import { verificationMethodOf } from '../proofs/jwt-signer.js'
import { appendProof } from '../proofs/jsonld/proof-set.js'
import { normalizeDid, principalOf } from '../did/methods/ethr/index.js'
import { forbidden, invalid, notFound } from '../errors.js'
import type { AddProofInput, RemoveProofInput, proofsResponse } from './schemas.js'
import { UniqueConstraintError } from '../storage/port.js'
import { forEachItem } from '../operations/batch.js'
import { canonicalJson } from './content-hash.js'
import { carriedBy, credentialFormatNamed } from './formats/index.js'
import { issuerSigner } from './sign.js'
import { jsonLdHasher } from './jsonld-work.js'
import { credentialFacts } from './facts.js'
import { CREDENTIALS, encodedOfRecord, type CredentialRecord } from './records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { CredentialsContext } from './context.js'

type ProofsResponse = z.output<typeof proofsResponse>
type Item = { _id: string } | { jsonld: Record<string, unknown> } | { jwt: string }

/** The one format whose proof set takes more proofs. */
const JSON_LD = credentialFormatNamed('JSON-LD')

const JWT_REFUSED = 'a JWT credential cannot take a second proof (its signature is its only proof): give a JSON-LD credential'

/** The credential text a proof signs: the document without its proof set, in canonical JSON (sorted keys). */
const unsignedText = (document: JsonLdDocument): string => {
  const { proof: _proofs, ...unsigned } = document
  return canonicalJson(unsigned)
}

/**
 * The credential of an item and the stored records it changes; rule 5 checked on each. A
 * `jsonld` item changes the tenant's stored records with the same `id` whose document, proofs
 * aside, is the one given (canonical comparison): a proof is added to a credential, never a
 * new text written over it. Records that share the `id` with other content are other
 * credentials and stay as they are; when no record holds the given text and some hold the
 * `id`, the item is refused (422), naming the difference as the reason.
 */
async function target(
  ctx: Pick<CredentialsContext, 'callers' | 'config' | 'storage'>,
  caller: Caller,
  holding: HoldingFacts,
  item: Item,
): Promise<{ document: JsonLdDocument; records: CredentialRecord[] }> {
  const { credentials } = tenantCollections(ctx.storage, caller.tenantId, { credentials: CREDENTIALS })
  let document: JsonLdDocument
  let records: CredentialRecord[]
  if ('_id' in item) {
    const record = await credentials.get(item._id)
    if (!record) throw notFound(`no stored credential ${item._id}`)
    const stored = encodedOfRecord(record)
    if (stored.format !== JSON_LD.name) throw invalid(JWT_REFUSED)
    document = stored.encoded as JsonLdDocument
    records = [record]
  } else {
    const given = carriedBy(item)
    if (given.format !== JSON_LD) throw invalid(JWT_REFUSED)
    document = given.encoded as JsonLdDocument
    const parsed = await JSON_LD.parse(document, ctx.config.limits)
    const sameId =
      parsed.vcId === undefined
        ? []
        : (await credentials.find({ field: 'vcId', op: 'eq', value: parsed.vcId }, { limit: 100 })).items.filter(
            (r) => encodedOfRecord(r).format === JSON_LD.name,
          )
    const text = unsignedText(document)
    records = sameId.filter((r) => unsignedText(encodedOfRecord(r).encoded as JsonLdDocument) === text)
    if (records.length === 0) {
      // A caller who may change a stored copy learns why it is refused; anyone else only that it may not.
      for (const record of sameId) {
        if (canWriteCredential(holding, await credentialFacts(ctx, record))) {
          throw invalid(
            `jsonld: differs from the stored credential ${parsed.vcId} in more than its proofs; a proof changes only ` +
              `the proof set (send the stored document, or its _id)`,
          )
        }
      }
      const facts = await credentialFacts(ctx, {
        tenantId: caller.tenantId,
        ...(parsed.did !== undefined && { did: parsed.did }),
        isPublicAccess: false,
        storedBy: [],
        roles: [],
      })
      if (!canWriteCredential(holding, facts)) throw forbidden(refusal(parsed.vcId))
    }
  }
  for (const record of records) {
    if (!canWriteCredential(holding, await credentialFacts(ctx, record))) throw forbidden(refusal(record.vcId ?? record.id))
  }
  return { document, records }
}

/** The request's items, each credential given as `jsonld` checked against the service's JSON-LD bounds first (422 for the request). */
function checkedItems(ctx: Pick<CredentialsContext, 'config'>, input: { claims?: Item[]; vcs?: Item[] }): Item[] {
  const [field, items] = input.claims !== undefined ? ['claims', input.claims] : ['vcs', input.vcs ?? []]
  for (const [i, item] of items.entries()) {
    if ('_id' in item) continue
    const { format, encoded } = carriedBy(item)
    format.checkInput(encoded, `${field}.${i}.${format.member}`, ctx.config.limits)
  }
  return items
}

const refusal = (id: string | undefined) =>
  'only the owner of the credential’s DID or a holder of a Write role assigned to it may change its proofs' +
  (id === undefined ? ' (it has no DID)' : ` (${id})`)

/**
 * Applies `change` (a change of the proof set only) to each stored record's own document —
 * its other proofs stay byte for byte — and writes them in one transaction (each record's
 * content hash follows its new proof set), with their audit records (`action`). A credential
 * given inline that the tenant does not store is recorded by its `id` (the change is the response).
 */
async function update(
  ctx: Pick<CredentialsContext, 'audit' | 'storage'>,
  caller: Caller,
  records: CredentialRecord[],
  change: (document: JsonLdDocument) => JsonLdDocument,
  action: 'credential.addProof' | 'credential.removeProof',
  given: JsonLdDocument,
): Promise<string[]> {
  const unstored = typeof given.id === 'string' ? given.id : ''
  const targets = records.length === 0 ? [unstored] : records.map((r) => r.id)
  try {
    await ctx.storage.transaction(async (tx) => {
      const { credentials } = tenantCollections(tx, caller.tenantId, { credentials: CREDENTIALS })
      for (const record of records) {
        const document = change(encodedOfRecord(record).encoded as JsonLdDocument) as Record<string, unknown>
        // Written in the current shape (a record of an earlier release loses its `jsonld` member).
        await credentials.update(record.id, {
          format: JSON_LD.name,
          encoded: document,
          jsonld: undefined,
          hash: JSON_LD.contentHash(document),
        })
      }
      await ctx.audit.append(
        tx,
        caller,
        targets.map((id) => ({ action, target: { type: 'credential', id } })),
      )
    })
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw invalid('the tenant already stores this credential with this proof set')
    throw err
  }
  return records.map((r) => r.id)
}

/** Add a proof: signed by `iss` (or the caller's first DID), appended to each credential's proof set. */
export async function addProofs(
  ctx: Pick<
    CredentialsContext,
    'audit' | 'callers' | 'config' | 'jsonld' | 'now' | 'onError' | 'onItemFailure' | 'registries' | 'resolvers' | 'signers' | 'storage'
  >,
  caller: Caller,
  input: AddProofInput,
): Promise<ProofsResponse> {
  const { name } = ctx.resolvers.get(input.resolver)
  const holding = await ctx.callers.holding(caller)
  const iss = input.iss ?? [...holding.dids][0]
  if (iss === undefined) throw invalid('iss: give the DID that signs the proof (the DID-auth tokens name no DID the caller acts through)')
  // A key no JSON-LD suite signs with is refused before any item is read (422 naming the suites).
  const proof = { proofType: input.proofType, cryptosuite: input.cryptosuite }
  const keySigner = await issuerSigner(ctx, caller, iss, { format: JSON_LD, proof })
  const creator =
    (await verificationMethodOf(normalizeDid(iss), keySigner.publicJwk, ctx.resolvers.get().resolver)) ?? `${normalizeDid(iss)}#controller`
  const items = checkedItems(ctx, input)
  const hasher = jsonLdHasher(ctx, caller)
  const { results, errors } = await forEachItem(
    ctx,
    caller,
    'add proof',
    items.map((item, index) => ({ item, index })),
    async ({ item }) => {
      const { document, records } = await target(ctx, caller, holding, item)
      const options = { creator, created: new Date(ctx.now()), ...proof, hasher, mandatoryPointers: input.mandatoryPointers }
      const signed = (await addProof(document, keySigner, options)) as JsonLdDocument
      const added = proofsOf(signed).at(-1) as ProofObject
      // Each record keeps its own proofs; the suite may have added its context (nothing else changed).
      const withAdded = (stored: JsonLdDocument) => appendProof({ ...stored, '@context': signed['@context'] }, added)
      return { jsonld: signed, _ids: await update(ctx, caller, records, withAdded, 'credential.addProof', document) }
    },
    ({ index }, error) => ({ claim: index, error }),
  )
  return { resolver: name, vcs: results, errors }
}

/** The principal of the DID a proof's `creator` / `verificationMethod` names. */
function proofDid(proof: unknown): string | undefined {
  if (proof === null || typeof proof !== 'object') return undefined
  const method = (proof as ProofObject).verificationMethod ?? (proof as ProofObject).creator
  return typeof method === 'string' && method.startsWith('did:') ? principalOf(method.split('#')[0]) : undefined
}

/** Remove proofs (extension): those whose creator/verificationMethod names a DID whose owner key the caller holds. */
export async function removeProofs(
  ctx: Pick<CredentialsContext, 'audit' | 'callers' | 'config' | 'onError' | 'onItemFailure' | 'resolvers' | 'storage'>,
  caller: Caller,
  input: RemoveProofInput,
): Promise<ProofsResponse> {
  const { name } = ctx.resolvers.get(input.resolver)
  const holding = await ctx.callers.holding(caller)
  const owned = new Map<string, Promise<boolean>>()
  const ownsDid = (did: string) => {
    let hit = owned.get(did)
    if (hit === undefined) {
      hit = ctx.callers.controllingKeys(did, caller).then(
        (keys) => holdsKey(holding, keys),
        () => false,
      )
      owned.set(did, hit)
    }
    return hit
  }
  const items = checkedItems(ctx, input)
  const { results, errors } = await forEachItem(
    ctx,
    caller,
    'remove proof',
    items.map((item, index) => ({ item, index })),
    async ({ item }) => {
      const { document, records } = await target(ctx, caller, holding, item)
      const removable = new Set<unknown>()
      for (const proof of [document, ...records.map((r) => encodedOfRecord(r).encoded as JsonLdDocument)].flatMap(proofsOf)) {
        const did = proofDid(proof)
        if (did !== undefined && (await ownsDid(did))) removable.add(proof)
      }
      const without = (d: JsonLdDocument): JsonLdDocument => {
        const keep = proofsOf(d).filter((proof) => !removable.has(proof))
        const { proof: _dropped, ...rest } = d
        return keep.length === 0 ? rest : { ...rest, proof: keep.length === 1 ? keep[0] : keep }
      }
      if (!proofsOf(document).some((proof) => removable.has(proof)))
        throw notFound('the credential has no proof by a DID whose owner key the caller holds')
      return { jsonld: without(document), _ids: await update(ctx, caller, records, without, 'credential.removeProof', document) }
    },
    ({ index }, error) => ({ claim: index, error }),
  )
  return { resolver: name, vcs: results, errors }
}

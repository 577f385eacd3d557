/**
 * Derive a Verifiable Credential (`POST /presentations/derive`): a holder's selective disclosure of a credential with
 * an ecdsa-sd-2023 base proof. A given credential is derived for any caller of the tenant (deriving uses no key and
 * writes nothing); a stored one (`_id`) is read under the read rule, one the caller may not read answered as one that
 * does not exist (422 NOT_FOUND). The suite of the base proof derives (the proof-suite registry), canonicalizing
 * through the caller's hasher (the service's pool, the tenant's cap) as signing does.
 */
import type { z } from 'zod'
import type { Caller } from '../auth/context.js'
import { invalid } from '../errors.js'
import { deriveJsonLd, type JsonLdDocument } from '../proofs/jsonld/index.js'
import { assertJsonLdInput, jsonLdHasher } from '../credentials/jsonld-work.js'
import type { CredentialsContext } from '../credentials/context.js'
import { storedCredentialMember } from './sign.js'
import type { DeriveCredentialInput, deriveCredentialResponse } from './schemas.js'

type Context = Pick<CredentialsContext, 'callers' | 'config' | 'custody' | 'jsonld' | 'registries' | 'storage'>

/** The derived credential. */
export async function deriveCredential(
  ctx: Context,
  caller: Caller,
  input: DeriveCredentialInput,
): Promise<z.output<typeof deriveCredentialResponse>> {
  const document = await credentialOf(ctx, caller, input)
  const jsonld = await deriveJsonLd(document, input.selectivePointers, { hasher: jsonLdHasher(ctx, caller) })
  return { jsonld }
}

/** The credential to derive from: the given one within the JSON-LD bounds, or the stored one the caller may read. */
async function credentialOf(ctx: Context, caller: Caller, input: DeriveCredentialInput): Promise<JsonLdDocument> {
  if (input._id === undefined) {
    assertJsonLdInput(ctx, input.jsonld, 'jsonld')
    return input.jsonld as JsonLdDocument
  }
  const member = await storedCredentialMember(ctx, caller, input._id, '_id')
  if (!('jsonld' in member)) throw invalid('_id: the stored credential is no JSON-LD credential (only those derive)')
  return member.jsonld
}

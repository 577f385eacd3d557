/**
 * Issuing a JSON-LD credential with a proof of a registered suite (`proofs/suites/`), signed through the issuer
 * wallet's {@link KeySigner}; the key signs as the verification method of the issuer's document that lists it
 * (`creator`), for did:ethr its `#controller`.
 */
import type { KeySigner } from '../../../keys/signer.js'
import { verificationMethodOf } from '../../../proofs/jwt-signer.js'
import { signJsonLd, type JsonLdDocument } from '../../../proofs/jsonld/index.js'
import { isUndefinedTermError, withUndefinedTerms } from '../../../proofs/jsonld/undefined-terms.js'
import type { CredentialContent, IssueOptions } from '../port.js'
import { unsignedCredential } from '../w3c-document.js'

/**
 * `content` as JSON-LD, signed with one proof by the issuer's key (see {@link IssueOptions}), of the suite the options
 * name or the key type's default (422 naming the suites that fit otherwise), as the issuer's `#controller` for did:ethr.
 * A credential whose terms are all defined is signed as it is; one with a term no context defines is signed again with
 * the undefined-terms context last (the failed attempt costs its canonicalization, up to the undefined term), unless
 * `undefinedTerms` is `reject`.
 *
 * @throws {JsonLdProcessingError} | {UnknownContextError} the credential is not safely canonicalizable
 */
export async function issueJsonLdCredential(
  content: CredentialContent,
  keySigner: KeySigner,
  options: IssueOptions = {},
): Promise<JsonLdDocument> {
  const { proofType, cryptosuite, hasher, undefinedTerms = 'vocab', resolver, mandatoryPointers, bbs } = options
  // A bbs-2023 proof is signed by the wallet's BBS assertion key, which issuerSigner gave for it.
  const signer = cryptosuite === 'bbs-2023' && bbs !== undefined ? bbs.signer : keySigner
  const creator =
    signer === keySigner
      ? ((await verificationMethodOf(content.issuer, keySigner.publicJwk, resolver)) ?? `${content.issuer}#controller`)
      : bbs!.verificationMethod
  const proof = {
    creator,
    created: new Date(content.issuedAt),
    proofType,
    cryptosuite,
    hasher,
    ...(mandatoryPointers !== undefined && { mandatoryPointers }),
  }
  const unsigned = unsignedCredential(content)
  try {
    return await signJsonLd(unsigned, signer, proof)
  } catch (err) {
    // Signed again only when the undefined-terms context is what it lacked (not there yet).
    const underVocab = undefinedTerms === 'vocab' && isUndefinedTermError(err) ? withUndefinedTerms(unsigned) : unsigned
    if (underVocab === unsigned) throw err
    return signJsonLd(underVocab, signer, proof)
  }
}

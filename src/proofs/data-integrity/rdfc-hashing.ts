/**
 * ecdsa-rdfc-2019 (over P-256) and eddsa-rdfc-2022 hash what they sign as didvault's other JSON-LD suites do: through a
 * {@link CanonicalHasher} — the inputs checked against the bounds, RDFC-1.0 in JSON-LD safe mode with the
 * blank-node work bounded, in the service's worker pool under its deadline (by default in this thread), the hashes
 * cached. The verify data is the cryptosuites' own: sha256 of the canonical proof configuration (the proof without
 * `proofValue`, under the document's `@context`) followed by sha256 of the canonical document. (P-384 hashes with
 * SHA-384: its proofs keep the library's own canonicalization.)
 */
import { IN_THREAD_HASHER, type CanonicalHasher } from '../jsonld/canonical-hasher.js'
import type { CryptosuiteDefinition } from './cryptosuites.js'
import type { Cryptosuite } from './libraries.js'

/** Whether `suite` over a key of `curve` hashes with SHA-256 over RDF canonicalization: what a hasher computes. */
export function hashesThroughHasher(suite: CryptosuiteDefinition, curve: string): boolean {
  return (suite.name === 'ecdsa-rdfc-2019' && curve === 'P-256') || (suite.name === 'eddsa-rdfc-2022' && curve === 'Ed25519')
}

/** `cryptosuite` with its verify data computed by `hasher` (default: in this thread). */
export function withHasher(cryptosuite: Cryptosuite, hasher: CanonicalHasher = IN_THREAD_HASHER): Cryptosuite {
  const createVerifyData = async ({ document, proof }: { document: Record<string, unknown>; proof: Record<string, unknown> }) => {
    const { proofValue: _signature, ...options } = proof
    const configuration = { '@context': document['@context'], ...options }
    const [proofHash, documentHash] = await Promise.all(hasher.hashEach([configuration, document]))
    const data = new Uint8Array(proofHash.length + documentHash.length)
    data.set(proofHash)
    data.set(documentHash, proofHash.length)
    return data
  }
  return { ...cryptosuite, createVerifyData }
}

/**
 * The JSON-LD contexts didvault knows. They are bundled (loaded from npm packages or written
 * here as data): JSON-LD processing never fetches anything from the network. SDK users add
 * their own with {@link registerContext} at start-up.
 */
import credentialsContext from 'credentials-context'
import { contexts as credentialsV2Contexts } from '@digitalbazaar/credentials-context'
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context'
import { contexts as statusListContexts } from '@digitalbazaar/vc-bitstring-status-list-context'
import didContext from 'did-context'
import securityContext from 'security-context'
import { SECP256K1_RECOVERY_2020_V0, SECP256K1_RECOVERY_2020_V2 } from './suite-contexts.js'

/** W3C Verifiable Credentials Data Model 1.x context. */
export const CREDENTIALS_V1_URL = 'https://www.w3.org/2018/credentials/v1'
/** W3C Verifiable Credentials Data Model 2.0 context (`validFrom`/`validUntil`; not to be mixed with v1). */
export const CREDENTIALS_V2_URL = 'https://www.w3.org/ns/credentials/v2'
/**
 * W3C Bitstring Status List v1.0 context: the status terms for data model 1.1 credentials (VC-JWTs with
 * `credentialStatus`, JWT status lists); credentials/v2 defines them itself.
 */
export const CREDENTIALS_STATUS_V1_URL = 'https://www.w3.org/ns/credentials/status/v1'
/**
 * W3C undefined-terms context (VCDM 2.0 §5.2): only `@vocab`, mapping every term no other
 * context defines to `https://www.w3.org/ns/credentials/undefined-term#<term>`.
 */
export const UNDEFINED_TERMS_V2_URL = 'https://www.w3.org/ns/credentials/undefined-terms/v2'
/** Security vocabulary v1 (defines the EcdsaKoblitzSignature2016 proof terms). */
export const SECURITY_V1_URL = 'https://w3id.org/security/v1'
/** Security vocabulary v2 (v1 plus later suites). */
export const SECURITY_V2_URL = 'https://w3id.org/security/v2'
/**
 * W3C Data Integrity context v2: the `DataIntegrityProof` terms, which a credentials v1 document names to take such a
 * proof (credentials/v2 defines them itself).
 */
export const DATA_INTEGRITY_V2_URL = 'https://w3id.org/security/data-integrity/v2'
/** Data Integrity context v1 (earlier documents name it). */
export const DATA_INTEGRITY_V1_URL = 'https://w3id.org/security/data-integrity/v1'
/** W3C DID Core 1.0 context. */
export const DID_V1_URL = 'https://www.w3.org/ns/did/v1'
/** EcdsaSecp256k1RecoverySignature2020 suite context (what did:ethr documents use). */
export const SECP256K1_RECOVERY_2020_V2_URL = 'https://w3id.org/security/suites/secp256k1recovery-2020/v2'
/** The suite's earlier context, which Veramo adds to the credentials it signs. */
export const SECP256K1_RECOVERY_2020_V0_URL =
  'https://identity.foundation/EcdsaSecp256k1RecoverySignature2020/lds-ecdsa-secp256k1-recovery2020-0.0.jsonld'

/** A JSON-LD context document: an object with a `@context` entry. */
export type ContextDocument = { '@context': unknown } & Record<string, unknown>

/** One entry of a document's `@context`: a context URL, or an inline (embedded) context definition. */
export type ContextEntry = string | Record<string, unknown>

function packaged(pkg: { contexts: Map<string, object> }, url: string): ContextDocument {
  const document = pkg.contexts.get(url)
  if (!isContextDocument(document)) throw new Error(`bundled JSON-LD context ${url} is missing from its package`)
  return document
}

const contexts = new Map<string, ContextDocument>([
  [CREDENTIALS_V1_URL, packaged(credentialsContext, CREDENTIALS_V1_URL)],
  [CREDENTIALS_V2_URL, packaged({ contexts: credentialsV2Contexts }, CREDENTIALS_V2_URL)],
  [UNDEFINED_TERMS_V2_URL, packaged({ contexts: credentialsV2Contexts }, UNDEFINED_TERMS_V2_URL)],
  [CREDENTIALS_STATUS_V1_URL, packaged({ contexts: statusListContexts }, CREDENTIALS_STATUS_V1_URL)],
  [SECURITY_V1_URL, packaged(securityContext, SECURITY_V1_URL)],
  [SECURITY_V2_URL, packaged(securityContext, SECURITY_V2_URL)],
  [DATA_INTEGRITY_V1_URL, packaged({ contexts: dataIntegrityContexts }, DATA_INTEGRITY_V1_URL)],
  [DATA_INTEGRITY_V2_URL, packaged({ contexts: dataIntegrityContexts }, DATA_INTEGRITY_V2_URL)],
  [DID_V1_URL, packaged(didContext, DID_V1_URL)],
  [SECP256K1_RECOVERY_2020_V2_URL, SECP256K1_RECOVERY_2020_V2],
  [SECP256K1_RECOVERY_2020_V0_URL, SECP256K1_RECOVERY_2020_V0],
])

/** The URLs registered with {@link registerContext} (not bundled), in registration order. */
const registered: string[] = []

/** Whether `value` is a context document: a JSON object with a `@context` entry. */
export function isContextDocument(value: unknown): value is ContextDocument {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && '@context' in value
}

/** Whether `url` may name a registered context: an absolute http(s) or urn URL. */
export function isContextUrl(url: string): boolean {
  return /^(https?:\/\/|urn:)\S+$/.test(url)
}

/**
 * Makes a context available to every JSON-LD operation of the process, under `url`.
 *
 * A URL names one context for the life of the process: jsonld keeps processed contexts in
 * a process-wide cache keyed by URL, so registering different content under a URL already
 * known (bundled or registered) throws instead of being silently ignored. Registering the
 * same content again is a no-op. The document is copied; later changes to the caller's
 * object have no effect.
 *
 * @param url - absolute http(s) or urn URL the documents will reference
 * @param document - the context document, e.g. `{ "@context": { ... } }`
 */
export function registerContext(url: string, document: object): void {
  if (!isContextUrl(url)) throw new TypeError(`context URL must be an absolute http(s) or urn URL: ${url}`)
  if (!isContextDocument(document)) throw new TypeError(`context document for ${url} must be an object with "@context"`)
  const copy = structuredClone(document)
  const known = contexts.get(url)
  if (known !== undefined) {
    if (JSON.stringify(known) === JSON.stringify(copy)) return
    throw new Error(`JSON-LD context ${url} is already registered with different content`)
  }
  contexts.set(url, copy)
  registered.push(url)
}

/** The bundled or registered context document for `url`, if any. */
export function getContext(url: string): ContextDocument | undefined {
  return contexts.get(url)
}

/**
 * The contexts registered with {@link registerContext} (not the bundled ones), as `[url,
 * document]` pairs: what another thread needs to process the same documents.
 */
export function registeredContexts(): Array<[string, ContextDocument]> {
  return registered.map((url) => [url, contexts.get(url)!])
}

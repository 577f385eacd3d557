/**
 * The verification method a Data Integrity proof names, found in its controller's **current** DID document through
 * the caller's resolver, under the proof's purpose; and given to the library as a Multikey (a did:jwk document's
 * `JsonWebKey2020` is converted), so the library never loads anything but what was resolved here.
 */
import { base58 } from '@scure/base'
import type { DIDDocument, Resolvable, VerificationMethod } from 'did-resolver'
import { methodsUnder } from '../signing-keys.js'
import type { CryptosuiteDefinition } from './cryptosuites.js'
import { messageOf } from './failures.js'
import { PromiseLru } from './key-cache.js'
import type { DataIntegrityLibraries } from './libraries.js'
import type { ProofPurpose } from './purpose.js'

/** Why a proof's verification method does not stand for its controller. */
export type MethodFailure = { check: 'verification-method' | 'purpose' | 'controller' | 'key-type'; message: string }

/** A verification method the controller's current document lists under the purpose, as a Multikey document. */
export interface BoundMethod {
  id: string
  /** Its key's curve: `P-256`, `P-384`, `Ed25519` or `Bls12381G2`. */
  curve: string
  controller: string
  multikey: Record<string, unknown>
}

/**
 * Resolves `verificationMethod` (a DID URL) through `resolver`: it must be listed under `purpose` in the current
 * document of its DID, that DID must be `controller` when one is expected, and its key must have a curve `suite`
 * verifies.
 */
export async function boundMethod(
  lib: DataIntegrityLibraries,
  suite: CryptosuiteDefinition,
  verificationMethod: string,
  { resolver, purpose, controller }: { resolver: Resolvable; purpose: ProofPurpose; controller?: string },
): Promise<BoundMethod | MethodFailure> {
  const did = verificationMethod.split('#')[0]
  if (!verificationMethod.includes('#') || !/^did:[a-z0-9]+:[^/?#]+$/.test(did)) {
    return { check: 'verification-method', message: 'verificationMethod must be a DID URL with a fragment' }
  }
  if (controller !== undefined && did !== controller) {
    return { check: 'controller', message: `the proof is made with a key of ${did}, not of ${controller}` }
  }
  const document = await resolve(resolver, did)
  if (document === undefined) return { check: 'verification-method', message: `${did} does not resolve` }
  const absolute = (id: string) => (id.startsWith('#') ? `${document.id}${id}` : id)
  const method = methodsUnder(document, purpose).find((m) => absolute(m.id) === verificationMethod)
  if (method === undefined) {
    const listed = (document.verificationMethod ?? []).some((m) => absolute(m.id) === verificationMethod)
    return listed
      ? { check: 'purpose', message: `${verificationMethod} is not listed under ${purpose} in its DID document` }
      : { check: 'verification-method', message: `${verificationMethod} is not in the current DID document of ${did}` }
  }
  const curve = curveOf(method)
  const keyTypeFailure: MethodFailure = {
    check: 'key-type',
    message: `${verificationMethod} is a ${curve ?? 'unknown'} key; ${suite.name} verifies ${suite.curves.join(', ')} keys`,
  }
  if (curve === undefined || !suite.curves.includes(curve)) return keyTypeFailure
  try {
    const multikey = await publicMultikeyOf(lib, suite, curve, method, verificationMethod, did)
    return { id: verificationMethod, curve, controller: did, multikey: { ...multikey } }
  } catch (error) {
    return { ...keyTypeFailure, message: `${verificationMethod}: ${messageOf(error)}` }
  }
}

/** The multicodec headers (unsigned varints) of the Multikey public keys the cryptosuites verify. */
const MULTIKEY_HEADERS: ReadonlyArray<[string, readonly number[], number]> = [
  ['Ed25519', [0xed, 0x01], 32],
  ['P-256', [0x80, 0x24], 33],
  ['P-384', [0x81, 0x24], 49],
  ['Bls12381G2', [0xeb, 0x01], 96],
]

/** The curve of a method's key (`publicKeyJwk`'s `crv`, or the multicodec header of `publicKeyMultibase`); undefined for anything else. */
function curveOf(method: VerificationMethod): string | undefined {
  if (method.publicKeyJwk !== undefined) return typeof method.publicKeyJwk.crv === 'string' ? method.publicKeyJwk.crv : undefined
  const multibase = method.type === 'Multikey' ? method.publicKeyMultibase : undefined
  if (typeof multibase !== 'string' || !multibase.startsWith('z') || multibase.length > 140) return undefined
  let bytes: Uint8Array
  try {
    bytes = base58.decode(multibase.slice(1))
  } catch {
    return undefined
  }
  const found = MULTIKEY_HEADERS.find(([, header, size]) => bytes.length === header.length + size && header.every((b, i) => bytes[i] === b))
  return found?.[0]
}

async function resolve(resolver: Resolvable, did: string): Promise<DIDDocument | undefined> {
  try {
    return (await resolver.resolve(did)).didDocument ?? undefined
  } catch {
    return undefined
  }
}

/** The public Multikey documents of imported verification methods, by curve and whole method (its key material too). */
const publicMultikeys = new PromiseLru<Readonly<Record<string, unknown>>>(256)

/** The public Multikey document of `method` as `id` of `controller`: imported by the suite's multikey package once (cached). */
function publicMultikeyOf(
  lib: DataIntegrityLibraries,
  suite: CryptosuiteDefinition,
  curve: string,
  method: VerificationMethod,
  id: string,
  controller: string,
): Promise<Readonly<Record<string, unknown>>> {
  return publicMultikeys.get(`${curve}\n${JSON.stringify({ ...method, id, controller })}`, async () => {
    const multikeys = suite.multikeys(lib)
    const key =
      method.publicKeyJwk !== undefined
        ? await multikeys.fromJwk({ jwk: method.publicKeyJwk, id, controller })
        : await multikeys.from({ ...method, id, controller })
    const exported = await key.export({ publicKey: true, includeContext: true })
    return Object.freeze({ ...exported, id, controller })
  })
}

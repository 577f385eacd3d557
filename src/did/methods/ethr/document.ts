/**
 * did:ethr DID documents as the did:ethr method specification defines them, built from an
 * identity's ERC-1056 history (owner changes, delegates, attributes, each with its
 * validity). The rules are those `ethr-did-resolver` applies to the same events read from a
 * chain — including its numbering quirks (`#delegate-N` and `#service-N` count every
 * delegate/key/service event, revocations included) — so the embedded registry and an
 * on-chain one resolve to the same document; `test/did/differential.test.ts` holds them to it.
 */
import type { DIDDocument, Service, VerificationMethod } from 'did-resolver'
import { encodeBase58, encodeBase64, toUtf8String } from 'ethers'

export const DID_DOCUMENT_CONTEXT = [
  'https://www.w3.org/ns/did/v1',
  'https://w3id.org/security/suites/secp256k1recovery-2020/v2',
  'https://w3id.org/security/v3-unstable',
]

/** The null address: an owner change to it deactivates the DID. */
export const NULL_ADDRESS = '0x0000000000000000000000000000000000000000'

/** One ERC-1056 event, as the registry contract logs it (bytes32 names decoded to strings). */
export type Erc1056Event =
  | { event: 'DIDOwnerChanged'; owner: string }
  | { event: 'DIDDelegateChanged'; delegateType: string; delegate: string; validTo: number }
  /** `value` is the attribute's bytes, 0x-hex. */
  | { event: 'DIDAttributeChanged'; name: string; value: string; validTo: number }

/** A document and what resolution metadata needs to know about it. */
export interface BuiltDocument {
  didDocument: DIDDocument
  deactivated: boolean
  /**
   * The document stays the same while `now` (seconds) ≤ this: the earliest `validTo` among
   * the events currently in force (Infinity when nothing can expire).
   */
  stableUntil: number
}

const RECOVERY_2020 = 'EcdsaSecp256k1RecoveryMethod2020'
const VERIFICATION_KEY_2019 = 'EcdsaSecp256k1VerificationKey2019'
const ATTRIBUTE = /^did\/(pub|svc)\/(\w+)(\/(\w+))?(\/(\w+))?$/
const ATTR_TYPES: Record<string, string> = {
  sigAuth: 'SignatureAuthentication2018',
  veriKey: 'VerificationKey2018',
  enc: 'KeyAgreementKey2019',
}
const ALGO_TYPES: Record<string, string> = {
  Secp256k1VerificationKey2018: 'EcdsaSecp256k1VerificationKey2019',
  Ed25519SignatureAuthentication2018: 'Ed25519VerificationKey2018',
  Secp256k1SignatureAuthentication2018: 'EcdsaSecp256k1VerificationKey2019',
  RSAVerificationKey2018: 'RSAVerificationKey2018',
  Ed25519VerificationKey2018: 'Ed25519VerificationKey2018',
  X25519KeyAgreementKey2019: 'X25519KeyAgreementKey2019',
}

const strip0x = (hex: string) => (hex.startsWith('0x') ? hex.slice(2) : hex)

/** Whose document is built: the DID as resolved, its identity's address, and — for a public-key DID — its `#controllerKey`. */
export interface DocumentSubject {
  did: string
  address: string
  /** 0x-hex public key of a public-key DID (see `ParsedEthrDid.controllerKey`). */
  controllerKey?: string
}

/**
 * The document of identity `subject.address` (DID `subject.did`, chain `chainId`) after
 * `history` (oldest first), at time `now` (UNIX seconds): delegates and attributes count while
 * `validTo ≥ now`. A public-key DID also lists its key as `#controllerKey`
 * (`EcdsaSecp256k1VerificationKey2019`, `publicKeyHex`) while its identity owns itself, as
 * `ethr-did-resolver` does.
 */
export function buildEthrDocument(subject: DocumentSubject, chainId: number, history: readonly Erc1056Event[], now: number): BuiltDocument {
  const { did, address } = subject
  let controller = address
  let delegateCount = 0
  let serviceCount = 0
  let deactivated = false
  let stableUntil = Infinity
  const auth: Record<string, string> = {}
  const keyAgreementRefs: Record<string, string> = {}
  const signingRefs: Record<string, string> = {}
  const pks: Record<string, VerificationMethod> = {}
  const services: Record<string, Service> = {}

  for (const event of history) {
    if (event.event === 'DIDOwnerChanged') {
      controller = event.owner
      if (event.owner === NULL_ADDRESS) {
        deactivated = true
        break
      }
      continue
    }
    const key =
      event.event === 'DIDDelegateChanged'
        ? `${event.event}-${event.delegateType}-${event.delegate}`
        : `${event.event}-${event.name}-${event.value}`
    if (event.validTo && event.validTo >= now) {
      stableUntil = Math.min(stableUntil, event.validTo)
      if (event.event === 'DIDDelegateChanged') {
        delegateCount++
        const id = `${did}#delegate-${delegateCount}`
        if (event.delegateType === 'sigAuth') auth[key] = id
        if (event.delegateType === 'sigAuth' || event.delegateType === 'veriKey') {
          pks[key] = { id, type: RECOVERY_2020, controller: did, blockchainAccountId: `eip155:${chainId}:${event.delegate}` }
          signingRefs[key] = id
        }
        continue
      }
      const match = ATTRIBUTE.exec(event.name)
      if (!match) continue
      if (match[1] === 'pub') {
        delegateCount++
        const pk = publicKeyMethod(`${did}#delegate-${delegateCount}`, did, match, event.value)
        if (!pk) continue
        pks[key] = pk
        if (match[4] === 'sigAuth') {
          auth[key] = pk.id
          signingRefs[key] = pk.id
        } else if (match[4] === 'enc') {
          keyAgreementRefs[key] = pk.id
        } else {
          signingRefs[key] = pk.id
        }
      } else {
        serviceCount++
        const endpoint = utf8(event.value)
        if (endpoint === undefined) continue
        let serviceEndpoint: Service['serviceEndpoint']
        try {
          serviceEndpoint = JSON.parse(endpoint) as Service['serviceEndpoint']
        } catch {
          serviceEndpoint = endpoint
        }
        services[key] = { id: `${did}#service-${serviceCount}`, type: match[2], serviceEndpoint }
      }
    } else {
      // Expired or revoked: it still takes a number, as on chain.
      if (event.event === 'DIDDelegateChanged' || event.name.startsWith('did/pub/')) delegateCount++
      else if (event.name.startsWith('did/svc/')) serviceCount++
      delete auth[key]
      delete signingRefs[key]
      delete pks[key]
      delete services[key]
    }
  }

  const base: DIDDocument = { id: did, verificationMethod: [], authentication: [], assertionMethod: [] }
  if (deactivated) return { didDocument: { '@context': DID_DOCUMENT_CONTEXT, ...base }, deactivated, stableUntil: Infinity }
  const controllerId = `${did}#controller`
  const own: VerificationMethod[] = [
    { id: controllerId, type: RECOVERY_2020, controller: did, blockchainAccountId: `eip155:${chainId}:${controller}` },
  ]
  // The DID's own key is listed only while its address owns the identity.
  if (subject.controllerKey !== undefined && controller === address) {
    own.push({ id: `${did}#controllerKey`, type: VERIFICATION_KEY_2019, controller: did, publicKeyHex: strip0x(subject.controllerKey) })
  }
  const ownIds = own.map((vm) => vm.id)
  const didDocument: DIDDocument = {
    '@context': DID_DOCUMENT_CONTEXT,
    ...base,
    verificationMethod: [...own, ...Object.values(pks)],
    authentication: [...ownIds, ...Object.values(auth)],
    assertionMethod: [...ownIds, ...Object.values(signingRefs)],
  }
  if (Object.keys(services).length > 0) didDocument.service = Object.values(services)
  if (Object.keys(keyAgreementRefs).length > 0) didDocument.keyAgreement = Object.values(keyAgreementRefs)
  return { didDocument, deactivated, stableUntil }
}

/** A `did/pub/<algorithm>/<purpose>/<encoding>` attribute as a verification method, or undefined when its value cannot be read. */
function publicKeyMethod(id: string, did: string, match: RegExpExecArray, value: string): VerificationMethod | undefined {
  const algorithm = match[2]
  const type = ATTR_TYPES[match[4]] ?? match[4]
  const pk: VerificationMethod & Record<string, unknown> = { id, type: ALGO_TYPES[`${algorithm}${type}`] ?? algorithm, controller: did }
  switch (match[6]) {
    case undefined:
    case 'hex':
      pk.publicKeyHex = strip0x(value)
      break
    case 'base64':
      pk.publicKeyBase64 = encodeBase64(value)
      break
    case 'base58':
      pk.publicKeyBase58 = encodeBase58(value)
      break
    case 'pem': {
      const pem = utf8(value)
      if (pem === undefined) return undefined
      pk.publicKeyPem = pem
      break
    }
    default:
      pk.value = strip0x(value)
  }
  return pk
}

function utf8(hex: string): string | undefined {
  try {
    return toUtf8String(hex)
  } catch {
    return undefined
  }
}

/**
 * What the transmute EcdsaSecp256k1RecoverySignature2020 suite needs to read didvault's DIDs
 * (see test/credentials/transmute-interop.test.ts, 2): DID documents in the 2020 suite's terms,
 * contexts from didvault's bundle, nothing fetched.
 */
import { getAddress } from 'ethers'
import type { Resolvable } from 'did-resolver'
import {
  DID_V1_URL,
  SECP256K1_RECOVERY_2020_V0_URL,
  SECP256K1_RECOVERY_2020_V2_URL,
  documentLoader,
} from '../../src/proofs/jsonld/index.js'

/** The DID document as the 2020 suite can read it: its contexts, and `ethereumAddress` for `blockchainAccountId`. */
function forTransmute(document: Record<string, any>): Record<string, any> {
  const copy = structuredClone(document)
  copy['@context'] = [DID_V1_URL, SECP256K1_RECOVERY_2020_V0_URL, SECP256K1_RECOVERY_2020_V2_URL]
  for (const method of copy.verificationMethod ?? []) {
    const account = /^eip155:\d+:(0x[0-9a-fA-F]{40})$/.exec(method.blockchainAccountId ?? '')
    if (!account) continue
    delete method.blockchainAccountId
    method.ethereumAddress = getAddress(account[1])
  }
  return copy
}

/** jsonld-signatures document loader: DIDs from `resolver` (current document), contexts from didvault's bundle; nothing else. */
export async function transmuteDocumentLoader(resolver: Resolvable, url: string) {
  if (url.startsWith('did:')) {
    const { didDocument } = await resolver.resolve(url.split('#')[0])
    if (!didDocument) throw new Error(`unresolvable ${url}`)
    return { contextUrl: null, documentUrl: url, document: forTransmute(didDocument as Record<string, any>) }
  }
  return documentLoader(url)
}

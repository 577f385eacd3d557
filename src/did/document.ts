/**
 * did:ethr DID documents as the did:ethr method specification defines them. With no
 * registry events, an identity's document has one verification method, `#controller`,
 * naming the identity's own address as a CAIP-10 `blockchainAccountId`.
 */
import type { DIDDocument } from 'did-resolver'
import type { EthrNetwork } from './ethr.js'

export const DID_DOCUMENT_CONTEXT = [
  'https://www.w3.org/ns/did/v1',
  'https://w3id.org/security/suites/secp256k1recovery-2020/v2',
  'https://w3id.org/security/v3-unstable',
]

/** The document of `did` whose current owner is `owner` (the identity address when unchanged). */
export function ethrDocument(did: string, owner: string, network: EthrNetwork): DIDDocument {
  const controller = `${did}#controller`
  return {
    '@context': DID_DOCUMENT_CONTEXT,
    id: did,
    verificationMethod: [
      {
        id: controller,
        type: 'EcdsaSecp256k1RecoveryMethod2020',
        controller: did,
        blockchainAccountId: `eip155:${network.chainId}:${owner}`,
      },
    ],
    authentication: [controller],
    assertionMethod: [controller],
  }
}

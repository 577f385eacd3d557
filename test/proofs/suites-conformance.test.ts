/**
 * The proof-suite conformance suite (`runProofSuiteConformance` of didvault/testing) for every registered suite:
 * secp256k1 keys are local digest signers of did:ethr DIDs, verified through `resolveSigningKeys` (their addresses);
 * P-256 and Ed25519 keys are made in the key port (sealed backend on a real SQLite file) with did:key DIDs, verified
 * through the resolver of didvault's DID method registry, as are BLS12-381 G2 keys (bbs-2023, `createBbsKey`).
 * ecdsa-sd-2023's and bbs-2023's base proofs are verified as a holder presents them: derived, disclosing every member.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll } from 'vitest'
import { digestKeySigner } from '../../src/keys/port-signers.js'
import { LocalSigner } from '../../src/keys/secp256k1.js'
import { bbs2023, ecdsaSd2023 } from '../../src/proofs/data-integrity/index.js'
import type { JsonLdDocument, SigningKey } from '../../src/proofs/jsonld/types.js'
import { proofSuites } from '../../src/proofs/suites/index.js'
import { runProofSuiteConformance, type ProofSuiteFixture } from '../../src/testing/index.js'
import { bbsPortIdentity, openSealedKeys, portIdentity, resolver } from './data-integrity/helpers.js'

let port: Awaited<ReturnType<typeof openSealedKeys>>
beforeAll(async () => {
  port = await openSealedKeys()
})
afterAll(() => port.close())

/** A selective-disclosure suite's base proof, derived disclosing every member of the document. */
const derivedFromBase =
  (suite: typeof ecdsaSd2023 | typeof bbs2023) =>
  async (signed: JsonLdDocument): Promise<JsonLdDocument> => {
    const pointers = Object.keys(signed)
      .filter((member) => member !== '@context' && member !== 'proof')
      .map((member) => `/${member}`)
    return suite.derive(signed, pointers)
  }

async function fixture(cryptosuite?: string): Promise<ProofSuiteFixture> {
  const addresses = new Map<string, SigningKey[]>()
  return {
    async identityFor(keyType) {
      if (keyType === 'Bls12381G2') return bbsPortIdentity(port.keys)
      if (keyType !== 'secp256k1') return portIdentity(port.keys, keyType)
      const signer = digestKeySigner(new LocalSigner(randomBytes(32)))
      const did = `did:ethr:${signer.digest!.address}`
      addresses.set(`${did}#controller`, [{ ethereumAddress: signer.digest!.address }])
      return { signer, did, verificationMethod: `${did}#controller` }
    },
    verifyOptions: { resolveSigningKeys: async (didUrl) => addresses.get(didUrl) ?? [], resolver },
    ...(cryptosuite === 'ecdsa-sd-2023' && { verifiable: derivedFromBase(ecdsaSd2023) }),
    ...(cryptosuite === 'bbs-2023' && { verifiable: derivedFromBase(bbs2023) }),
  }
}

for (const suite of proofSuites()) runProofSuiteConformance(suite, () => fixture(suite.cryptosuite))

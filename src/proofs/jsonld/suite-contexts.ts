/**
 * JSON-LD contexts of the EcdsaSecp256k1RecoverySignature2020 suite. No npm package ships
 * them, so they are written here from the term definitions the Decentralized Identity
 * Foundation publishes for the suite (repository decentralized-identity/
 * EcdsaSecp256k1RecoverySignature2020, files `lds-ecdsa-secp256k1-recovery2020-2.0.jsonld`,
 * served at w3id.org as `.../secp256k1recovery-2020/v2`, and
 * `lds-ecdsa-secp256k1-recovery2020-0.0.jsonld`, the URL Veramo adds to the credentials it
 * signs). They are data: every IRI below must stay exactly as published, or signatures made
 * elsewhere stop verifying.
 */

const SEC = 'https://w3id.org/security#'
const SUITE = 'https://identity.foundation/EcdsaSecp256k1RecoverySignature2020#'
const XSD_DATE_TIME = 'http://www.w3.org/2001/XMLSchema#dateTime'

const dateTime = (id: string) => ({ '@id': id, '@type': XSD_DATE_TIME })
const setOfIds = (id: string) => ({ '@id': id, '@type': '@id', '@container': '@set' })

/** `proofPurpose` values, shared by both versions. */
const proofPurpose = (relationships: Record<string, object>) => ({
  '@id': `${SEC}proofPurpose`,
  '@type': '@vocab',
  '@context': { '@protected': true, id: '@id', type: '@type', ...relationships },
})

/** Terms of a proof of this suite, shared by both versions. */
const proofTerms = {
  '@protected': true,
  challenge: `${SEC}challenge`,
  created: dateTime('http://purl.org/dc/terms/created'),
  domain: `${SEC}domain`,
  expires: dateTime(`${SEC}expiration`),
  jws: `${SEC}jws`,
  nonce: `${SEC}nonce`,
  verificationMethod: { '@id': `${SEC}verificationMethod`, '@type': '@id' },
}

/** `https://w3id.org/security/suites/secp256k1recovery-2020/v2`. */
export const SECP256K1_RECOVERY_2020_V2 = {
  '@context': {
    id: '@id',
    type: '@type',
    '@protected': true,
    proof: { '@id': `${SEC}proof`, '@type': '@id', '@container': '@graph' },
    EcdsaSecp256k1RecoveryMethod2020: {
      '@id': `${SUITE}EcdsaSecp256k1RecoveryMethod2020`,
      '@context': {
        '@protected': true,
        id: '@id',
        type: '@type',
        controller: { '@id': `${SEC}controller`, '@type': '@id' },
        blockchainAccountId: `${SEC}blockchainAccountId`,
        publicKeyJwk: { '@id': `${SEC}publicKeyJwk`, '@type': '@json' },
      },
    },
    EcdsaSecp256k1RecoverySignature2020: {
      '@id': `${SUITE}EcdsaSecp256k1RecoverySignature2020`,
      '@context': {
        id: '@id',
        type: '@type',
        ...proofTerms,
        proofPurpose: proofPurpose({
          assertionMethod: setOfIds(`${SEC}assertionMethod`),
          authentication: setOfIds(`${SEC}authenticationMethod`),
          capabilityInvocation: setOfIds(`${SEC}capabilityInvocationMethod`),
          capabilityDelegation: setOfIds(`${SEC}capabilityDelegationMethod`),
          keyAgreement: setOfIds(`${SEC}keyAgreementMethod`),
        }),
      },
    },
  },
}

/** `https://identity.foundation/EcdsaSecp256k1RecoverySignature2020/lds-ecdsa-secp256k1-recovery2020-0.0.jsonld`. */
export const SECP256K1_RECOVERY_2020_V0 = {
  '@context': {
    '@version': 1.1,
    id: '@id',
    type: '@type',
    esrs2020: SUITE,
    EcdsaSecp256k1RecoveryMethod2020: 'esrs2020:EcdsaSecp256k1RecoveryMethod2020',
    EcdsaSecp256k1RecoverySignature2020: {
      '@id': 'esrs2020:EcdsaSecp256k1RecoverySignature2020',
      '@context': {
        ...proofTerms,
        proofPurpose: proofPurpose({
          assertionMethod: setOfIds(`${SEC}assertionMethod`),
          authentication: setOfIds(`${SEC}authenticationMethod`),
        }),
        proofValue: `${SEC}proofValue`,
      },
    },
    publicKeyJwk: { '@id': 'esrs2020:publicKeyJwk', '@type': '@json' },
    privateKeyJwk: { '@id': 'esrs2020:privateKeyJwk', '@type': '@json' },
    publicKeyHex: 'esrs2020:publicKeyHex',
    privateKeyHex: 'esrs2020:privateKeyHex',
    ethereumAddress: 'esrs2020:ethereumAddress',
  },
}

/**
 * The W3C Bitstring Status List v1.0 context, `https://www.w3.org/ns/credentials/status/v1`:
 * what a data model 1.1 credential (a VC-JWT) names to define `BitstringStatusListEntry` and
 * the list's terms (credentials/v2 defines them itself). Written here as data, exactly as W3C
 * publishes it (`@digitalbazaar/vc-bitstring-status-list-context` ships the same document; a
 * test holds the two equal): every IRI must stay as published.
 */

const STATUS = 'https://www.w3.org/ns/credentials/status#'

/** `https://www.w3.org/ns/credentials/status/v1`. */
export const CREDENTIALS_STATUS_V1 = {
  '@context': {
    '@protected': true,
    id: '@id',
    type: '@type',
    BitstringStatusListCredential: `${STATUS}BitstringStatusListCredential`,
    BitstringStatusList: {
      '@id': `${STATUS}BitstringStatusList`,
      '@context': {
        '@protected': true,
        id: '@id',
        type: '@type',
        encodedList: { '@id': `${STATUS}encodedList`, '@type': 'https://w3id.org/security#multibase' },
        statusPurpose: `${STATUS}statusPurpose`,
        ttl: `${STATUS}ttl`,
      },
    },
    BitstringStatusListEntry: {
      '@id': `${STATUS}BitstringStatusListEntry`,
      '@context': {
        '@protected': true,
        id: '@id',
        type: '@type',
        statusListCredential: { '@id': `${STATUS}statusListCredential`, '@type': '@id' },
        statusListIndex: `${STATUS}statusListIndex`,
        statusPurpose: `${STATUS}statusPurpose`,
        statusMessage: {
          '@id': `${STATUS}statusMessage`,
          '@context': {
            '@protected': true,
            id: '@id',
            type: '@type',
            message: `${STATUS}message`,
            status: `${STATUS}status`,
          },
        },
        statusReference: { '@id': `${STATUS}statusReference`, '@type': '@id' },
        statusSize: { '@id': `${STATUS}statusSize`, '@type': 'https://www.w3.org/2001/XMLSchema#integer' },
      },
    },
  },
}

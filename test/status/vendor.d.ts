/** Minimal ambient types for `@digitalbazaar/vc-bitstring-status-list` (untyped): what the tests call. */
declare module '@digitalbazaar/vc-bitstring-status-list' {
  export function decodeList(options: { encodedList: string }): Promise<{ length: number; getStatus(index: number): boolean }>
  export function statusTypeMatches(options: { credential: object }): boolean
  export function checkStatus(options: {
    credential: object
    documentLoader: (url: string) => Promise<{ document: unknown }>
    statusPurpose?: string
    verifyBitstringStatusListCredential?: boolean
    verifyMatchingIssuers?: boolean
  }): Promise<any>
}

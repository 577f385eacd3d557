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

/** Minimal ambient types for `@digitalbazaar/vc` (untyped): what the tests call. */
declare module '@digitalbazaar/vc' {
  export function verifyCredential(options: {
    credential: object
    suite: object
    documentLoader: (url: string) => Promise<{ document: unknown }>
    checkStatus?: (options: { credential: object; documentLoader: unknown; suite: unknown }) => Promise<any>
  }): Promise<{ verified: boolean; error?: Error; statusResult?: any }>
}

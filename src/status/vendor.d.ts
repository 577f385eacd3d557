/** Minimal ambient types for `@digitalbazaar/bitstring` (untyped ESM): only what didvault calls is declared. */
declare module '@digitalbazaar/bitstring' {
  export class Bitstring {
    /** A bitstring of `length` bits (all clear), or over `buffer` (its whole ArrayBuffer), first bit the high bit of byte 0. */
    constructor(options: { length: number } | { buffer: Uint8Array; leftToRightIndexing?: boolean })
    readonly length: number
    readonly bits: Uint8Array
    /** @throws {Error} a position out of range */
    get(position: number): boolean
    set(position: number, on: boolean): void
    /** GZIP, then base64url without padding (no multibase prefix). */
    encodeBits(): Promise<string>
    static decodeBits(options: { encoded: string }): Promise<Uint8Array>
  }
}

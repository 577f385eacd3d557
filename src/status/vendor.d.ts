/** Minimal ambient types for `@digitalbazaar/bitstring` (untyped): only what didvault calls. */
declare module '@digitalbazaar/bitstring' {
  export class Bitstring {
    constructor(options: { length: number } | { buffer: Uint8Array; leftToRightIndexing?: boolean })
    readonly length: number
    set(position: number, on: boolean): void
    get(position: number): boolean
    encodeBits(): Promise<string>
    static decodeBits(options: { encoded: string }): Promise<Uint8Array>
  }
}

/**
 * Minimal ambient types for the untyped CommonJS packages this module uses. Only what
 * didvault calls is declared.
 */

declare module 'jsonld' {
  /** What a jsonld document loader resolves to. */
  export interface RemoteDocument {
    contextUrl: string | null
    documentUrl: string
    document: unknown
    /** `'static'` lets jsonld keep the processed context in its shared cache. */
    tag?: string
  }
  export interface CanonizeOptions {
    algorithm?: 'RDFC-1.0'
    format?: 'application/n-quads'
    safe?: boolean
    base?: string | null
    documentLoader?: (url: string) => Promise<RemoteDocument>
    /** Passed to rdf-canonize: bounds on blank-node disambiguation. */
    canonizeOptions?: { maxWorkFactor?: number; maxDeepIterations?: number }
  }
  export interface ExpandOptions {
    base?: string | null
    documentLoader?: (url: string) => Promise<RemoteDocument>
  }
  const jsonld: {
    canonize(input: object, options?: CanonizeOptions): Promise<string>
    expand(input: object, options?: ExpandOptions): Promise<unknown[]>
  }
  export default jsonld
}

declare module 'credentials-context' {
  const pkg: { contexts: Map<string, object> }
  export default pkg
}

declare module 'security-context' {
  const pkg: { contexts: Map<string, object> }
  export default pkg
}

declare module 'did-context' {
  const pkg: { contexts: Map<string, object> }
  export default pkg
}

declare module '@digitalbazaar/credentials-context' {
  /** Context URL → context document (credentials v1, v2 and undefined-terms v2). */
  export const contexts: Map<string, object>
}

declare module '@digitalbazaar/data-integrity-context' {
  /** Context URL → context document (data-integrity v1 and v2). */
  export const contexts: Map<string, object>
}

declare module '@digitalbazaar/vc-bitstring-status-list-context' {
  /** Context URL → context document (Bitstring Status List v1). */
  export const contexts: Map<string, object>
  /** The Bitstring Status List v1 context document. */
  export const CONTEXT: object
  export const CONTEXT_URL: string
}

/** Decoded views of stored credentials: a JWT's header and payload, an SD-JWT's too with its disclosures. */

/** A base64url segment decoded as JSON (undefined when it is not). */
export function base64urlJson(segment: string): unknown {
  try {
    const b64 = segment.replace(/-/g, '+').replace(/_/g, '/')
    const bytes = Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0))
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown
  } catch {
    return undefined
  }
}

/** A compact JWS's header and payload. */
export function decodeJwt(jwt: string): { header: unknown; payload: unknown } {
  const [header = '', payload = ''] = jwt.split('.')
  return { header: base64urlJson(header), payload: base64urlJson(payload) }
}

/** An SD-JWT (`<jwt>~<disclosure>~…~[<kb-jwt>]`): the issuer JWT decoded, each disclosure as `[salt, name, value]`. */
export function decodeSdJwt(sdjwt: string): { header: unknown; payload: unknown; disclosures: unknown[]; keyBinding: boolean } {
  const [jwt, ...rest] = sdjwt.split('~')
  const last = rest[rest.length - 1]
  const keyBinding = last !== undefined && last.includes('.')
  const disclosures = (keyBinding ? rest.slice(0, -1) : rest).filter((d) => d !== '').map(base64urlJson)
  return { ...decodeJwt(jwt), disclosures, keyBinding }
}

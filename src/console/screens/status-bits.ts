/**
 * The bits of a served status list, decoded in the browser (DecompressionStream, no library): a
 * BitstringStatusListCredential (JSON-LD, or a VC-JWT) carries `encodedList` — multibase base64url of the GZIP of the
 * bitstring, index 0 the leftmost bit of the first byte; a Status List Token (`application/statuslist+jwt`, SD-JWT VC)
 * carries `status_list.lst` — base64url of the ZLIB of the list, `bits` per entry, index 0 the lowest bits of byte 0.
 */

/** A decoded list: its entries' values (0 = unset) and what its signed document says of itself. */
export interface DecodedList {
  /** Entries of the list. */
  size: number
  /** Bits per entry (1 for a bitstring; 1, 2, 4 or 8 for a Status List Token). */
  bitsPerEntry: number
  /** The value of entry `index` (0 when unset). */
  valueAt(index: number): number
  /** The indexes whose value is not 0, ascending, up to `max`. */
  setIndexes(max: number): number[]
  /** The signature's date: `validFrom`/`issuanceDate` of a credential, `iat` of a JWT, ISO 8601. */
  signedAt?: string
}

function base64urlBytes(text: string): Uint8Array {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/')
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4))
  return Uint8Array.from(binary, (c) => c.charCodeAt(0))
}

async function inflate(bytes: Uint8Array, format: 'gzip' | 'deflate'): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream(format))
  return new Uint8Array(await new Response(stream).arrayBuffer())
}

function jwtPayload(jwt: string): Record<string, unknown> {
  const part = jwt.split('.')[1]
  if (part === undefined) throw new Error('not a JWT')
  return JSON.parse(new TextDecoder().decode(base64urlBytes(part))) as Record<string, unknown>
}

const isoOfSeconds = (seconds: unknown): string | undefined =>
  typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : undefined

function listOf(bytes: Uint8Array, bitsPerEntry: number, msbFirst: boolean, signedAt: string | undefined): DecodedList {
  const size = Math.floor((bytes.length * 8) / bitsPerEntry)
  const mask = (1 << bitsPerEntry) - 1
  const valueAt = (index: number): number => {
    if (index < 0 || index >= size) return 0
    const bit = index * bitsPerEntry
    const byte = bytes[bit >> 3]
    const offset = bit & 7
    return msbFirst ? (byte >> (8 - offset - bitsPerEntry)) & mask : (byte >> offset) & mask
  }
  const setIndexes = (max: number): number[] => {
    const found: number[] = []
    for (let byteIndex = 0; byteIndex < bytes.length && found.length < max; byteIndex++) {
      if (bytes[byteIndex] === 0) continue
      const first = Math.floor((byteIndex * 8) / bitsPerEntry)
      const last = Math.min(size, Math.ceil(((byteIndex + 1) * 8) / bitsPerEntry))
      for (let index = first; index < last && found.length < max; index++) if (valueAt(index) !== 0) found.push(index)
    }
    return found
  }
  return { size, bitsPerEntry, valueAt, setIndexes, ...(signedAt !== undefined && { signedAt }) }
}

/** Decodes a served status list (the `document` and `contentType` Get a Status List answers). */
export async function decodeStatusList(document: unknown, contentType: string): Promise<DecodedList> {
  if (contentType === 'application/statuslist+jwt') {
    const payload = jwtPayload(String(document))
    const statusList = payload.status_list as { bits?: number; lst?: string } | undefined
    if (typeof statusList?.lst !== 'string' || typeof statusList.bits !== 'number') throw new Error('no status_list in the token')
    return listOf(await inflate(base64urlBytes(statusList.lst), 'deflate'), statusList.bits, false, isoOfSeconds(payload.iat))
  }
  let credential: Record<string, unknown>
  let signedAt: string | undefined
  if (typeof document === 'string') {
    const payload = jwtPayload(document)
    credential = (payload.vc as Record<string, unknown> | undefined) ?? payload
    signedAt = isoOfSeconds(payload.iat) ?? isoOfSeconds(payload.nbf)
  } else {
    credential = document as Record<string, unknown>
    const proof = credential.proof as { created?: string } | undefined
    signedAt = (credential.validFrom ?? credential.issuanceDate ?? proof?.created) as string | undefined
  }
  const subject = credential.credentialSubject as { encodedList?: string } | undefined
  const encoded = subject?.encodedList
  if (typeof encoded !== 'string') throw new Error('no credentialSubject.encodedList in the list')
  const bytes = await inflate(base64urlBytes(encoded.startsWith('u') ? encoded.slice(1) : encoded), 'gzip')
  return listOf(bytes, 1, true, signedAt ?? (typeof credential.validFrom === 'string' ? credential.validFrom : undefined))
}

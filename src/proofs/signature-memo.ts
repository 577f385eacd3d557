/**
 * Remembers which key made the signature of a JWT already verified, so that a token presented
 * again (a client sends its DID-auth token with every request for as long as it lives) costs
 * no second signature check. What is remembered is only the outcome of the pure part of the
 * verification: "this exact token (by its SHA-256) was signed by the key of this verification
 * method". The verifier still checks the times, the audience and the issuer's *current* DID
 * document on every presentation, and uses a remembered signer only while that document still
 * lists the same method with the same key; otherwise it checks the signature again.
 */
import { createHash } from 'node:crypto'

/** A verified signature: the method that made it, its key (public key hex or address) and the signer's address. */
export interface RememberedSigner {
  method: string
  key: string
  address: string
}

export class SignatureMemo {
  readonly #byToken = new Map<string, RememberedSigner>()

  /** @param maxEntries - tokens remembered (oldest forgotten first); about 200 bytes each */
  constructor(private readonly maxEntries = 10_000) {}

  recall(jwt: string): RememberedSigner | undefined {
    return this.#byToken.get(digestOf(jwt))
  }

  remember(jwt: string, signer: RememberedSigner): void {
    const id = digestOf(jwt)
    if (this.#byToken.has(id)) return
    if (this.#byToken.size >= this.maxEntries) this.#byToken.delete(this.#byToken.keys().next().value!)
    this.#byToken.set(id, signer)
  }
}

const digestOf = (jwt: string) => createHash('sha256').update(jwt).digest('base64url')

/** The content hash of a JSON-LD credential: its document and proofs in canonical JSON (sorted keys). */
import { canonicalJson, sha256 } from '../../content-hash.js'

/** The content hash of a JSON-LD credential with its proofs. */
export const jsonLdHash = (jsonld: Record<string, unknown>): string => sha256(`jsonld\n${canonicalJson(jsonld)}`)

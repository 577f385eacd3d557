/**
 * Seeds a SQLite database, before `didvault serve` opens it, with many stored VC-JWTs of one tenant — the records the
 * service writes for them: each a real VC-JWT (Ed25519, `EdDSA`, signed in-process with node:crypto by a did:key
 * issuer), parsed by the JWT format's own `parse`, made into a record by Store's `credentialRecord` and inserted with
 * the storage adapter's `insertMany` in one transaction. Public (any DID of the tenant may read them), stored oldest
 * first one millisecond apart, so Fetch's order is the seeding order.
 */
import { generateKeyPairSync, sign } from 'node:crypto'
import { credentialFormatNamed } from '../../src/credentials/formats/index.js'
import { CREDENTIALS, type CredentialRecord } from '../../src/credentials/records.js'
import { credentialRecord } from '../../src/credentials/store.js'
import { KeyCustody } from '../../src/custody/key-custody.js'
import { encodeMultikey } from '../../src/did/methods/multikey.js'
import type { Keyring } from '../../src/keys/keyring.js'
import { DEFAULT_DEPTH } from '../../src/operations/request-bounds.js'
import { DEFAULT_JSONLD_LIMITS } from '../../src/proofs/jsonld/bounds.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { tenantCollections } from '../../src/storage/declaration.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'

const V1 = 'https://www.w3.org/2018/credentials/v1'
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** What {@link seedCredentials} wrote. */
export interface SeededCredentials {
  /** The issuer's did:key. */
  issuer: string
  /** The credentials' `id`s (`jti`), in the order Fetch lists them. */
  ids: string[]
  /** The first credential, to verify through the API. */
  first: string
  /** Milliseconds spent signing, parsing and inserting. */
  ms: { sign: number; parse: number; insert: number }
}

/** The id of seeded credential `i` (zero-padded, so the ids sort as they were stored). */
export const seededId = (i: number) => `https://seed.example/credentials/${String(i).padStart(6, '0')}`

/** A custody for records without sealed parts (a VC-JWT has no disclosures): it refuses to seal or open anything. */
const NOTHING_SEALED = new KeyCustody({
  seal: () => {
    throw new Error('a seeded VC-JWT has nothing to seal')
  },
  open: () => {
    throw new Error('a seeded VC-JWT has nothing sealed')
  },
} as unknown as Keyring)

/** Writes `count` public VC-JWTs of `tenantId` into the SQLite database at `path` (created with the service's collections). */
export async function seedCredentials(path: string, tenantId: string, count: number): Promise<SeededCredentials> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const issuer = `did:key:${encodeMultikey('Ed25519', Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'))}`
  const header = b64({ alg: 'EdDSA', typ: 'JWT', kid: `${issuer}#${issuer.slice(8)}` })
  const base = Date.UTC(2026, 0, 1)
  const t0 = performance.now()
  const jwts: string[] = []
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const id = seededId(i)
    const iat = Math.floor((base + i) / 1000)
    const payload = b64({
      vc: {
        '@context': [V1],
        type: ['VerifiableCredential', 'SeededCredential'],
        credentialSubject: { serial: i },
      },
      jti: id,
      iss: issuer,
      nbf: iat,
    })
    const signingInput = `${header}.${payload}`
    const signature = sign(null, Buffer.from(signingInput), privateKey).toString('base64url')
    jwts.push(`${signingInput}.${signature}`)
    ids.push(id)
  }
  const t1 = performance.now()
  const jwt = credentialFormatNamed('JWT')
  const limits = { depth: DEFAULT_DEPTH, jsonld: DEFAULT_JSONLD_LIMITS }
  const records: CredentialRecord[] = []
  for (let i = 0; i < count; i++) {
    const parsed = await jwt.parse(jwts[i], limits)
    records.push(
      credentialRecord(NOTHING_SEALED, {
        tenantId,
        parsed,
        storedBy: [issuer],
        isPublicAccess: true,
        roles: [],
        createdAt: base + i,
      }),
    )
  }
  const t2 = performance.now()
  const storage = createSqliteStorage({ path })
  await storage.init(COLLECTIONS)
  try {
    await storage.transaction(async (tx) => {
      await tenantCollections(tx, tenantId, { credentials: CREDENTIALS }).credentials.insertMany(records)
    })
  } finally {
    await storage.close()
  }
  const t3 = performance.now()
  return { issuer, ids, first: jwts[0], ms: { sign: t1 - t0, parse: t2 - t1, insert: t3 - t2 } }
}

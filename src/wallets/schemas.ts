/** Request and response schemas of the identity-wallet operations. */
import * as z from 'zod'
import { did, errorBody, id, label, nextCursor, page } from '../operations/schemas.js'
import { registryReport, walletConfig } from './config-schemas.js'
import { KEY_TYPES } from '../keys/key-types.js'

export const walletInput = z.strictObject({ alias: label(200).optional().meta({ description: 'Default: the DID.' }) })

export const generateWallet = z.strictObject({
  wallet: walletInput.optional(),
  walletConfig: walletConfig.optional(),
})

export const getWalletsQuery = z.strictObject({
  vaultId: id.optional(),
  did: did.optional(),
  alias: label(200).optional(),
  ...page,
})

export const renameWallets = z.strictObject({ wallets: z.array(z.strictObject({ did, alias: label(200) })).min(1) })

export const deleteWallets = z.strictObject({ ids: z.array(id.or(did)).min(1).meta({ description: 'Wallet ids (`_id`) or DIDs.' }) })

export const configureWallet = z.strictObject({
  wallet: z.strictObject({ did }),
  walletConfig: walletConfig,
})

/** A wallet's public key as a JWK (RFC 7517): `EC` with `x`, `y` (secp256k1, P-256) or `OKP` with `x` (Ed25519). */
export const publicKeyJwk = z
  .strictObject({ kty: z.enum(['EC', 'OKP']), crv: z.enum(KEY_TYPES), x: z.string(), y: z.string().optional() })
  .meta({ id: 'PublicKeyJwk', description: 'The wallet’s public key (RFC 7517), whatever its key type.' })

/** A wallet as responses show it. */
export const walletView = z
  .strictObject({
    _id: z.string(),
    vaultId: z.string().optional(),
    isHDWallet: z.boolean(),
    index: z.number().int().optional(),
    privateKeyHex: z.string().optional().meta({
      description:
        'The sealed (AES-256-GCM) envelope of the private key, hex; never the plaintext. Only in vault create, fetch and delete responses.',
    }),
    publicKeyDER: z.string().optional(),
    publicKeyHex: z.string().optional().meta({ description: 'The uncompressed secp256k1 public key, hex: secp256k1 wallets only.' }),
    ethereumAddress: z.string().optional().meta({ description: 'The key’s EIP-55 address: secp256k1 wallets only.' }),
    publicKeyJwk: publicKeyJwk,
    did: z.string(),
    didMethod: z.string(),
    alias: z.string(),
    created: z.string(),
    role: z.boolean().optional().meta({ description: 'true for the wallet backing a role (its DID is the role DID).' }),
    keyManagement: z
      .literal('HSM')
      .optional()
      .meta({ description: '`HSM` for a wallet whose key is kept in the service’s PKCS#11 token (absent otherwise).' }),
    registry: registryReport.optional().meta({ description: 'What the registry did with the request’s `walletConfig.txsInput`.' }),
  })
  .meta({ id: 'Wallet' })

export type WalletView = z.infer<typeof walletView>

export const walletResponse = z.strictObject({ wallet: walletView })
/** Generate Identity Wallet's response: a wallet outside any vault, with the fields the spec lists. */
export const generatedWalletResponse = z.strictObject({
  wallet: walletView
    .omit({ vaultId: true, isHDWallet: true, index: true, privateKeyHex: true, publicKeyDER: true, role: true })
    .meta({ id: 'GeneratedWallet' }),
})
export const walletsPage = z.strictObject({ wallets: z.array(walletView), nextCursor })
export const renameWalletsResponse = z.strictObject({
  wallets: z.array(walletView),
  errors: z.array(z.strictObject({ wallet: z.strictObject({ did: z.string(), alias: z.string() }), error: errorBody })),
})
export const deleteWalletsResponse = z.strictObject({
  ids: z.array(z.string()).meta({ description: 'DIDs of the removed wallets.' }),
  errors: z.array(z.strictObject({ did: z.string(), error: errorBody })),
})

/** Resolve a DID: the DID (or DID URL), as the path carries it. */
export const resolveDidParams = z.strictObject({ did: z.string().min(1).max(2_000).meta({ description: 'The DID (or DID URL).' }) })

/** A did:web document of the service (`/dids/:walletId/did.json`): the wallet id, as the DID's last segment carries it. */
export const didWebDocumentParams = z.strictObject({
  walletId: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a wallet id (letters, digits, _ and -)')
    .meta({ description: 'The id of a did:web wallet.' }),
})

/** A did:web document of the service takes no query. */
export const didWebDocumentQuery = z.strictObject({})

/** Resolve a DID: which version of the document (the DID URL's query parameters). */
const SINGLE = { error: 'invalidDidUrl: a version parameter is one value, given once' }

export const resolveDidQuery = z.strictObject({
  versionId: z
    .union([z.string().max(40), z.number()], SINGLE)
    .optional()
    .meta({
      description: 'The version: an event sequence number of the embedded registry (0 = before any change), a block number on chain.',
    }),
  versionTime: z
    .string(SINGLE)
    .max(64)
    .optional()
    .meta({ description: 'The document as it was at this time: ISO 8601 with seconds and an offset, e.g. `2024-05-01T12:00:00Z`.' }),
})

const verificationMethod = z.looseObject({ id: z.string(), type: z.string(), controller: z.string() })
const relationship = z.array(z.union([z.string(), verificationMethod])).optional()

/** A DID document (DID Core): the members didvault's documents carry, and any other. */
export const didDocument = z.looseObject({
  '@context': z.union([z.string(), z.array(z.unknown())]).optional(),
  id: z.string(),
  controller: z.union([z.string(), z.array(z.string())]).optional(),
  verificationMethod: z.array(verificationMethod).optional(),
  authentication: relationship,
  assertionMethod: relationship,
  service: z
    .array(z.looseObject({ id: z.string(), type: z.union([z.string(), z.array(z.string())]), serviceEndpoint: z.unknown() }))
    .optional(),
})

/** A DID resolution result (DID Resolution §7), with the JSON-LD context of the DIF Universal Resolver. */
export const didResolution = z.object({
  '@context': z.string(),
  didDocument: didDocument.nullable(),
  didDocumentMetadata: z.record(z.string(), z.unknown()),
  didResolutionMetadata: z.record(z.string(), z.unknown()),
})

export type DidResolution = z.output<typeof didResolution>

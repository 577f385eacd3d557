/** The `walletConfig` object (spec: walletConfig) and its `txsInput` DID-document updates. */
import * as z from 'zod'
import { did, durationMs, errorBody, ethAddress, label } from '../operations/schemas.js'
import { KEY_TYPES } from '../keys/key-types.js'

const validity = durationMs.meta({ description: 'Milliseconds from now (rounded up to whole seconds in the registry).' })

const service = z.strictObject({
  // The registry attribute is `did/svc/<name>`, a bytes32 string: at most 31 bytes, so 23 after the 8-byte prefix.
  name: z.string().regex(/^\w{1,23}$/, 'must be 1 to 23 letters, digits or _ (the attribute did/svc/<name> must fit a bytes32 string)'),
  value: z.url({ protocol: /^https?$/ }).max(2_000),
  validity,
})

/** A public JWK (did:web delegates): its members only, private ones refused. */
const publicJwk = z.strictObject({
  kty: z.enum(['EC', 'OKP']),
  crv: z.string().max(20),
  x: z.string().max(100),
  y: z.string().max(100).optional(),
})

const delegate = z
  .strictObject({
    address: ethAddress
      .optional()
      .meta({ description: 'did:ethr: the delegate key; omitted: the service generates one and keeps it sealed.' }),
    publicKeyJwk: publicJwk.optional().meta({
      description: 'did:web: the delegate key (secp256k1, P-256, Ed25519); omitted: the service generates one of the wallet’s type.',
    }),
    validity,
  })
  .refine((d) => d.address === undefined || d.publicKeyJwk === undefined, { message: 'give address or publicKeyJwk, not both' })

export const txInput = z
  .strictObject({ service: service.optional(), delegate: delegate.optional(), newOwner: did.optional() })
  .refine((t) => [t.service, t.delegate, t.newOwner].filter((v) => v !== undefined).length === 1, {
    message: 'each txsInput element holds exactly one of service, delegate, newOwner',
  })
  .meta({ id: 'TxInput', description: 'One DID-document change: exactly one of `service`, `delegate`, `newOwner`.' })

/**
 * Why a wallet's key is never a BLS12-381 G2 (BBS) key: a wallet is governed by DID-auth tokens signed by its own key
 * (or by another wallet of its vault), and a BBS key signs no JWT — a wallet of one could never be controlled, so never
 * sign; a did:web wallet signs bbs-2023 proofs with an additional BBS assertion key instead (`bbsKey`, docs/keys.md).
 */
export const NO_BBS_WALLETS =
  'a Bls12381G2 (BBS) key cannot be a wallet’s key: it signs no JWT, so no DID-auth token could prove control of the ' +
  'wallet (wallets take secp256k1, P-256 or Ed25519 keys); a did:web wallet of a P-256 or Ed25519 key signs bbs-2023 ' +
  'proofs with an additional BBS assertion key (walletConfig.bbsKey: true)'

export const walletConfig = z
  .strictObject({
    didMethod: label(50)
      .optional()
      .meta({ description: 'DID method: `ethr` (default), `key`, `jwk` or `web` (did:web needs the service’s `publicUrl`).' }),
    keyType: z
      .enum(KEY_TYPES, { error: (issue) => (issue.input === 'Bls12381G2' ? NO_BBS_WALLETS : undefined) })
      .optional()
      .meta({ description: 'The wallet’s key type: `secp256k1` (default), `P-256` or `Ed25519`; did:ethr takes secp256k1 only.' }),
    bbsKey: z
      .boolean()
      .optional()
      .meta({
        description:
          'Generate Identity Wallet, did:web with a P-256 or Ed25519 key only: `true` makes the wallet a BBS assertion key ' +
          '(Bls12381G2, sealed) listed as `#bbs-0` under `assertionMethod` of its did:web document, which signs its ' +
          '`bbs-2023` credentials; the wallet’s own key keeps signing everything else (docs/keys.md).',
      }),
    keyManagement: z
      .enum(['ECS', 'HSM'])
      .optional()
      .meta({
        description:
          'Generate Identity Wallet and Create Role only: `HSM` makes the wallet’s key in the service’s PKCS#11 token (needs the ' +
          'service’s `hsm` module), `ECS` (default) sealed under the master key. A vault’s `keyManagement` decides for its wallets.',
      }),
    apiUrl: z
      .string()
      .trim()
      .min(1)
      .max(2_000)
      .optional()
      .meta({ description: 'A registry endpoint configured in the service (`local` for the embedded registry); never an arbitrary host.' }),
    // An object is accepted as a one-element array (some spec tables type it as an object).
    txsInput: z
      .union([z.array(txInput).max(100), txInput])
      .transform((v) => (Array.isArray(v) ? v : [v]))
      .optional(),
  })
  .meta({ id: 'WalletConfig' })

export type TxInput = z.infer<typeof txInput>
export type WalletConfig = z.infer<typeof walletConfig>

/** What a registry did with a request's `txsInput`. */
export const registryReport = z
  .strictObject({
    apiUrl: z.string().meta({ description: 'The registry endpoint (`local` for the embedded registry).' }),
    transactions: z.array(
      z.strictObject({
        index: z.number().int().meta({ description: 'Position in `txsInput`.' }),
        op: z
          .enum(['changeOwner', 'addDelegate', 'revokeDelegate', 'setAttribute', 'revokeAttribute', 'addService', 'changeController'])
          .meta({ description: 'did:ethr: the ERC-1056 change; did:web: `addService`, `addDelegate`, `changeController`.' }),
        versionId: z.string().meta({ description: 'The DID document’s version after this change (`versionId` of resolution).' }),
        txHash: z.string().optional(),
        validTo: z.number().int().optional(),
        delegate: z
          .union([
            z.strictObject({ address: z.string(), publicKeyHex: z.string(), delegateType: z.string(), validTo: z.number().int() }),
            z.strictObject({ id: z.string(), publicKeyJwk: publicJwk, delegateType: z.string(), validTo: z.number().int() }),
          ])
          .optional()
          .meta({ description: 'The delegate key added (never its private key): did:ethr its address, did:web its verification method.' }),
      }),
    ),
    errors: z
      .array(z.strictObject({ index: z.number().int(), error: errorBody }))
      .meta({ description: 'The first item that failed; later items were not applied.' }),
  })
  .meta({ id: 'RegistryReport' })

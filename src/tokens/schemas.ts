/** Request and response schemas of Generate Token (`POST /did-auth-jwt`). */
import * as z from 'zod'
import { did, expiration } from '../operations/schemas.js'

export const generateToken = z
  .strictObject({ iss: did.meta({ description: 'A wallet DID of the caller’s tenant.' }), ...expiration })
  .refine((v) => [v.exp, v.expiresIn, v.expirationDate].filter((x) => x !== undefined).length <= 1, {
    message: 'give at most one of exp, expiresIn, expirationDate',
  })

const object = z.record(z.string(), z.unknown())

export const didAuthToken = z
  .strictObject({
    jsonld: object.optional().meta({
      description:
        'The DIDAuthCredential as JSON-LD (credentials v1) with a proof of the wallet key type’s default suite: ' +
        'EcdsaKoblitzSignature2016 (secp256k1; absent when the key signs no digests), DataIntegrityProof ecdsa-rdfc-2019 ' +
        '(P-256) or eddsa-rdfc-2022 (Ed25519, with the Data Integrity v2 context); its `domain` is the audience.',
    }),
    jwt: z.string().meta({
      description:
        'The credential as a VC-JWT, signed by the wallet’s key — ES256K-R (did:ethr), ES256K (other secp256k1 DIDs), ' +
        'ES256 (P-256) or EdDSA (Ed25519): send it in `x-did-auth`.',
    }),
    verifications: z.strictObject({ header: object, document: object, signature: z.string(), tbs: z.string(), issuer: z.string() }),
  })
  .meta({ id: 'DidAuthToken' })

export type DidAuthToken = z.infer<typeof didAuthToken>

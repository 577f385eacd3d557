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
    jsonld: object.meta({ description: 'The DIDAuthCredential as JSON-LD with an EcdsaKoblitzSignature2016 proof.' }),
    jwt: z.string().meta({ description: 'The same credential as a VC-JWT (ES256K-R): send it in `x-did-auth`.' }),
    verifications: z.strictObject({ header: object, document: object, signature: z.string(), tbs: z.string(), issuer: z.string() }),
  })
  .meta({ id: 'DidAuthToken' })

export type DidAuthToken = z.infer<typeof didAuthToken>

/**
 * The `@sd-jwt` libraries' types the codec uses, named through `@sd-jwt/core` and `@sd-jwt/sd-jwt-vc` (the packages
 * didvault depends on) rather than their transitive `@sd-jwt/types` and `@sd-jwt/utils`.
 */
import type { SDJwt, SDJwtInstance } from '@sd-jwt/core'
import type { SdJwtVcPayload } from '@sd-jwt/sd-jwt-vc'

/** A decoded disclosure, with its digest. */
export type Disclosure = NonNullable<SDJwt['disclosures']>[number]

/** The library's disclosure frame of an SD-JWT VC payload. */
export type VcDisclosureFrame = NonNullable<Parameters<SDJwtInstance<SdJwtVcPayload>['issue']>[1]>

type Config = NonNullable<ConstructorParameters<typeof SDJwtInstance>[0]>

/** Hashes for the library (`(data, alg) => digest`). */
export type Hasher = NonNullable<Config['hasher']>

/** Makes the library's salts. */
export type SaltGenerator = NonNullable<Config['saltGenerator']>

/** Signs a JWS signing input for the library: the signature, base64url. */
export type Signer = NonNullable<Config['signer']>

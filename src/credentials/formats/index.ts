/**
 * The registry of credential formats (issue 31 §1), one line per format: what the rest of the service reaches
 * formats through (test/architecture/layers.test.ts holds it to that). Adding a format is one folder implementing
 * {@link CredentialFormat} and one line here.
 */
import { jsonLdFormat } from './jsonld/index.js'
import { jwtFormat } from './jwt/index.js'
import { sdJwtFormat } from './sd-jwt/index.js'
import { vcJoseFormat } from './vc-jose/index.js'
import type { CredentialFormat, CredentialMember, EncodedCredential, FormatName } from './port.js'

export type {
  BbsAssertionKey,
  ClaimShape,
  CredentialContent,
  CredentialFormat,
  CredentialMember,
  CredentialStatusCheck,
  CredentialStatusChecks,
  CredentialVerification,
  CredentialVerifyOptions,
  EncodedCredential,
  FormatLimits,
  FormatName,
  IssueOptions,
  KeyBindingExpectation,
  ParsedCredential,
  PresentInput,
  SdJwtContent,
  StatusBearing,
} from './port.js'
export { isV2Credential } from './jsonld/index.js'
export { sdJwtDisclosedPaths } from './sd-jwt/disclosed-paths.js'
export {
  envelopedPresentationSignature,
  isEnvelopedPresentation,
  readEnvelopedPresentation,
  signEnvelopedPresentation,
  type EnvelopedPresentationClaims,
} from './vc-jose/presentation.js'

// SD-JWT before JWT: a compact SD-JWT is a string too (with `~`, which no JWT has); VC-JOSE before JWT: both are `{ jwt }`,
// a VC-JOSE credential told apart by `typ: vc+jwt` (or a credential as its payload, without `vc`).
const FORMATS: readonly CredentialFormat[] = [jsonLdFormat, sdJwtFormat, vcJoseFormat, jwtFormat]

/** Every registered format, in the order encoded credentials are recognised. */
export function credentialFormats(): readonly CredentialFormat[] {
  return FORMATS
}

/** The format of that name (the spec's `format` value). */
export function credentialFormatNamed(name: FormatName): CredentialFormat {
  const format = FORMATS.find((f) => f.name === name)
  if (format === undefined) throw new Error(`no credential format ${String(name)}`)
  return format
}

/** The format of an encoded credential (a compact SD-JWT, a compact JWT, a JSON-LD document). */
export function credentialFormatOf(encoded: EncodedCredential): CredentialFormat {
  return FORMATS.find((f) => f.is(encoded))!
}

/**
 * The format and encoded credential a member-carrying value holds: a request's or a response's item
 * (`{ jwt }`, `{ jsonld }`, `{ sdjwt }`). A stored record is read by `storedMember` (credentials/stored.ts).
 */
export function carriedBy(item: Partial<Record<CredentialFormat['member'], unknown>>): {
  format: CredentialFormat
  encoded: EncodedCredential
} {
  // Formats sharing a member (`jwt`: VC-JOSE, JWT) are told apart by the encoded credential's shape.
  const carrying = FORMATS.filter((f) => item[f.member] !== undefined)
  const format = carrying.find((f) => f.is(item[f.member] as EncodedCredential)) ?? carrying[0]
  if (format === undefined) throw new Error('no credential in the item')
  return { format, encoded: item[format.member] as EncodedCredential }
}

/**
 * The member that carries `encoded` in its format (`{ jwt }`, `{ jsonld }`, `{ sdjwt }`): `format` when known (the member
 * a request gave it in), otherwise the one its shape names.
 */
export function memberOf(encoded: EncodedCredential, format: CredentialFormat = credentialFormatOf(encoded)): CredentialMember {
  return { [format.member]: encoded } as CredentialMember
}

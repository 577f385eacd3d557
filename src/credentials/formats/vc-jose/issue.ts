/**
 * Issuing a VC-JOSE credential: the VCDM 2.0 credential of the content is the JWS payload as it is, under the protected
 * header `{ alg, typ: "vc+jwt", cty: "vc", kid }` — `alg` by the issuer key's type (ES256K, ES256, EdDSA), `kid` the
 * verification method of the issuer's document that lists the key — signed through the issuer wallet's {@link KeySigner}.
 */
import type { Resolvable } from 'did-resolver'
import type { KeySigner } from '../../../keys/signer.js'
import { jwtIssuerOf } from '../../../proofs/jwt-signer.js'
import type { CredentialContent } from '../port.js'
import { unsignedCredential } from '../w3c-document.js'
import { VC_CTY, VC_TYP } from './decode.js'

const base64url = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url')

/** `content` (a data model 2.0 credential: its contexts include credentials/v2) as a compact JWS signed by the issuer's key. */
export async function issueVcJose(content: CredentialContent, signer: KeySigner, options: { resolver?: Resolvable } = {}): Promise<string> {
  const { alg, kid } = await jwtIssuerOf(content.issuer, signer, { resolver: options.resolver })
  const header = { alg, typ: VC_TYP, cty: VC_CTY, ...(kid !== undefined && { kid }) }
  const data = `${base64url(header)}.${base64url(unsignedCredential(content))}`
  const signature = await signer.sign(alg, new TextEncoder().encode(data))
  return `${data}.${Buffer.from(signature).toString('base64url')}`
}

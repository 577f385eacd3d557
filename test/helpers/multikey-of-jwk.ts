/**
 * The `publicKeyMultibase` of a public JWK as an independent implementation writes it:
 * @digitalbazaar/ecdsa-multikey (P-256) and @digitalbazaar/ed25519-multikey (Ed25519), loaded with
 * dynamic `import()` (they are ESM). Tests compare didvault's did:web verification methods with it.
 */
/** A specifier imported as untyped ESM (the packages ship no types). */
const importEsm = (specifier: string): Promise<{ fromJwk(options: { jwk: unknown }): Promise<{ publicKeyMultibase: string }> }> =>
  import(specifier)

/** The `publicKeyMultibase` of a P-256 or Ed25519 public JWK. */
export async function multibaseOfJwk(jwk: { kty: string; crv: string; x: string; y?: string }): Promise<string> {
  const multikeys = await importEsm(jwk.crv === 'Ed25519' ? '@digitalbazaar/ed25519-multikey' : '@digitalbazaar/ecdsa-multikey')
  return (await multikeys.fromJwk({ jwk })).publicKeyMultibase
}

/** The `Multikey` verification method `id` of `controller` for `jwk`, as the W3C Multikey format has it. */
export async function multikeyMethod(id: string, controller: string, jwk: { kty: string; crv: string; x: string; y?: string }) {
  return { id, type: 'Multikey', controller, publicKeyMultibase: await multibaseOfJwk(jwk) }
}

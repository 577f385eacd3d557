/**
 * The signer of a credential's holder key (an SD-JWT VC's `cnf.jwk`) for a presentation: the service-held key of a
 * wallet of the caller's tenant whose own key is that key (same key id: RFC 9278 thumbprint URI, or the address of a
 * secp256k1 key), which the caller controls — the rule of Sign Verifiable Credentials' `iss` (`assertControlsWallet`;
 * an MPC wallet: its quorum's approvals, asked by its signer). None: 403, whether or not the tenant holds the key.
 */
import type { Caller } from '../auth/context.js'
import type { CredentialsContext } from '../credentials/context.js'
import { forbidden, IdentityError } from '../errors.js'
import { keyIdOfJwk } from '../keys/key-ids.js'
import type { PublicJwk } from '../keys/key-types.js'
import type { KeySigner } from '../keys/signer.js'
import { tenantCollections } from '../storage/declaration.js'
import { assertControlsWallet } from '../wallets/access.js'
import { WALLETS } from '../wallets/records.js'

/** Most wallets holding one key that are tried (one key is normally one wallet's). */
const MAX_HOLDING_WALLETS = 10

const refused = () => forbidden('no wallet of this tenant that the caller controls holds the credential’s holder key (cnf.jwk)')

/**
 * The signer of `jwk` for `caller`, and the DID of the wallet whose key it is.
 * @throws {IdentityError} 403 FORBIDDEN when no wallet the caller controls holds it
 */
export async function holderKeySigner(
  ctx: Pick<CredentialsContext, 'callers' | 'signers' | 'storage'>,
  caller: Caller,
  jwk: PublicJwk,
): Promise<{ signer: KeySigner; wallet: string }> {
  let keyId: string
  try {
    keyId = keyIdOfJwk(jwk)
  } catch {
    throw refused()
  }
  const { wallets } = tenantCollections(ctx.storage, caller.tenantId, { wallets: WALLETS })
  // The queries of vault control (src/testing/service-queries.ts), each served by its index. Wallets made before key
  // ids hold secp256k1 keys: found by their address, which is a secp256k1 key's id.
  const byKeyId = await wallets.find(
    { field: 'keyId', op: 'in', value: [keyId] },
    { orderBy: { field: 'keyId' }, limit: MAX_HOLDING_WALLETS },
  )
  const byAddress =
    jwk.crv === 'secp256k1'
      ? await wallets.find(
          { field: 'ethereumAddress', op: 'in', value: [keyId] },
          { orderBy: { field: 'ethereumAddress' }, limit: MAX_HOLDING_WALLETS },
        )
      : { items: [] }
  const seen = new Set<string>()
  for (const wallet of [...byKeyId.items, ...byAddress.items]) {
    if (seen.has(wallet.did)) continue
    seen.add(wallet.did)
    if (!ctx.signers.canSign(wallet)) continue
    try {
      if (wallet.keyManagement !== 'MPC') await assertControlsWallet(ctx, caller, wallet)
      return { signer: ctx.signers.signerFor(wallet, caller), wallet: wallet.did }
    } catch (err) {
      if (!(err instanceof IdentityError) || err.errorType !== 'FORBIDDEN') throw err
    }
  }
  throw refused()
}

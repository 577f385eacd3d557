/**
 * Verifying a presentation through the service (issue 20, *Performance*): a VP-JWT holding one
 * VC-JWT, both signed by a wallet of the service (the holder issued its own credential), verified
 * by `verifyPresentation` — the presentation's signature, its nonce, and the credential as
 * `verifyClaims` verifies it — against the raw floor of two OpenSSL secp256k1 verifies (one
 * per signature), measured interleaved (`measurePair`).
 */
import { IdentityService, randomMasterKey, staticTenants, type StorageAdapter } from '../src/index.js'
import { measurePair, type MeasureOptions, type Measurement } from './measure.js'
import { nativeSecp256k1 } from './secp256k1.js'

const API_KEY = 'bench-presentations-api-key-0123456789'

export interface PresentationResults {
  vpJwtVerify: Measurement
  floor: Measurement
  /** VP-JWT verify ÷ two raw OpenSSL verifies. */
  ratio: number
}

export async function benchPresentations(label: string, storage: StorageAdapter, options: MeasureOptions): Promise<PresentationResults> {
  const service = await IdentityService.create({ storage, masterKey: randomMasterKey(), tenants: staticTenants({ [API_KEY]: 'bench-vp' }) })
  try {
    const authorization = `Bearer ${API_KEY}`
    const { wallet } = await service.as({ authorization }).generateWallet({})
    const as = service.as({ authorization, didAuth: (await service.as({ authorization }).generateToken({ iss: wallet.did })).jwt })
    const { vcs } = await as.signClaims({
      iss: wallet.did,
      sub: wallet.did,
      format: 'JWT',
      claims: [{ id: 'urn:example:vp', payload: { n: 1 } }],
    })
    const vcJwt = (vcs[0] as { jwt: string }).jwt
    const { presentation } = await as.signPresentation({ holder: wallet.did, format: 'JWT', nonce: 'n', vcs: [{ jwt: vcJwt }] })
    const verify = async () => {
      if (!(await as.verifyPresentation({ presentation, nonce: 'n' })).verified) throw new Error('bench: presentation not verified')
    }
    await verify()
    const raw = nativeSecp256k1().verify
    const [vpJwtVerify, floor] = await measurePair(
      { label: `${label}: VP-JWT (one VC-JWT) verify (service)`, fn: verify },
      {
        label: `${label}: two raw OpenSSL verifies (interleaved)`,
        fn: () => {
          raw.fn()
          return raw.fn()
        },
      },
      options,
    )
    return { vpJwtVerify, floor, ratio: Number((vpJwtVerify.opsPerSec / floor.opsPerSec).toFixed(3)) }
  } finally {
    await service.close()
  }
}

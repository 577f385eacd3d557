/**
 * DID-registry measurements: embedded resolution of a DID with 5 changes, and DID-auth
 * verification of tokens of such a DID — signed by its owner and by a `veriKey` delegate —
 * each paired with the raw OpenSSL verify rate for the ratio.
 */
import { createJWT } from 'did-jwt'
import { verifyDidAuthToken } from '../src/auth/did-auth.js'
import { didJwtSigner } from '../src/proofs/jwt-signer.js'
import type { IdentityService } from '../src/index.js'
import { generatePrivateKey, LocalSigner } from '../src/keys/secp256k1.js'
import { measure, measurePair, type MeasureOptions, type Measurement } from './measure.js'
import { nativeSecp256k1 } from './secp256k1.js'

export interface DidResults {
  /** `resolveDid` of a DID whose document went through 5 registry changes. */
  embeddedResolution5Changes: Measurement
  didAuthVerification5Changes: Measurement
  rawVerifyInterleaved5Changes: Measurement
  /** A token whose `iss` is that DID, signed by one of its `veriKey` delegates (a key the service does not hold). */
  didAuthVerificationByDelegate: Measurement
  rawVerifyInterleavedDelegate: Measurement
}

export async function benchDid(
  label: string,
  service: IdentityService,
  authorization: string,
  options: MeasureOptions,
): Promise<DidResults> {
  const api = service.as({ authorization })
  const delegateKey = generatePrivateKey()
  const delegate = new LocalSigner(delegateKey)
  const day = 86_400_000
  const { wallet } = await api.generateWallet({
    walletConfig: {
      txsInput: [
        { service: { name: 'HubService', value: 'https://hub.example.com/inbox', validity: day } },
        { delegate: { validity: day } },
        { delegate: { address: delegate.address, validity: day } },
        { service: { name: 'Messaging', value: 'https://m.example.com', validity: day } },
        { delegate: { validity: day } },
      ],
    },
  })
  if (wallet.registry?.transactions.length !== 5) throw new Error('bench: the 5 changes were not applied')
  const did = wallet.did
  const { jwt } = await api.generateToken({ iss: did })
  const now = Math.floor(Date.now() / 1000)
  const byDelegate = await createJWT(
    { iat: now, exp: now + 3_600, aud: service.config.audience },
    { issuer: did, signer: didJwtSigner(delegate), alg: 'ES256K-R' },
  )
  const verifyOptions = service.didAuthOptions
  for (const token of [jwt, byDelegate])
    if ((await verifyDidAuthToken(token, verifyOptions)) !== did) throw new Error('bench: DID-auth self-check failed')
  const raw = nativeSecp256k1().verify

  const embeddedResolution5Changes = await measure(
    { label: `${label}: embedded resolution, 5 changes`, fn: () => service.resolveDid({ did: did }) },
    options,
  )
  const [didAuthVerification5Changes, rawVerifyInterleaved5Changes] = await measurePair(
    { label: `${label}: DID-auth verify, DID with 5 changes`, fn: () => verifyDidAuthToken(jwt, verifyOptions) },
    { ...raw, label: `${label}: raw secp256k1 verify (interleaved)` },
    options,
  )
  const [didAuthVerificationByDelegate, rawVerifyInterleavedDelegate] = await measurePair(
    { label: `${label}: DID-auth verify, veriKey delegate`, fn: () => verifyDidAuthToken(byDelegate, verifyOptions) },
    { ...raw, label: `${label}: raw secp256k1 verify (interleaved)` },
    options,
  )
  return {
    embeddedResolution5Changes,
    didAuthVerification5Changes,
    rawVerifyInterleaved5Changes,
    didAuthVerificationByDelegate,
    rawVerifyInterleavedDelegate,
  }
}

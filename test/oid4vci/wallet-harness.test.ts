/**
 * The wallet harness (test/helpers/oid4vci-wallets.ts) against the TEST-ONLY reference issuer
 * (test/helpers/oid4vci-reference-issuer.ts) on loopback https: each client and flow ends with an SD-JWT VC that
 * verifies under the issuer's key and is bound (`cnf.jwk`) to the key the wallet proved.
 */
import { ES256, digest } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { thumbprint } from '../helpers/oid4vci-callbacks.js'
import {
  REF_BATCH_SIZE,
  REF_CLAIMS,
  REF_DEFERRED_CONFIGURATION,
  REF_VCT,
  startReferenceIssuer,
  type ReferenceIssuer,
} from '../helpers/oid4vci-reference-issuer.js'
import { runWallet, type WalletName, type WalletOptions, type WalletResult } from '../helpers/oid4vci-wallets.js'
import { makeTestCa, type TestCa } from '../helpers/tls.js'

let ca: TestCa
let issuer: ReferenceIssuer
let dpopIssuer: ReferenceIssuer

beforeAll(async () => {
  ca = makeTestCa()
  issuer = await startReferenceIssuer(ca)
  dpopIssuer = await startReferenceIssuer(ca, { dpopRequired: true })
})
afterAll(async () => {
  await issuer?.close()
  await dpopIssuer?.close()
  ca?.remove()
})

/** Verifies every credential with @sd-jwt/sd-jwt-vc under `from`'s key and checks each is bound to the wallet's key. */
async function expectBoundSdJwtVcs(result: WalletResult, from: ReferenceIssuer, count = 1) {
  expect(result.credentials).toHaveLength(count)
  const verifier = new SDJwtVcInstance({ hasher: digest, verifier: await ES256.getVerifier(from.issuerJwk) })
  for (const [index, credential] of result.credentials.entries()) {
    expect(typeof credential).toBe('string')
    const { payload } = await verifier.verify(credential as string)
    expect(payload).toMatchObject({ iss: from.credentialIssuer, vct: REF_VCT, ...REF_CLAIMS })
    const cnf = payload.cnf as { jwk: Parameters<typeof thumbprint>[0] }
    expect(await thumbprint(cnf.jwk)).toBe(await thumbprint(result.holderJwks[index]))
  }
  const thumbprints = await Promise.all(result.holderJwks.map(thumbprint))
  expect(new Set(thumbprints).size).toBe(count)
}

const cases: Array<{
  wallet: WalletName
  flow: string
  grant: 'pre-authorized_code' | 'authorization_code'
  txCode?: boolean
  dpop?: boolean
  batch?: number
  deferred?: boolean
}> = [
  { wallet: 'digitalbazaar', flow: 'pre-authorized', grant: 'pre-authorized_code' },
  { wallet: 'sphereon', flow: 'pre-authorized', grant: 'pre-authorized_code' },
  { wallet: 'sphereon', flow: 'pre-authorized with tx_code', grant: 'pre-authorized_code', txCode: true },
  { wallet: 'sphereon', flow: 'pre-authorized with DPoP', grant: 'pre-authorized_code', dpop: true },
  { wallet: 'sphereon', flow: 'authorization code', grant: 'authorization_code' },
  { wallet: 'openid4vc', flow: 'pre-authorized', grant: 'pre-authorized_code' },
  { wallet: 'openid4vc', flow: 'pre-authorized with tx_code', grant: 'pre-authorized_code', txCode: true },
  { wallet: 'openid4vc', flow: 'pre-authorized with DPoP', grant: 'pre-authorized_code', dpop: true },
  { wallet: 'openid4vc', flow: 'authorization code (PAR + PKCE + DPoP)', grant: 'authorization_code', dpop: true },
  { wallet: 'openid4vc', flow: `batch of ${REF_BATCH_SIZE}`, grant: 'pre-authorized_code', batch: REF_BATCH_SIZE },
  { wallet: 'openid4vc', flow: 'deferred', grant: 'pre-authorized_code', deferred: true },
]

describe('wallet clients against the reference issuer', () => {
  for (const c of cases) {
    it(`${c.wallet}: ${c.flow}`, async () => {
      const target = c.dpop ? dpopIssuer : issuer
      const offer = await target.createOffer({
        grant: c.grant,
        txCode: c.txCode,
        configurationId: c.deferred ? REF_DEFERRED_CONFIGURATION : undefined,
      })
      const options: WalletOptions = { txCode: offer.txCode, dpop: c.dpop, batch: c.batch }
      const result = await runWallet(c.wallet, offer.offerUri, { ...options, caFile: ca.caFile })
      await expectBoundSdJwtVcs(result, target, c.batch ?? 1)
      // Every client fetched its c_nonce from the nonce endpoint.
      expect(target.requests.some((r) => r.method === 'POST' && r.path.endsWith('/nonce'))).toBe(true)
      if (c.dpop) expect(result.dpopJwk).toBeDefined()
    }, 60_000)
  }

  it('a wrong tx_code gets no credential (the harness reports the failure)', async () => {
    const offer = await issuer.createOffer({ grant: 'pre-authorized_code', txCode: true })
    const wrong = offer.txCode === '000000' ? '111111' : '000000'
    await expect(runWallet('openid4vc', offer.offerUri, { txCode: wrong, caFile: ca.caFile })).rejects.toThrow(/invalid_grant/)
  }, 60_000)
})

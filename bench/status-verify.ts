/**
 * Issue 20: verifying a VC-JWT with one `BitstringStatusListEntry` ÷ the same credential without
 * it, measured interleaved through the service (`verifyClaims`). The list (131,072 entries) is
 * served by a loopback server on an allowed origin with `Cache-Control: max-age=3600`: after the
 * first verification it is held, verified and decoded, so the status check is a cache lookup.
 * Both credentials are signed by one key (did:ethr on the dev network) with did-jwt-vc. Then the
 * same for credentials the service issues itself, one with an entry on its own list (issue 29: the
 * entry's bit is read from storage at each check, so the check is a storage read, not a cache lookup).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import { IdentityService, randomMasterKey, staticTenants, type StorageAdapter } from '../src/index.js'
import { didJwtSigner } from '../src/proofs/jwt-signer.js'
import { generatePrivateKey, LocalSigner } from '../src/keys/secp256k1.js'
import { measurePair, type MeasureOptions, type Measurement } from './measure.js'

const API_KEY = 'bench-status-verify-api-key-0123456789'

export interface StatusVerifyResults {
  withStatus: Measurement
  withoutStatus: Measurement
  ratio: number
  /** Issue 29: a VC-JWT the service issued with status on its own list (the entry read from storage) ÷ one without. */
  ownList: { withStatus: Measurement; withoutStatus: Measurement; ratio: number }
}

export async function benchStatusVerify(label: string, storage: StorageAdapter, options: MeasureOptions): Promise<StatusVerifyResults> {
  const key = new LocalSigner(generatePrivateKey())
  const issuer = { did: `did:ethr:dev:${key.address}`, signer: didJwtSigner(key), alg: 'ES256K' }
  const vc = (extra: { credentialSubject: Record<string, unknown> } & Record<string, unknown>) =>
    createVerifiableCredentialJwt(
      { vc: { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], ...extra } },
      issuer,
    )
  const bits = Buffer.alloc(131_072 / 8)
  bits[0] = 0x80
  let list = ''
  const server = createServer((_req, res) => res.writeHead(200, { 'cache-control': 'max-age=3600' }).end(list))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const url = `${origin}/lists/1`
  list = await vc({
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    credentialSubject: {
      type: 'BitstringStatusList',
      statusPurpose: 'revocation',
      encodedList: `u${gzipSync(bits).toString('base64url')}`,
    },
  })
  const service = await IdentityService.create({
    storage,
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [API_KEY]: 'bench-status' }),
    statusListOrigins: [origin],
    publicUrl: 'https://status.bench.example/identity',
    statusPublishIntervalMs: 3_600_000,
  })
  try {
    const { wallet } = await service.as({ authorization: `Bearer ${API_KEY}` }).generateWallet({})
    const didAuth = (await service.as({ authorization: `Bearer ${API_KEY}` }).generateToken({ iss: wallet.did })).jwt
    const as = service.as({ authorization: `Bearer ${API_KEY}`, didAuth })
    const subject = { credentialSubject: { id: wallet.did, degree: 'BSc' } }
    const entry = { type: 'BitstringStatusListEntry', statusPurpose: 'revocation', statusListIndex: '7', statusListCredential: url }
    const withStatus = await vc({ ...subject, credentialStatus: entry })
    const withoutStatus = await vc(subject)
    const verify = (jwt: string, checks: number) => async () => {
      const [result] = (await as.verifyClaims({ claims: [{ jwt }] })).vcs
      if (!result.verified || result.checks.length !== checks) throw new Error(`bench: ${JSON.stringify(result.checks)}`)
    }
    const [ours, floor] = await measurePair(
      { label: `${label}: JWT VC verify, one status entry (list cached)`, fn: verify(withStatus, 2) },
      { label: `${label}: JWT VC verify, no status (interleaved)`, fn: verify(withoutStatus, 1) },
      options,
    )
    const issued = async (status: boolean) => {
      const { vcs } = await as.signClaims({
        iss: wallet.did,
        format: 'JWT',
        ...(status && { status: { purposes: ['revocation'] } }),
        claims: [{ payload: { degree: 'BSc' } }],
      } as never)
      return (vcs[0] as { jwt: string }).jwt
    }
    const [ownOurs, ownFloor] = await measurePair(
      { label: `${label}: JWT VC verify, one entry on the service's own list`, fn: verify(await issued(true), 3) },
      { label: `${label}: JWT VC verify, issued without status (interleaved)`, fn: verify(await issued(false), 2) },
      options,
    )
    const ratioOf = (a: Measurement, b: Measurement) => Number((a.opsPerSec / b.opsPerSec).toFixed(3))
    return {
      withStatus: ours,
      withoutStatus: floor,
      ratio: ratioOf(ours, floor),
      ownList: { withStatus: ownOurs, withoutStatus: ownFloor, ratio: ratioOf(ownOurs, ownFloor) },
    }
  } finally {
    await service.close()
    server.closeAllConnections()
    server.close()
  }
}

/**
 * SD-JWT VC against the reference library (issue 31 *Performance*), each pair measured interleaved in one run:
 * - `issue`: the `SD-JWT` format port's issue of an SD-JWT VC with 10 selectively disclosable claims (P-256, did:jwk
 *   issuer, `cnf.jwk`) ÷ `@sd-jwt/sd-jwt-vc` 0.19 issuing the same credential (same claims, disclosure frame, header),
 *   both signing with the same node:crypto key (target ≥ 0.8);
 * - `verifyPresentation`: our verify of a presentation of it with all 10 disclosures and a KB-JWT (issuer DID resolved,
 *   every check of the codec) ÷ the library's verify of the same presentation with the same node:crypto verifiers
 *   (issuer key given, KB-JWT and nonce checked) (target ≥ 0.8);
 * - beside them, the embedded API's rates: Sign Claims (`format: "SD-JWT"`, one claim of 10 disclosable members) and
 *   Verify Claims of one SD-JWT VC, on memory storage (information).
 */
import { randomUUID, sign as nodeSign, verify as nodeVerify, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { digest, generateSalt } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { Resolver } from 'did-resolver'
import { createMemoryStorage, IdentityService, randomMasterKey, staticTenants } from '../src/index.js'
import { credentialFormatNamed } from '../src/credentials/formats/index.js'
import { verifySdJwtVc } from '../src/credentials/formats/sd-jwt/index.js'
import { didMethodNamed, didMethodNames } from '../src/did/methods/index.js'
import type { PublicJwk, SignatureAlgorithm } from '../src/keys/key-types.js'
import type { KeySigner } from '../src/keys/signer.js'
import { measure, measurePair, type MeasureOptions, type Measurement } from './measure.js'

const API_KEY = 'bench-sd-jwt-api-key-0123456789abcdef'
const VCT = 'https://credentials.example.com/identity'
const NONCE = 'bench-nonce-0123456789'
const AUD = 'https://verifier.example'
/** The 10 selectively disclosable claims. */
const CLAIMS: Record<string, unknown> = {
  given_name: 'Erika',
  family_name: 'Mustermann',
  birthdate: '1963-08-12',
  nationality: 'DE',
  email: 'erika@example.com',
  phone_number: '+49 30 1234567',
  street_address: 'Heidestraße 17',
  locality: 'Köln',
  postal_code: '51147',
  country: 'DE',
}

export interface Paired {
  ours: Measurement
  library: Measurement
  /** ours ÷ library, ops/s. */
  ratio: number
}

export interface SdJwtResults {
  disclosableClaims: number
  /** The format port's issue ÷ @sd-jwt/sd-jwt-vc's issue. */
  issue: Paired
  /** Our verify of a presentation with KB ÷ the library's. */
  verifyPresentation: Paired
  /** Sign Claims, format SD-JWT, one credential, memory storage. */
  signClaimsSdJwt: Measurement
  /** Verify Claims of one SD-JWT VC, memory storage. */
  verifyClaimsSdJwt: Measurement
}

const round = (n: number) => Number(n.toFixed(3))

/** node:crypto ES256, JOSE form (r‖s). */
const es256Sign = (key: KeyObject, data: Uint8Array | string) =>
  nodeSign('sha256', typeof data === 'string' ? Buffer.from(data) : data, { key, dsaEncoding: 'ieee-p1363' })

function p256(): { privateKey: KeyObject; publicKey: KeyObject; publicJwk: PublicJwk } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  return { privateKey, publicKey, publicJwk: publicKey.export({ format: 'jwk' }) as PublicJwk }
}

/** A `KeySigner` over a node:crypto P-256 key: what the format port signs with. */
function nodeKeySigner(privateKey: KeyObject, publicJwk: PublicJwk): KeySigner {
  return {
    keyType: 'P-256',
    publicJwk,
    sign: async (alg: SignatureAlgorithm, data: Uint8Array) => {
      if (alg !== 'ES256') throw new Error(`bench: ${alg}`)
      return new Uint8Array(es256Sign(privateKey, data))
    },
  }
}

/** The figures of SD-JWT VC issue and presentation verify against @sd-jwt/sd-jwt-vc, and the embedded API's rates. */
export async function benchSdJwt(options: MeasureOptions): Promise<SdJwtResults> {
  const resolver = new Resolver(
    Object.fromEntries(didMethodNames().map((name) => [name, (did: string) => didMethodNamed(name)!.resolve(did)])),
    { cache: false },
  )
  const issuerKey = p256()
  const holderKey = p256()
  const { did } = await didMethodNamed('jwk')!.create({ publicJwk: issuerKey.publicJwk })
  const kid = (await didMethodNamed('jwk')!.resolve(did)).didDocument!.assertionMethod![0] as string
  const absoluteKid = kid.startsWith('#') ? `${did}${kid}` : kid

  // Issue: the format port ÷ the library, same claims, frame, header, signer.
  const format = credentialFormatNamed('SD-JWT')
  const signer = nodeKeySigner(issuerKey.privateKey, issuerKey.publicJwk)
  const content = () => ({
    id: `urn:uuid:${randomUUID()}`,
    issuer: did,
    claims: CLAIMS,
    contexts: [],
    types: [],
    issuedAt: Date.now(),
    sdJwt: { vct: VCT, holderJwk: holderKey.publicJwk },
  })
  const library = new SDJwtVcInstance({
    hasher: digest,
    saltGenerator: generateSalt,
    signAlg: 'ES256',
    signer: async (data: string) => es256Sign(issuerKey.privateKey, data).toString('base64url'),
    verifier: async (data: string, signature: string) =>
      nodeVerify('sha256', Buffer.from(data), { key: issuerKey.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')),
    kbSignAlg: 'ES256',
    kbSigner: async (data: string) => es256Sign(holderKey.privateKey, data).toString('base64url'),
    kbVerifier: async (data: string, signature: string) =>
      nodeVerify('sha256', Buffer.from(data), { key: holderKey.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')),
  })
  const frame = { _sd: Object.keys(CLAIMS) }
  const libraryIssue = () =>
    library.issue(
      { iss: did, iat: Math.floor(Date.now() / 1000), vct: VCT, cnf: { jwk: holderKey.publicJwk }, ...CLAIMS } as never,
      frame as never,
      { header: { typ: 'dc+sd-jwt', kid: absoluteKid } },
    )
  const oursIssued = (await format.issue(content(), signer, { resolver })) as string
  if (oursIssued.split('~').length !== 12) throw new Error('bench: the format port did not disclose 10 claims')
  const [issueOurs, issueLibrary] = await measurePair(
    { label: 'memory: SD-JWT VC issue, 10 disclosable (format port)', fn: () => format.issue(content(), signer, { resolver }) },
    { label: 'memory: SD-JWT VC issue, @sd-jwt/sd-jwt-vc (interleaved)', fn: libraryIssue },
    options,
  )

  // Verify a presentation with all 10 disclosures and a KB-JWT: ours (DID resolved) ÷ the library's.
  const presentation = await library.present(oursIssued, Object.fromEntries(Object.keys(CLAIMS).map((k) => [k, true])), {
    kb: { payload: { iat: Math.floor(Date.now() / 1000), aud: AUD, nonce: NONCE } },
  })
  const ours = await verifySdJwtVc(presentation, { resolver, kb: { nonce: NONCE, aud: AUD } })
  if (!ours.verified || Object.keys(ours.disclosed ?? {}).length < 10) throw new Error(`bench: our verify refused: ${ours.error}`)
  await library.verify(presentation, { keyBindingNonce: NONCE })
  const [verifyOurs, verifyLibrary] = await measurePair(
    {
      label: 'memory: SD-JWT VC presentation verify, KB (ours)',
      fn: async () => {
        if (!(await verifySdJwtVc(presentation, { resolver, kb: { nonce: NONCE, aud: AUD } })).verified) throw new Error('bench: refused')
      },
    },
    {
      label: 'memory: SD-JWT VC presentation verify, @sd-jwt (interleaved)',
      fn: () => library.verify(presentation, { keyBindingNonce: NONCE }),
    },
    options,
  )

  // The embedded API on memory storage.
  const service = await IdentityService.create({
    storage: createMemoryStorage(),
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [API_KEY]: 'bench-sd-jwt' }),
  })
  try {
    const authorization = `Bearer ${API_KEY}`
    const api = service.as({ authorization })
    const { wallet } = await api.generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })
    const as = service.as({ authorization, didAuth: (await api.generateToken({ iss: wallet.did })).jwt })
    const claims = [{ vct: VCT, payload: CLAIMS, holderJwk: holderKey.publicJwk }]
    const signed = await as.signClaims({ iss: wallet.did, format: 'SD-JWT', claims })
    const sdjwt = (signed.vcs[0] as { sdjwt: string }).sdjwt
    const check = await as.verifyClaims({ vcs: [{ sdjwt }] })
    if (!(check.vcs[0] as { verified: boolean }).verified) throw new Error('bench: Verify Claims refused the SD-JWT VC')
    const signClaimsSdJwt = await measure(
      {
        label: 'memory: Sign Claims, SD-JWT (embedded API)',
        fn: () => as.signClaims({ iss: wallet.did, format: 'SD-JWT', claims }),
      },
      options,
    )
    const verifyClaimsSdJwt = await measure(
      { label: 'memory: Verify Claims, SD-JWT (embedded API)', fn: () => as.verifyClaims({ vcs: [{ sdjwt }] }) },
      options,
    )
    return {
      disclosableClaims: Object.keys(CLAIMS).length,
      issue: { ours: issueOurs, library: issueLibrary, ratio: round(issueOurs.opsPerSec / issueLibrary.opsPerSec) },
      verifyPresentation: { ours: verifyOurs, library: verifyLibrary, ratio: round(verifyOurs.opsPerSec / verifyLibrary.opsPerSec) },
      signClaimsSdJwt,
      verifyClaimsSdJwt,
    }
  } finally {
    await service.close()
  }
}

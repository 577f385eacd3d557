/**
 * Deferred issuance (OID4VCI 1.0 §8.3, §9) over the router on loopback HTTP on a SQLite file: the `@openid4vc/openid4vci`
 * client's deferred flow (202 with a transaction id, polls, the credentials once) with the issuing backend completing
 * the issuance in between; DID control for completion, another tenant's reference, refusal, another grant's token; the
 * transaction ids are not in the database's bytes.
 */
import { Openid4vciClient } from '@openid4vc/openid4vci'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IdentityService } from '../../src/index.js'
import { oid4vci } from '../../src/oid4vc.js'
import { newP256, oid4vcCallbacks, thumbprint, type KeyPair } from '../helpers/oid4vci-callbacks.js'
import { TENANT_A, TENANT_B } from '../helpers/harness.js'
import { ISSUER_PUBLIC_URL, loopbackIssuer, type LoopbackIssuer } from '../helpers/oid4vci-loopback.js'
import type { StorageAdapter } from '../../src/storage/port.js'

const PUBLIC_URL = ISSUER_PUBLIC_URL
const VCT = 'https://credentials.example.com/identity'

let rig: LoopbackIssuer
let service: IdentityService
let storage: StorageAdapter
const secrets: string[] = []

/** Requests to https://issuer.test go to the loopback server. */
const loopback: typeof fetch = (input, init) => rig.loopback(input, init)

/** A tenant's issuer with a deferred SD-JWT VC configuration; the backend's API with DID control, and without. */
async function issuerOf(token: string, slug: string) {
  const api = service.as({ authorization: `Bearer ${token}` })
  const { wallet } = await api.generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })
  const { wallet: bystander } = await api.generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })
  const { jwt } = await api.generateToken({ iss: wallet.did })
  const withDid = service.as({ authorization: `Bearer ${token}`, didAuth: jwt })
  await withDid.createCredentialConfiguration({
    id: 'Licence',
    issuer: slug,
    format: 'dc+sd-jwt',
    vct: VCT,
    issuingDid: wallet.did,
    deferred: true,
    claims: [{ path: ['given_name'] }],
  })
  const other = service.as({ authorization: `Bearer ${token}`, didAuth: (await api.generateToken({ iss: bystander.did })).jwt })
  return { api, withDid, other, did: wallet.did }
}

let acme: Awaited<ReturnType<typeof issuerOf>>
let bravo: Awaited<ReturnType<typeof issuerOf>>

beforeAll(async () => {
  rig = await loopbackIssuer('didvault-deferred-', { oid4vci: oid4vci({ deferredIntervalSeconds: 1 }) })
  ;({ service, storage } = rig)
  acme = await issuerOf(TENANT_A, 'acme')
  bravo = await issuerOf(TENANT_B, 'bravo')
}, 60_000)

afterAll(() => rig?.close())

/**
 * The wallet side up to the deferred answer, by the @openid4vc client: an offer of `issuer`, a token (DPoP-bound when
 * asked), a nonce, a key proof, the credential request answered 202.
 */
async function deferredRequest(issuer = acme, options: { dpop?: boolean; given?: string } = {}) {
  const made = await issuer.withDid.createCredentialOffer({
    configurations: [{ id: 'Licence', claims: { given_name: options.given ?? 'Erika' } }],
  })
  secrets.push(made.offerId)
  const holder = newP256()
  const dpopKey = options.dpop === true ? newP256() : undefined
  const client = new Openid4vciClient({ callbacks: oid4vcCallbacks([holder, ...(dpopKey ? [dpopKey] : [])], loopback) })
  const credentialOffer = await client.resolveCredentialOffer(made.offerUri)
  const issuerMetadata = await client.resolveIssuerMetadata(credentialOffer.credential_issuer)
  const token = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
    credentialOffer,
    issuerMetadata,
    ...(dpopKey && { dpop: { signer: { method: 'jwk' as const, alg: 'ES256', publicJwk: dpopKey.publicJwk } } }),
  })
  const accessToken = token.accessTokenResponse.access_token
  const { c_nonce: nonce } = await client.requestNonce({ issuerMetadata })
  const { jwt } = await client.createCredentialRequestJwtProof({
    issuerMetadata,
    credentialConfigurationId: 'Licence',
    signer: { method: 'jwk', alg: 'ES256', publicJwk: holder.publicJwk },
    nonce,
  })
  const retrieved = await client.retrieveCredentials({
    issuerMetadata,
    accessToken,
    credentialConfigurationId: 'Licence',
    proofs: { jwt: [jwt] },
    dpop: token.dpop,
  })
  const transactionId = retrieved.credentialResponse.transaction_id!
  secrets.push(accessToken, transactionId, nonce)
  let dpop = token.dpop ? { ...token.dpop, ...retrieved.dpop } : undefined
  /** One poll of the deferred credential endpoint by the client (its DPoP state carried on). */
  const poll = async () => {
    const answer = await client.retrieveDeferredCredentials({ issuerMetadata, accessToken, transactionId, dpop })
    dpop = dpop ? { ...dpop, ...answer.dpop } : undefined
    return answer
  }
  return { retrieved, transactionId, accessToken, holder, issuerMetadata, poll }
}

/** The deferred credential endpoint with a Bearer token, raw. */
async function fetchDeferred(slug: string, accessToken: string, body: unknown) {
  const res = await loopback(`${PUBLIC_URL}/oid4vci/${slug}/deferred-credential`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers }
}

/** The pending issuance of `holder` as the backend lists it. */
async function referenceOf(holder: KeyPair, api = acme.api) {
  const jkt = await thumbprint(holder.publicJwk)
  const { deferred } = await api.getDeferredCredentials({})
  const mine = deferred.find((d) => d.holderKeys.includes(jkt))
  expect(mine, 'the pending issuance is listed').toBeDefined()
  return mine!
}

async function auditOf(action: 'credential.issue' | 'credential.defer' | 'credential.refuse', target?: string) {
  await service.chainAuditRecords()
  return (await acme.api.getAuditRecords({ action, ...(target && { target }), limit: 1000 })).records
}

const credentialCount = () => storage.collection('credentials').count({ and: [] })
const payloadOf = (sdJwt: string) =>
  JSON.parse(Buffer.from(sdJwt.split('~')[0].split('.')[1], 'base64url').toString()) as Record<string, any>

describe('deferred issuance', () => {
  it('metadata names the deferred credential endpoint', async () => {
    const res = await loopback(`${PUBLIC_URL}/oid4vci/acme/.well-known/openid-credential-issuer`)
    expect(((await res.json()) as Record<string, unknown>).deferred_credential_endpoint).toBe(
      `${PUBLIC_URL}/oid4vci/acme/deferred-credential`,
    )
  })

  it('@openid4vc/openid4vci’s client: 202 with a transaction id, pending polls, the backend completes, the credential once', async () => {
    const before = await credentialCount()
    const { retrieved, transactionId, holder, poll } = await deferredRequest(acme, { dpop: true })
    expect(retrieved.response.status).toBe(202)
    expect(retrieved.credentialResponse).toMatchObject({ transaction_id: transactionId, interval: 1 })
    expect(retrieved.credentialResponse.credentials).toBeUndefined()
    expect(await credentialCount()).toBe(before)

    const pending = await poll()
    expect(pending.ok).toBe(true)
    expect(pending.response.status).toBe(202)
    expect(pending.deferredCredentialResponse).toMatchObject({ transaction_id: transactionId, interval: 1 })

    const listed = await referenceOf(holder)
    expect(listed).toMatchObject({ configurationId: 'Licence', state: 'pending', claims: { given_name: 'Erika' } })
    expect(JSON.stringify(listed)).not.toContain(transactionId)
    const completed = await acme.withDid.completeDeferredCredential({
      reference: listed.reference,
      claims: { given_name: 'Erika', age: 40 },
    })
    expect(completed).toMatchObject({ reference: listed.reference, state: 'ready' })
    expect(completed.credentialIds).toHaveLength(1)
    expect(await credentialCount()).toBe(before + 1)

    const ready = await poll()
    expect(ready.response.status).toBe(200)
    const credentials = ready.deferredCredentialResponse.credentials!
    expect(credentials).toHaveLength(1)
    const payload = payloadOf((credentials[0] as { credential: string }).credential)
    expect(payload).toMatchObject({ vct: VCT, iss: acme.did, cnf: { jwk: { x: holder.publicJwk.x, y: holder.publicJwk.y } } })
    expect(ready.deferredCredentialResponse.notification_id).toBeUndefined()

    // The transaction is done: a second fetch is refused, nothing more issued.
    await expect(poll()).rejects.toThrow(/invalid_transaction_id/)
    expect(await credentialCount()).toBe(before + 1)
    expect((await auditOf('credential.defer', listed.reference)).map((r) => r.target.holderKey)).toEqual([listed.holderKeys[0]])
    const issued = await auditOf('credential.issue', completed.credentialIds[0])
    expect(issued).toHaveLength(1)
    expect(issued[0].target.holderKey).toBe(listed.holderKeys[0])
    expect((await acme.api.getDeferredCredentials({ state: 'issued' })).deferred.map((d) => d.reference)).toContain(listed.reference)
  }, 30_000)

  it('pending over raw HTTP: 202 { transaction_id, interval }, no-store; unknown or malformed ids are refused', async () => {
    const { transactionId, accessToken } = await deferredRequest()
    const pending = await fetchDeferred('acme', accessToken, { transaction_id: transactionId })
    expect(pending.status).toBe(202)
    expect(pending.body).toEqual({ transaction_id: transactionId, interval: 1 })
    expect(pending.headers.get('cache-control')).toBe('no-store')
    const unknown = await fetchDeferred('acme', accessToken, { transaction_id: 'not-a-transaction' })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toBe('invalid_transaction_id')
    const missing = await fetchDeferred('acme', accessToken, {})
    expect(missing.status).toBe(400)
    expect(missing.body.error).toBe('invalid_credential_request')
  }, 30_000)

  it('completion needs control of the issuing DID: without it (or with another wallet’s) refused, nothing written', async () => {
    const { holder, transactionId, accessToken } = await deferredRequest()
    const { reference } = await referenceOf(holder)
    const before = await credentialCount()
    await expect(acme.api.completeDeferredCredential({ reference })).rejects.toMatchObject({ statusCode: 403 })
    await expect(acme.other.completeDeferredCredential({ reference })).rejects.toMatchObject({ errorType: 'FORBIDDEN' })
    expect(await credentialCount()).toBe(before)
    expect((await referenceOf(holder)).state).toBe('pending')
    expect((await fetchDeferred('acme', accessToken, { transaction_id: transactionId })).status).toBe(202)
  }, 30_000)

  it('another tenant’s reference: 422 NOT_FOUND, nothing written; its token cannot fetch another tenant’s transaction', async () => {
    const a = await deferredRequest()
    const { reference } = await referenceOf(a.holder)
    const before = await credentialCount()
    await expect(bravo.withDid.completeDeferredCredential({ reference })).rejects.toMatchObject({ statusCode: 422, errorType: 'NOT_FOUND' })
    expect(await credentialCount()).toBe(before)
    expect((await referenceOf(a.holder)).state).toBe('pending')
    expect((await bravo.api.getDeferredCredentials({})).deferred.map((d) => d.reference)).not.toContain(reference)

    const b = await deferredRequest(bravo)
    const across = await fetchDeferred('bravo', b.accessToken, { transaction_id: a.transactionId })
    expect(across.body.error).toBe('invalid_transaction_id')
    // B's token at A's issuer is not a token there.
    expect((await fetchDeferred('acme', b.accessToken, { transaction_id: a.transactionId })).status).toBe(401)
  }, 30_000)

  it('another grant’s token (another offer) cannot fetch the transaction', async () => {
    const a = await deferredRequest()
    const other = await deferredRequest()
    await acme.withDid.completeDeferredCredential({ reference: (await referenceOf(a.holder)).reference })
    const stolen = await fetchDeferred('acme', other.accessToken, { transaction_id: a.transactionId })
    expect(stolen.status).toBe(400)
    expect(stolen.body.error).toBe('invalid_transaction_id')
    const own = await fetchDeferred('acme', a.accessToken, { transaction_id: a.transactionId })
    expect(own.status).toBe(200)
    expect(own.body.credentials).toHaveLength(1)
  }, 30_000)

  it('refusal: the wallet is told credential_request_denied, audited credential.refuse, nothing issued; no second completion', async () => {
    const { holder, transactionId, accessToken } = await deferredRequest()
    const { reference } = await referenceOf(holder)
    const before = await credentialCount()
    expect(await acme.withDid.completeDeferredCredential({ reference, refuse: 'documents did not match' })).toEqual({
      reference,
      state: 'refused',
      credentialIds: [],
    })
    const denied = await fetchDeferred('acme', accessToken, { transaction_id: transactionId })
    expect(denied.status).toBe(400)
    expect(denied.body.error).toBe('credential_request_denied')
    expect(JSON.stringify(denied.body)).not.toContain('documents')
    expect(await credentialCount()).toBe(before)
    expect(await auditOf('credential.refuse', reference)).toHaveLength(1)
    await expect(acme.withDid.completeDeferredCredential({ reference })).rejects.toMatchObject({ errorType: 'CONFLICT' })
    expect(await credentialCount()).toBe(before)
  }, 30_000)

  it('the transaction ids (and offer ids, tokens, nonces) are not in the database’s bytes', async () => {
    await service.chainAuditRecords()
    expect(secrets.length).toBeGreaterThan(20)
    const bytes = rig.databaseBytes()
    for (const secret of secrets) expect(bytes.includes(secret), secret).toBe(false)
  })
})

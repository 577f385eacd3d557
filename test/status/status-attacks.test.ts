/**
 * Can a user of the same tenant give herself the right to change a credential's status
 * (`POST /claims/status`)? Through the router, on every storage of the harness. Only DID control
 * of the list's issuer (its current owner key) or vault control of the vault holding the issuer's
 * wallet allow; every other caller — a role holder over the credential, the role DID itself, a
 * `veriKey` or `sigAuth` delegate of the issuer, the credential's subject, the owner of the
 * credential's DID, a wallet of another vault, the issuer's old key after an owner change, another
 * tenant — is refused with the error (per item, or of the request) and nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createJWT, decodeJWT } from 'did-jwt'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { accountNodeOf, deriveWalletKey } from '../../src/keys/hd.js'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import {
  HARNESS_STORAGES,
  TENANT_B,
  expectError,
  snapshot,
  startHarness,
  tokenFor,
  walletWithToken,
  type Harness,
} from '../helpers/harness.js'
import { alterPayload, mintToken, tamper } from '../helpers/tokens.js'

const PUBLIC_URL = 'https://status.example.com/identity'

type Wallet = { did: string; jwt: string }
type Issued = { id: string; jwt: string; _id: string }

describe.each(HARNESS_STORAGES)('status change attacks (%s)', (_label, storage) => {
  let h: Harness
  /** The issuer: the first wallet of a BIP44 vault, so the test holds its key. */
  let issuer: Wallet & { key: Uint8Array }
  /** Another wallet of the issuer's vault: vault control. */
  let sibling: Wallet
  /** A wallet of another vault of the same tenant. */
  let otherVault: Wallet
  let subject: Wallet
  let roleHolder: Wallet
  let role: Wallet
  let veriKeyDelegate: string
  let sigAuthDelegate: string
  let vc: Issued

  const change = (items: unknown[], didAuth: string, token?: string) =>
    h.request('POST', '/claims/status', { json: { items }, didAuth, token })
  const entriesOf = (jwt: string) =>
    [(decodeJWT(jwt).payload as { vc: { credentialStatus: unknown } }).vc.credentialStatus].flat() as Array<Record<string, string>>
  /** A JWT credential of `by` about `sub` with a revocation and a suspension entry, stored with `roles`. */
  const issue = async (by: Wallet, sub: string, roles: string[] = []): Promise<Issued> => {
    const signed = await h.request('POST', '/claims/sign', {
      json: {
        iss: by.did,
        sub,
        format: 'JWT',
        status: { purposes: ['revocation', 'suspension'] },
        claims: [{ payload: { member: true } }],
      },
      didAuth: by.jwt,
    })
    expect(signed.status).toBe(200)
    const { id, jwt } = signed.body.vcs[0]
    const stored = await h.request('POST', '/claims', { json: { roles, claims: [{ jwt }] }, didAuth: by.jwt })
    expect(stored.body.errors).toEqual([])
    return { id, jwt, _id: stored.body.vcs[0]._id }
  }
  /** The credential's entries named every way: its list URL + index, its `id`, its stored `_id`. */
  const itemsOf = (credential: Issued, value = true) => {
    const [revocation] = entriesOf(credential.jwt)
    return [
      { statusListCredential: revocation.statusListCredential, statusListIndex: revocation.statusListIndex, purpose: 'revocation', value },
      { id: credential.id, purpose: 'suspension', value },
      { _id: credential._id, purpose: 'revocation', value },
    ]
  }
  /** Whether the caller reads the stored credential (Fetch): only then does its `_id` name it to the caller. */
  const reads = async (didAuth: string, token?: string) => {
    const read = await h.request('GET', `/claims?ids=${encodeURIComponent(vc.id)}`, { didAuth, token })
    return read.status === 200 && (read.body.vcs as Array<{ _id: string }>).some((v) => v._id === vc._id)
  }
  /** The `id` item's refusal: an `id` is resolved among the credentials whose status the caller may change, and none is one. */
  const noneOfYours = (id: string, purpose: string) => ({
    statusCode: 422,
    errorType: 'NOT_FOUND',
    errorMessage:
      `id: no credential ${id} whose status you may change was issued here with a ${purpose} status entry ` +
      '(an MPC issuer’s entries need its quorum’s approvals with the request)',
  })
  /**
   * Every item refused with `errorType`, nothing written — except the `_id` item of a caller who
   * may not read the stored credential: NOT_FOUND like a credential that is not there (the one read
   * rule); and the `id` item: NOT_FOUND like an `id` never issued (issue 28, finding 6).
   */
  const expectRefused = async (didAuth: string, errorType: 'FORBIDDEN' | 'NOT_FOUND', token?: string) => {
    const readable = await reads(didAuth, token)
    const before = await snapshot(h)
    const res = await change(itemsOf(vc), didAuth, token)
    expect(res.status).toBe(200)
    expect(res.body.items).toEqual([])
    expect(res.body.errors.map((e: any) => e.index)).toEqual([0, 1, 2])
    for (const { index, error } of res.body.errors) {
      if (index === 2 && !readable) {
        expect(error).toEqual({ statusCode: 422, errorType: 'NOT_FOUND', errorMessage: `_id: no stored credential ${vc._id}` })
        continue
      }
      if (index === 1) {
        expect(error).toEqual(noneOfYours(vc.id, 'suspension'))
        continue
      }
      expectError({ status: error.statusCode, body: error }, errorType === 'FORBIDDEN' ? 403 : 422, errorType)
    }
    expect(await snapshot(h)).toEqual(before)
    return res.body.errors.filter((e: any) => e.index !== 1).map((e: any) => e.error.errorMessage as string)
  }

  beforeAll(async () => {
    h = await startHarness({ storage, service: { publicUrl: PUBLIC_URL, statusPublishIntervalMs: 60_000 } })
    const vault = (await h.request('POST', '/vaults', { json: { name: 'issuer', hierarchy: 'BIP44' } })).body.vault
    const key = deriveWalletKey(accountNodeOf(vault.mnemonic), 0)
    expect(new LocalSigner(key).address).toBe(vault.wallets[0].ethereumAddress)
    issuer = { did: vault.wallets[0].did, jwt: await tokenFor(h, vault.wallets[0].did), key }
    const second = await h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: issuer.jwt })
    sibling = { did: second.body.wallet.did, jwt: await tokenFor(h, second.body.wallet.did) }
    const another = (await h.request('POST', '/vaults', { json: { name: 'another', hierarchy: 'BIP44' } })).body.vault
    otherVault = { did: another.wallets[0].did, jwt: await tokenFor(h, another.wallets[0].did) }
    subject = await walletWithToken(h)
    roleHolder = await walletWithToken(h)

    // A role with every permission, held by roleHolder, governing the credential (stored with it: assigned to its DID).
    const created = await h.request('POST', '/roles', { json: { permissions: ['Read', 'Write'] }, didAuth: issuer.jwt })
    role = { did: created.body.role.did, jwt: await tokenFor(h, created.body.role.did) }
    const assigned = await h.request('POST', '/roles/assignmnets', {
      json: { assignments: [{ role: role.did, did: roleHolder.did }] },
      didAuth: issuer.jwt,
    })
    expect(assigned.body.errors).toEqual([])
    vc = await issue(issuer, subject.did, [role.did])

    // Delegates of the issuer DID: a veriKey one through Configure Identity Wallet, a sigAuth one on the embedded registry.
    const veriKey = generatePrivateKey()
    const configured = await h.request('POST', '/wallet/configure', {
      json: {
        wallet: { did: issuer.did },
        walletConfig: { txsInput: [{ delegate: { address: new LocalSigner(veriKey).address, validity: 3_600_000 } }] },
      },
      didAuth: issuer.jwt,
    })
    expect(configured.body.wallet.registry.errors).toEqual([])
    veriKeyDelegate = (await mintToken({ iss: issuer.did, signerKey: veriKey })).jwt
    const sigAuth = generatePrivateKey()
    const owner = new LocalSigner(issuer.key)
    await h.service.registries
      .forNetwork('dev')!
      .apply(
        owner.address,
        { op: 'addDelegate', delegateType: 'sigAuth', delegate: new LocalSigner(sigAuth).address, validity: 3_600 },
        owner,
      )
    sigAuthDelegate = (await mintToken({ iss: issuer.did, signerKey: sigAuth })).jwt
  }, 180_000)
  afterAll(() => h?.close())

  it('the holder of a Read+Write role over the credential may read it — and still may not change its status', async () => {
    // The role is real: its holder reads the stored credential through it.
    const read = await h.request('GET', `/claims?ids=${encodeURIComponent(vc.id)}`, { didAuth: roleHolder.jwt })
    expect(read.body.vcs.map((v: any) => v._id)).toEqual([vc._id])
    const messages = await expectRefused(roleHolder.jwt, 'FORBIDDEN')
    for (const message of messages) expect(message).toContain(issuer.did)
    // Acting through the role DID itself, or both tokens at once: refused the same.
    await expectRefused(role.jwt, 'FORBIDDEN')
    await expectRefused(`${roleHolder.jwt},${role.jwt}`, 'FORBIDDEN')
  })

  it('a veriKey or sigAuth delegate of the issuer authenticates as the issuer but is refused: delegates have no owner rights', async () => {
    // Both tokens authenticate (the refusal is FORBIDDEN per item, not a 403 UNAUTHENTICATED of the request).
    await expectRefused(veriKeyDelegate, 'FORBIDDEN')
    await expectRefused(sigAuthDelegate, 'FORBIDDEN')
    await expectRefused(`${veriKeyDelegate},${sigAuthDelegate},${roleHolder.jwt}`, 'FORBIDDEN')
  })

  it('the credential’s subject, and the owner of the credential’s own DID, are refused', async () => {
    expect(entriesOf(vc.jwt)).toHaveLength(2)
    expect((decodeJWT(vc.jwt).payload as { sub?: string }).sub).toBe(subject.did)
    await expectRefused(subject.jwt, 'FORBIDDEN')
    await expectRefused(await tokenFor(h, vc.id), 'FORBIDDEN')
  })

  it('a wallet of another vault of the tenant is refused; a wallet of the issuer’s vault (vault control) is allowed', async () => {
    await expectRefused(otherVault.jwt, 'FORBIDDEN')
    const mine = await issue(issuer, subject.did)
    const res = await change(itemsOf(mine).slice(0, 2), sibling.jwt)
    expect(res.status).toBe(200)
    expect(res.body.errors).toEqual([])
    expect(res.body.items.map((i: any) => i.entries[0].changed)).toEqual([true, true])
    // The change log names the sibling: who changed it is the vault's other wallet, not the issuer.
    const [revocation] = entriesOf(mine.jwt)
    const log = await h.storage
      .collection('status_changes')
      .find({ field: 'listId', op: 'eq', value: revocation.statusListCredential.split('/').pop()! })
    expect(log.items.map((c: any) => c.byDids)).toEqual([[sibling.did]])
  })

  it('an expired or forged token of the issuer: 403 UNAUTHENTICATED, nothing written; a fresh one of its key passes', async () => {
    const fresh = (await mintToken({ iss: issuer.did, signerKey: issuer.key })).jwt
    const expired = (await mintToken({ iss: issuer.did, signerKey: issuer.key, iatIn: -1_200, expIn: -600 })).jwt
    const otherKey = (await mintToken({ iss: issuer.did })).jwt
    const stolenIss = alterPayload(subject.jwt, (p) => {
      p.iss = issuer.did
      p.sub = issuer.did
    })
    const before = await snapshot(h)
    for (const token of [expired, tamper(issuer.jwt), tamper(fresh), otherKey, stolenIss, `${roleHolder.jwt},${expired}`]) {
      expectError(await change(itemsOf(vc), token), 403, 'UNAUTHENTICATED')
    }
    expect(await snapshot(h)).toEqual(before)
    // The same key, unexpired: allowed (setting a bit to what it is changes nothing and writes nothing).
    const same = await change(itemsOf(vc, false), fresh)
    expect(same.body.errors).toEqual([])
    expect(same.body.items.flatMap((i: any) => i.entries.map((e: any) => e.changed))).toEqual([false, false, false])
    expect(await snapshot(h)).toEqual(before)
  })

  it('another tenant: its API key with its own wallet’s token or with the issuer’s token — NOT_FOUND, nothing written', async () => {
    const foreign = await walletWithToken(h, TENANT_B)
    const messages = await expectRefused(foreign.jwt, 'NOT_FOUND', TENANT_B)
    // Told apart from no list at all by nothing: the message names no issuer, no DID of tenant A.
    for (const message of messages) expect(message).not.toContain(issuer.did)
    await expectRefused(issuer.jwt, 'NOT_FOUND', TENANT_B)
    // The issuer's tenant's API key with the other tenant's wallet token: that wallet gives no right here.
    await expectRefused(foreign.jwt, 'FORBIDDEN')
  })

  it('after the issuer DID’s owner changed, the old owner key’s tokens are refused; the new owner’s is allowed', async () => {
    // The moved issuer is a BIP44 vault's wallet, so the test holds its (old) key.
    const vault = (await h.request('POST', '/vaults', { json: { name: 'moved', hierarchy: 'BIP44' } })).body.vault
    const oldKey = deriveWalletKey(accountNodeOf(vault.mnemonic), 0)
    const moved = { did: vault.wallets[0].did, jwt: await tokenFor(h, vault.wallets[0].did) }
    const heir = await walletWithToken(h)
    const credential = await issue(moved, subject.did)
    const handed = await h.request('POST', '/wallet/configure', {
      json: { wallet: { did: moved.did }, walletConfig: { txsInput: [{ newOwner: heir.did }] } },
      didAuth: moved.jwt,
    })
    expect(handed.body.wallet.registry.errors).toEqual([])
    const publicKeyDid = `did:ethr:dev:0x${new LocalSigner(oldKey).publicKeyHex}`
    const before = await snapshot(h)
    for (const token of [
      moved.jwt,
      (await mintToken({ iss: moved.did, signerKey: oldKey })).jwt,
      (await mintToken({ iss: publicKeyDid, signerKey: oldKey })).jwt,
    ]) {
      expectError(await change(itemsOf(credential), token), 403, 'UNAUTHENTICATED')
    }
    expectError(await h.request('POST', '/did-auth-jwt', { json: { iss: moved.did } }), 422, 'VALIDATION_ERROR')
    expect(await snapshot(h)).toEqual(before)
    const byHeir = await change(itemsOf(credential).slice(0, 2), heir.jwt)
    expect(byHeir.body.errors).toEqual([])
    expect(byHeir.body.items.map((i: any) => i.entries[0].changed)).toEqual([true, true])
  })

  /** A JWT credential of `by` with the given `id` and status purposes, stored by `by` unless `store` is false. */
  const issueWithId = async (by: Wallet, id: string, purposes: string[], store = true) => {
    const signed = await h.request('POST', '/claims/sign', {
      json: { iss: by.did, sub: subject.did, format: 'JWT', status: { purposes }, claims: [{ id, payload: { member: true } }] },
      didAuth: by.jwt,
    })
    expect(signed.status).toBe(200)
    const { jwt } = signed.body.vcs[0]
    if (!store) return { id, jwt, _id: '' }
    const stored = await h.request('POST', '/claims', { json: { claims: [{ jwt }] }, didAuth: by.jwt })
    expect(stored.body.errors).toEqual([])
    return { id, jwt, _id: stored.body.vcs[0]._id as string }
  }
  const entryUrl = (e: Record<string, string>) => `${e.statusListCredential}#${e.statusListIndex}`

  it('another issuer of the tenant reusing a credential’s id neither blocks its revocation by id nor learns of it', async () => {
    const id = `urn:uuid:${crypto.randomUUID()}`
    const victim = await issueWithId(issuer, id, ['revocation', 'suspension'])
    // The attacker: a same-tenant issuer (another vault's wallet), its credential reusing the id.
    const copy = await issueWithId(otherVault, id, ['suspension'])
    // By id, the attacker reaches its own credential only, and learns nothing of the victim's.
    const before = await snapshot(h)
    const probe = await change([{ id, purpose: 'revocation', value: true }], otherVault.jwt)
    expect(probe.body.errors).toEqual([{ index: 0, error: noneOfYours(id, 'revocation') }])
    const never = await change([{ id: `urn:uuid:${crypto.randomUUID()}`, purpose: 'revocation', value: true }], otherVault.jwt)
    expect(never.body.errors[0].error.errorMessage.replace(/urn:uuid:[\w-]+/, 'ID')).toBe(
      probe.body.errors[0].error.errorMessage.replace(/urn:uuid:[\w-]+/, 'ID'),
    )
    expect(await snapshot(h)).toEqual(before)
    const own = await change([{ id, purpose: 'suspension', value: true }], otherVault.jwt)
    expect(own.body.errors).toEqual([])
    expect(own.body.items).toEqual([
      {
        index: 0,
        entries: [expect.objectContaining({ statusListCredential: entriesOf(copy.jwt)[0].statusListCredential, changed: true })],
      },
    ])
    const seen = JSON.stringify([probe.body, own.body])
    for (const secret of [victim._id, issuer.did, ...entriesOf(victim.jwt).map((e) => e.statusListCredential)])
      expect(seen).not.toContain(secret)
    // The victim's issuer revokes by id: its own entry, and only it.
    const [revocation] = entriesOf(victim.jwt)
    const revoked = await change([{ id, purpose: 'revocation', value: true }], issuer.jwt)
    expect(revoked.body.errors).toEqual([])
    expect(revoked.body.items).toEqual([
      {
        index: 0,
        entries: [
          {
            statusListCredential: revocation.statusListCredential,
            statusListIndex: revocation.statusListIndex,
            statusPurpose: 'revocation',
            value: true,
            changed: true,
          },
        ],
      },
    ])
    // Suspending by id: its own suspension entry; the attacker's (suspended already) untouched.
    const suspended = await change([{ id, purpose: 'suspension', value: false }], issuer.jwt)
    expect(suspended.body.items[0].entries).toEqual([
      expect.objectContaining({ statusListIndex: entriesOf(victim.jwt)[1].statusListIndex, changed: false }),
    ])
    expect(JSON.stringify(suspended.body)).not.toContain(copy._id)
  })

  it('an id naming several credentials the caller may change is 422 naming only them: their _id, else their list and index', async () => {
    const id = `urn:uuid:${crypto.randomUUID()}`
    const stored = await issueWithId(issuer, id, ['revocation'])
    const unstored = await issueWithId(sibling, id, ['revocation'], false)
    const theirs = await issueWithId(otherVault, id, ['revocation'])
    const before = await snapshot(h)
    const res = await change([{ id, purpose: 'revocation', value: true }], issuer.jwt)
    expect(res.body.items).toEqual([])
    expect(res.body.errors).toEqual([
      {
        index: 0,
        error: {
          statusCode: 422,
          errorType: 'VALIDATION_ERROR',
          errorMessage: `id: 2 credentials ${id} whose status you may change have a revocation entry; name one: _id ${stored._id}, ${entryUrl(entriesOf(unstored.jwt)[0])}`,
        },
      },
    ])
    expect(JSON.stringify(res.body)).not.toContain(theirs._id)
    expect(JSON.stringify(res.body)).not.toContain(entriesOf(theirs.jwt)[0].statusListCredential)
    expect(await snapshot(h)).toEqual(before)
    // Named so, each is changed alone.
    const one = await change([{ _id: stored._id, purpose: 'revocation', value: true }], issuer.jwt)
    expect(one.body.items[0].entries).toEqual([expect.objectContaining({ changed: true })])
  })

  it('a caller without rights over a list gets the same 403 for an allocated and a free index of it; nothing written', async () => {
    const [revocation] = entriesOf(vc.jwt)
    const listId = revocation.statusListCredential.split('/').pop()!
    const taken = new Set(
      (await h.storage.collection('status_entries').find({ field: 'listId', op: 'eq', value: listId }, { limit: 1_000 })).items.map(
        (e: any) => e.index as number,
      ),
    )
    const free = [...Array(taken.size + 1).keys()].find((i) => !taken.has(i))!
    const at = (index: number | string) => ({
      statusListCredential: revocation.statusListCredential,
      statusListIndex: String(index),
      purpose: 'revocation',
      value: true,
    })
    const before = await snapshot(h)
    for (const didAuth of [otherVault.jwt, roleHolder.jwt, subject.jwt]) {
      const res = await change([at(revocation.statusListIndex), at(free)], didAuth)
      expect(res.body.items).toEqual([])
      const [allocated, unallocated] = res.body.errors.map((e: any) => e.error)
      expect(allocated).toMatchObject({ statusCode: 403, errorType: 'FORBIDDEN' })
      expect(unallocated).toEqual(allocated)
    }
    expect(await snapshot(h)).toEqual(before)
    // The caller with rights keeps today's answers: the free index is not allocated.
    const res = await change([at(free)], issuer.jwt)
    expect(res.body.errors[0].error).toEqual({
      statusCode: 422,
      errorType: 'VALIDATION_ERROR',
      errorMessage: `statusListIndex: entry ${free} of ${revocation.statusListCredential} is not allocated to a credential`,
    })
    expect(await snapshot(h)).toEqual(before)
  })

  it('a credential the attacker made herself, naming the issuer’s entry, changes nothing by its _id', async () => {
    const [revocation, suspension] = entriesOf(vc.jwt)
    const attackerKey = generatePrivateKey()
    const attacker = `did:ethr:dev:${new LocalSigner(attackerKey).address}`
    const forged = await createJWT(
      {
        sub: subject.did,
        nbf: Math.floor(Date.now() / 1000),
        vc: {
          '@context': ['https://www.w3.org/ns/credentials/v2'],
          type: ['VerifiableCredential'],
          credentialSubject: { id: subject.did, member: true },
          credentialStatus: [revocation, suspension],
        },
      },
      { issuer: attacker, signer: didJwtSigner(new LocalSigner(attackerKey)), alg: 'ES256K-R' },
    )
    const stored = await h.request('POST', '/claims', { json: { claims: [{ jwt: forged }] }, didAuth: roleHolder.jwt })
    expect(stored.body.errors).toEqual([])
    const _id = stored.body.vcs[0]._id
    const before = await snapshot(h)
    for (const [didAuth, purpose] of [
      [roleHolder.jwt, 'revocation'],
      [(await mintToken({ signerKey: attackerKey })).jwt, 'suspension'],
    ]) {
      const res = await change([{ _id, purpose, value: true }], didAuth)
      expect(res.body.items).toEqual([])
      expect(res.body.errors[0].error).toMatchObject({ statusCode: 403, errorType: 'FORBIDDEN' })
      expect(res.body.errors[0].error.errorMessage).toContain(issuer.did)
    }
    expect(await snapshot(h)).toEqual(before)
  })
})
